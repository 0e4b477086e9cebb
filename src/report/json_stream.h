// One JSON object written member by member, byte-identical to nlohmann's dump(2) of the whole
// object: an audit's findings array is printed element by element instead of built as one
// document first (on a whole environment that document was most of the peak memory).
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string_view>

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
  // `"key": [ ... ]` with `count` elements, element(i) made shortly before it is written (a
  // batch at a time).
  void ArrayMember(std::string_view key, size_t count, const std::function<nlohmann::ordered_json(size_t)>& element);
  // The closing brace and a newline (`{}` when nothing was written).
  void Close();

 private:
  void Key(std::string_view key);
  void Indented(const nlohmann::ordered_json& value, unsigned depth);

  std::FILE* out_;
  int jobs_;
  bool first_ = true;
};

}  // namespace archpatch::report
