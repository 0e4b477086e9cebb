#include "report/json_stream.h"

#include <algorithm>
#include <string>
#include <vector>

#include "util/parallel.h"

namespace archpatch::report {

void JsonObjectStream::Key(std::string_view key) {
  std::fputs(first_ ? "{\n  " : ",\n  ", out_);
  first_ = false;
  const std::string quoted = nlohmann::ordered_json(std::string(key)).dump();
  std::fwrite(quoted.data(), 1, quoted.size(), out_);
  std::fputs(": ", out_);
}

namespace {

// dump(2) of a value nested `depth` spaces deep, as the whole document's dump(2) prints it there.
// nlohmann's serializer takes the depth itself (dump() always starts it at 0): re-indenting a
// dump(2) copied every element's text once more, a seventh of writing an audit's findings. The
// class is nlohmann's detail API; json_stream_test checks the bytes against dump(2).
std::string IndentedText(const nlohmann::ordered_json& value, unsigned depth) {
  std::string out;
  nlohmann::detail::serializer<nlohmann::ordered_json> serializer(
      nlohmann::detail::output_adapter<char, std::string>(out), ' ', nlohmann::ordered_json::error_handler_t::strict);
  serializer.dump(value, /*pretty_print=*/true, /*ensure_ascii=*/false, /*indent_step=*/2, depth);
  return out;
}

// Elements made and dumped at once, at most: a batch's texts are all that is held.
constexpr size_t kBatch = 2048;

}  // namespace

void JsonObjectStream::Indented(const nlohmann::ordered_json& value, unsigned depth) {
  const std::string text = IndentedText(value, depth);
  std::fwrite(text.data(), 1, text.size(), out_);
}

void JsonObjectStream::Member(std::string_view key, const nlohmann::ordered_json& value) {
  Key(key);
  Indented(value, 2);
}

// Making and dumping an audit's findings was a tenth of its time, all on one thread; the
// workers make a batch's texts, which are then written in order.
void JsonObjectStream::ArrayMember(std::string_view key, size_t count,
                                   const std::function<nlohmann::ordered_json(size_t)>& element) {
  Key(key);
  if (count == 0) {
    std::fputs("[]", out_);
    return;
  }
  std::fputs("[\n", out_);
  std::vector<std::string> texts(std::min(count, kBatch));
  for (size_t begin = 0; begin < count; begin += kBatch) {
    const size_t n = std::min(kBatch, count - begin);
    ParallelFor(n, jobs_, [&](size_t i) { texts[i] = IndentedText(element(begin + i), 4); });
    for (size_t i = 0; i < n; ++i) {
      std::fputs(begin + i ? ",\n    " : "    ", out_);
      std::fwrite(texts[i].data(), 1, texts[i].size(), out_);
    }
  }
  std::fputs("\n  ]", out_);
}

void JsonObjectStream::Close() {
  std::fputs(first_ ? "{}\n" : "\n}\n", out_);
  first_ = true;
}

}  // namespace archpatch::report
