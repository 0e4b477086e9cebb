// One JSON object written member by member, byte-identical to nlohmann's dump(2) of the whole
// object: an audit's findings array is printed element by element instead of built as one
// document first (on a whole environment that document was most of the peak memory).
#pragma once

#include <cstdio>
#include <functional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace archpatch::report {

class JsonObjectStream {
 public:
  explicit JsonObjectStream(std::FILE* out) : out_(out) {}
  JsonObjectStream(const JsonObjectStream&) = delete;
  JsonObjectStream& operator=(const JsonObjectStream&) = delete;

  // `"key": value`, the value indented as a member.
  void Member(std::string_view key, const nlohmann::ordered_json& value);
  // `"key": [ ... ]` with `count` elements, element(i) made only when it is written.
  void ArrayMember(std::string_view key, size_t count, const std::function<nlohmann::ordered_json(size_t)>& element);
  // The closing brace and a newline (`{}` when nothing was written).
  void Close();

 private:
  void Key(std::string_view key);
  void Indented(const nlohmann::ordered_json& value, std::string_view indent);

  std::FILE* out_;
  bool first_ = true;
};

}  // namespace archpatch::report
