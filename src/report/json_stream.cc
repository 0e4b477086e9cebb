#include "report/json_stream.h"

#include <algorithm>
#include <string>
#include <vector>

#include "report/json_text.h"
#include "util/parallel.h"

namespace archpatch::report {

namespace {

// Runs of elements made and not yet written, at most: all an array's texts are never held at once.
constexpr size_t kWindow = 128;
// Elements a worker makes at a time (ArrayMembers).
constexpr size_t kRun = 16;

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
// (every array's, in the order they are written) while this thread writes them. A worker makes a
// run of kRun elements at a time, joined: one element at a time, the 16 threads of the GPU
// machine passed the window's lock and its wake-ups 3,200 times for 10 MB of findings (an audit
// of FlashInfer + CUTLASS: 1,600 voluntary context switches, 1,000 in runs).
void JsonObjectStream::ArrayMembers(const std::vector<Array>& arrays) {
  if (arrays.empty()) return;
  struct Run {
    size_t array, first, end;  // elements [first, end) of arrays[array]
  };
  std::vector<Run> runs;
  for (size_t a = 0; a < arrays.size(); ++a) {
    for (size_t first = 0; first < arrays[a].count; first += kRun) {
      runs.push_back({a, first, std::min(arrays[a].count, first + kRun)});
    }
  }
  auto element = [&](size_t a, size_t i) {
    return arrays[a].text ? arrays[a].text(i, 4) : IndentedText(arrays[a].element(i), 4);
  };
  size_t opened = 0;  // arrays whose key is written
  auto open_through = [&](size_t a) {
    for (; opened <= a && opened < arrays.size(); ++opened) {
      if (opened) Write(arrays[opened - 1].count ? "\n  ]" : "");
      Open(arrays[opened]);
    }
  };
  ParallelInOrder<std::string>(
      runs.size(), jobs_, kWindow,
      [&](size_t r) {
        std::string text = element(runs[r].array, runs[r].first);
        for (size_t i = runs[r].first + 1; i < runs[r].end; ++i) (text += ",\n    ") += element(runs[r].array, i);
        return text;
      },
      [&](size_t r, const std::string& text) {
        if (opened <= runs[r].array) {
          open_through(runs[r].array);
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
