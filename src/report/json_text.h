// The text of JSON documents printed for tools (--json, SARIF, the Ansible module's answer).
// A file name is any bytes but '/' and NUL, and a gate's text is the file's own bytes: where they
// are not UTF-8, nlohmann's default (throw) left a half-printed document, or, from a worker
// thread, an abort. Such bytes print as U+FFFD instead (docs/audit.md, "Text that is not UTF-8").
// The state folder's own files (manifest, journal) keep the strict default: a path written there
// must read back as the same bytes.
#pragma once

#include <charconv>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace archpatch::report {

// value.dump(indent), invalid UTF-8 replaced; indent -1 prints on one line.
std::string DumpText(const nlohmann::ordered_json& value, int indent = -1);
std::string DumpText(const nlohmann::json& value, int indent = -1);

// What the whole document's dump(2) prints for `value` nested `depth` spaces deep in it, invalid
// UTF-8 replaced: the same bytes (json_text_test holds it to that).
std::string IndentedText(const nlohmann::ordered_json& value, unsigned depth);

// A sink (report/json_sink.h) that prints what IndentedText would print of the value a ValueSink
// builds from the same calls, without building it: an audit's findings were a third of its
// --json time in nlohmann values built, walked and freed. Unlike a value, it cannot take a key
// twice: the writers give each key once. Strings printed before on the thread are copied
// (IndentedText's table).
class JsonTextWriter {
 public:
  // Prints into `out`; the first call, BeginObject() or BeginArray(), opens the value `depth`
  // spaces deep, and the End() that closes it ends it.
  JsonTextWriter(std::string& out, unsigned depth);
  ~JsonTextWriter();
  JsonTextWriter(const JsonTextWriter&) = delete;
  JsonTextWriter& operator=(const JsonTextWriter&) = delete;

  template <class T>
  void Member(std::string_view key, const T& value) {
    Key(key);
    Scalar(value);
  }
  template <class T>
  void Item(const T& value) {
    Next();
    Scalar(value);
  }
  void BeginObject(std::string_view key) { Key(key), Open('{', '}'); }
  void BeginArray(std::string_view key) { Key(key), Open('[', ']'); }
  void BeginObject() { Next(), Open('{', '}'); }
  void BeginArray() { Next(), Open('[', ']'); }
  void End();
  // How deep a member's value opens in the innermost object (a writer made at that depth prints
  // it), and a member whose value is such text, printed before.
  unsigned MemberDepth() const { return frames_.empty() ? depth_ : frames_.back().depth + 2; }
  void MemberText(std::string_view key, std::string_view text) { Key(key), out_ += text; }

 private:
  struct Frame {
    unsigned depth;
    char close;
    size_t count = 0;
  };
  void Key(std::string_view key);
  std::string_view Separator();  // what goes before a member or an item: ",\n" or "\n", the indent
  void Next();
  void Open(char open, char close);
  void Scalar(std::string_view s);
  void Scalar(const std::string& s) { Scalar(std::string_view(s)); }
  void Scalar(const char* s) { Scalar(std::string_view(s)); }
  void Scalar(bool b) { out_ += b ? "true" : "false"; }
  void Scalar(std::nullptr_t) { out_ += "null"; }
  void Scalar(int v) { Integer(v); }
  void Scalar(long v) { Integer(v); }
  void Scalar(unsigned v) { Integer(v); }
  void Scalar(unsigned long v) { Integer(v); }
  void Scalar(long long v) { Integer(v); }
  void Scalar(unsigned long long v) { Integer(v); }
  void Scalar(const std::vector<std::string>& items);
  template <class I>
  void Integer(I v) {
    char digits[24];
    out_.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
  }

  std::string& out_;
  const unsigned depth_;
  std::vector<Frame> frames_;
  struct Printer;
  std::unique_ptr<Printer> printer_;  // the thread's strings printed before
};

}  // namespace archpatch::report
