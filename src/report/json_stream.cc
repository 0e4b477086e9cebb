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

// dump(2) of a value nested `indent` deep: its own dump with the indent after every newline
// (a newline in dumped JSON is always structure: strings escape theirs).
std::string IndentedText(const nlohmann::ordered_json& value, std::string_view indent) {
  const std::string text = value.dump(2);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t from = 0;
  for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
    out.append(text, from, nl + 1 - from).append(indent);
    from = nl + 1;
  }
  return out.append(text, from);
}

// Elements made and dumped at once, at most: a batch's texts are all that is held.
constexpr size_t kBatch = 256;

}  // namespace

void JsonObjectStream::Indented(const nlohmann::ordered_json& value, std::string_view indent) {
  const std::string text = IndentedText(value, indent);
  std::fwrite(text.data(), 1, text.size(), out_);
}

void JsonObjectStream::Member(std::string_view key, const nlohmann::ordered_json& value) {
  Key(key);
  Indented(value, "  ");
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
    ParallelFor(n, jobs_, [&](size_t i) { texts[i] = IndentedText(element(begin + i), "    "); });
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
