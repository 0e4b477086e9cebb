// One JSON object written member by member, byte-identical to nlohmann's dump(2) of the whole
// object: an audit's findings array is printed element by element instead of built as one
// document first (on a whole environment that document was most of the peak memory). Bytes that
// are not UTF-8 (a file name is any bytes but '/' and NUL) print as U+FFFD: the document stays
// JSON (docs/audit.md, "Text that is not UTF-8").
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace archpatch::report {

class JsonObjectStream {
 public:
  // `jobs` threads make an array's elements (element() must be safe to call from several).
  explicit JsonObjectStream(std::FILE* out, int jobs = 1) : out_(out), jobs_(std::max(1, jobs)) {}
  JsonObjectStream(const JsonObjectStream&) = delete;
  JsonObjectStream& operator=(const JsonObjectStream&) = delete;

  // `"key": value`, the value indented as a member.
  void Member(std::string_view key, const nlohmann::ordered_json& value);
  // `"key": [ ... ]` with `count` elements, element(i) made shortly before it is written.
  void ArrayMember(std::string_view key, size_t count, const std::function<nlohmann::ordered_json(size_t)>& element);
  struct Array {
    std::string_view key;
    size_t count;
    std::function<nlohmann::ordered_json(size_t)> element;
    // Instead of element: element i's text, printed `depth` spaces deep (report/json_text.h's
    // JsonTextWriter: the value never built).
    std::function<std::string(size_t i, unsigned depth)> text = {};
  };
  // Array members in a row, their elements made by the same threads: the first elements of one
  // are made while the last of the one before are written.
  void ArrayMembers(const std::vector<Array>& arrays);
  // The closing brace and a newline (`{}` when nothing was written); what is gathered is written
  // (the text goes out a MiB at a time, and at Close: without it the last of it is not written).
  void Close();

 private:
  void Write(std::string_view text);
  void Flush();
  void Key(std::string_view key);
  void Open(const Array& array);
  void Indented(const nlohmann::ordered_json& value, unsigned depth);

  std::FILE* out_;
  int jobs_;
  bool first_ = true;
  std::string pending_;  // written, not yet handed to out_
};

}  // namespace archpatch::report
