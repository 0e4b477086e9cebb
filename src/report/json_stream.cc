#include "report/json_stream.h"

#include <algorithm>
#include <string>
#include <vector>

#include "report/json_text.h"
#include "util/parallel.h"

namespace archpatch::report {

namespace {

// Elements made and not yet written, at most: all an array's texts are never held at once.
constexpr size_t kWindow = 2048;

// Bytes gathered before a write. Through stdio's 4 KiB buffer, an audit's 10 MB of findings
// were 2,500 writes on the thread that must also keep up with 15 threads making them.
constexpr size_t kWriteFrom = 1 << 20;

}  // namespace

void JsonObjectStream::Write(std::string_view text) {
  pending_ += text;
  if (pending_.size() >= kWriteFrom) Flush();
}

void JsonObjectStream::Flush() {
  std::fwrite(pending_.data(), 1, pending_.size(), out_);
  pending_.clear();
}

void JsonObjectStream::Key(std::string_view key) {
  Write(first_ ? "{\n  " : ",\n  ");
  first_ = false;
  Write(DumpText(nlohmann::ordered_json(std::string(key))));
  Write(": ");
}

void JsonObjectStream::Indented(const nlohmann::ordered_json& value, unsigned depth) {
  Write(IndentedText(value, depth));
}

void JsonObjectStream::Member(std::string_view key, const nlohmann::ordered_json& value) {
  Key(key);
  Indented(value, 2);
}

void JsonObjectStream::ArrayMember(std::string_view key, size_t count,
                                   const std::function<nlohmann::ordered_json(size_t)>& element) {
  ArrayMembers({{key, count, element}});
}

void JsonObjectStream::Open(const Array& array) {
  Key(array.key);
  Write(array.count ? "[\n    " : "[]");
}

// Making and dumping an audit's findings was a tenth of its time: the workers make the texts
// (every array's, in the order they are written) while this thread writes them.
void JsonObjectStream::ArrayMembers(const std::vector<Array>& arrays) {
  if (arrays.empty()) return;
  std::vector<size_t> ends;  // arrays[a]'s elements end at ends[a] in the joined order
  size_t total = 0;
  for (const Array& array : arrays) ends.push_back(total += array.count);
  auto array_of = [&](size_t k) {
    return static_cast<size_t>(std::upper_bound(ends.begin(), ends.end(), k) - ends.begin());
  };
  size_t opened = 0;  // arrays whose key is written
  auto open_through = [&](size_t a) {
    for (; opened <= a && opened < arrays.size(); ++opened) {
      if (opened) Write(arrays[opened - 1].count ? "\n  ]" : "");
      Open(arrays[opened]);
    }
  };
  ParallelInOrder<std::string>(
      total, jobs_, kWindow,
      [&](size_t k) {
        const size_t a = array_of(k), i = k - (ends[a] - arrays[a].count);
        return arrays[a].text ? arrays[a].text(i, 4) : IndentedText(arrays[a].element(i), 4);
      },
      [&](size_t k, const std::string& text) {
        const size_t a = array_of(k);
        if (opened <= a) {
          open_through(a);
        } else {
          Write(",\n    ");
        }
        Write(text);
      });
  open_through(arrays.size() - 1);
  if (arrays.back().count) Write("\n  ]");
}

void JsonObjectStream::Close() {
  Write(first_ ? "{}\n" : "\n}\n");
  Flush();
  first_ = true;
}

}  // namespace archpatch::report
