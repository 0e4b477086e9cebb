// Where the report's JSON writers put what they write (report/finding.cc): each writer is a
// template over the sink, so that one function says which keys a value has and in what order,
// whether the value is built (ValueSink: an nlohmann value, for ToJson and the tools that read it)
// or printed (JsonTextWriter, report/json_text.h: dump(2)'s text straight away, for --json).
//
// A sink's calls: Member(key, scalar) and Item(scalar) for a scalar or a list of strings in an
// object or an array; BeginObject(key) / BeginArray(key) in an object, BeginObject() /
// BeginArray() in an array; End() closes the innermost. Scalars: strings, integers, bools, null.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace archpatch::report {

class ValueSink {
 public:
  using Json = nlohmann::ordered_json;
  // Writes the members of `root`, an object.
  explicit ValueSink(Json& root) : stack_{&root} {}

  template <class T>
  void Member(std::string_view key, const T& value) {
    At(key) = Value(value);
  }
  template <class T>
  void Item(const T& value) {
    Top().push_back(Value(value));
  }
  void BeginObject(std::string_view key) { Open(At(key), Json::object()); }
  void BeginArray(std::string_view key) { Open(At(key), Json::array()); }
  void BeginObject() { Open(Pushed(), Json::object()); }
  void BeginArray() { Open(Pushed(), Json::array()); }
  void End() { stack_.pop_back(); }

 private:
  static Json Value(std::string_view s) { return std::string(s); }
  static Json Value(const std::string& s) { return s; }
  static Json Value(const char* s) { return std::string(s); }
  static Json Value(std::nullptr_t) { return nullptr; }
  template <class T>
  static Json Value(const T& v) {
    return v;
  }
  Json& Top() { return *stack_.back(); }
  Json& At(std::string_view key) { return Top()[std::string(key)]; }  // overwrites, as j[key] = v
  Json& Pushed() {
    Top().push_back(nullptr);
    return Top().back();
  }
  void Open(Json& slot, Json empty) {
    slot = std::move(empty);
    stack_.push_back(&slot);
  }
  std::vector<Json*> stack_;  // the open values, innermost last
};

}  // namespace archpatch::report
