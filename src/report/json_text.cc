#include "report/json_text.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "util/byte_block.h"

namespace archpatch::report {

std::string DumpText(const nlohmann::ordered_json& value, int indent) {
  return value.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string DumpText(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

namespace {

using Json = nlohmann::ordered_json;

// Whether nlohmann prints `s` as its bytes in quotes: printable ASCII but '"' and '\\' (with
// ensure_ascii off it escapes only those two, control bytes and invalid UTF-8; DEL is left to it
// too). Copied, such a string costs no escaping and no look-up: the keys, arches and verdicts, and
// most paths, explanations and source citations, tested sixteen bytes at a time (a string looked
// up in PrintedStrings was hashed a byte at a time: half of `--json`'s instructions).
bool PrintsAsItIs(std::string_view s) {
  static constexpr std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> plain{};
    for (int c = 0x20; c <= 0x7e; ++c) plain[c] = c != '"' && c != '\\';
    return plain;
  }();
  size_t p = 0;
  for (; p + ByteBlock::kSize <= s.size(); p += ByteBlock::kSize) {
    const ByteBlock b = ByteBlock::Load(s.data() + p);
    if ((b.Below(0x20) | b.NonAscii() | b.Is(0x7f) | b.Is('"') | b.Is('\\')).Any()) return false;
  }
  for (; p < s.size(); ++p) {
    if (!kPlain[static_cast<unsigned char>(s[p])]) return false;
  }
  return true;
}

// `before`, then `s` in quotes, then `after`, in one append where they fit a line's buffer: a
// finding's text is about a hundred such pieces, and each append of its own checks the capacity
// and calls memcpy (the keys, three to six appends each, were a third of --json's instructions).
void Quoted(std::string& out, std::string_view before, std::string_view s, std::string_view after = {}) {
  constexpr size_t kLine = 256;
  const size_t n = before.size() + s.size() + after.size() + 2;
  if (n > kLine) {
    out.append(before).append(1, '"').append(s).append(1, '"').append(after);
    return;
  }
  char line[kLine];
  char* p = std::copy(before.begin(), before.end(), line);
  *p++ = '"';
  p = std::copy(s.begin(), s.end(), p);
  *p++ = '"';
  p = std::copy(after.begin(), after.end(), p);
  out.append(line, n);
}

void Quoted(std::string& out, std::string_view s) { Quoted(out, {}, s); }

// ",\n" or "\n", then `indent` spaces: what goes before a member or an item.
std::string_view Separator(bool first, size_t indent) {
  static const std::string kBreak = ",\n" + std::string(512, ' ');
  indent = std::min(indent, kBreak.size() - 2);
  return std::string_view(kBreak).substr(first ? 1 : 0, (first ? 1 : 2) + indent);
}

// The printed text of strings a thread has printed before. An audit's findings repeat most of
// theirs: keys, "false" 23 times a finding, each instruction's 400-byte source citation twice,
// explanations, paths. nlohmann's escaping costs about 30 instructions a byte; this is a hash and
// a copy. Bounded: emptied when it holds more than kCacheBytes (a MiB: one per thread that prints).
class PrintedStrings {
 public:
  // The printed text of `s` (quotes included), or nullptr.
  const std::string* Find(std::string_view s) const {
    auto it = texts_.find(s);
    return it == texts_.end() ? nullptr : &it->second;
  }
  void Add(std::string_view s, std::string_view text) {
    if (s.size() > kLongest) return;
    if (bytes_ > kCacheBytes) texts_.clear(), bytes_ = 0;
    bytes_ += s.size() + text.size() + kEntryBytes;
    texts_.emplace(std::string(s), std::string(text));
  }

 private:
  static constexpr size_t kLongest = 4096, kCacheBytes = 1 << 20, kEntryBytes = 96;  // a node and two strings
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::string, Hash, std::equal_to<>> texts_;
  size_t bytes_ = 0;
};

// dump(2)'s layout, walked here so that strings come from PrintedStrings; nlohmann prints every
// scalar (and every string the first time). The layout is serializer::dump's: "{\n", each member
// at depth + 2 as `"key": value` joined by ",\n", then "\n", the depth, "}"; "{}" and "[]" empty.
class IndentedWriter {
 public:
  IndentedWriter(std::string& out, PrintedStrings& printed)
      : out_(out),
        printed_(printed),
        serializer_(nlohmann::detail::output_adapter<char, std::string>(out), ' ', Json::error_handler_t::replace) {}

  void Value(const Json& v, unsigned depth) {
    switch (v.type()) {
      case Json::value_t::object: return Object(v, depth);
      case Json::value_t::array: return Array(v, depth);
      case Json::value_t::string: return String(v.get_ref<const std::string&>());
      default: return serializer_.dump(v, /*pretty_print=*/true, /*ensure_ascii=*/false, 2, depth);
    }
  }

 private:
  void String(const std::string& s) {
    if (PrintsAsItIs(s)) return Quoted(out_, s);
    if (const std::string* text = printed_.Find(s)) return void(out_ += *text);
    const size_t start = out_.size();
    serializer_.dump(Json(s), false, false, 0, 0);
    printed_.Add(s, std::string_view(out_).substr(start));
  }

  void Indent(unsigned depth) { out_.append(depth, ' '); }

  void Object(const Json& v, unsigned depth) {
    Container(v.get_ref<const Json::object_t&>(), '{', '}', depth, [&](const auto& member) {
      String(member.first);
      out_ += ": ";
      Value(member.second, depth + 2);
    });
  }

  void Array(const Json& v, unsigned depth) {
    Container(v.get_ref<const Json::array_t&>(), '[', ']', depth, [&](const Json& item) { Value(item, depth + 2); });
  }

  // `open`, each item on a line of its own at depth + 2, joined by ",\n", then `close` at the
  // depth; `open` and `close` alone when there is none.
  template <class Items, class WriteItem>
  void Container(const Items& items, char open, char close, unsigned depth, WriteItem write_item) {
    out_ += open;
    if (items.empty()) return void(out_ += close);
    out_ += '\n';
    for (auto it = items.begin(); it != items.end(); ++it) {
      if (it != items.begin()) out_ += ",\n";
      Indent(depth + 2);
      write_item(*it);
    }
    out_ += '\n';
    Indent(depth);
    out_ += close;
  }

  std::string& out_;
  PrintedStrings& printed_;
  nlohmann::detail::serializer<Json> serializer_;  // nlohmann's detail API; its output is `out_`
};

PrintedStrings& ThreadPrintedStrings() {
  thread_local PrintedStrings printed;  // per thread: the JSON workers share nothing
  return printed;
}

}  // namespace

std::string IndentedText(const Json& value, unsigned depth) {
  std::string out;
  IndentedWriter(out, ThreadPrintedStrings()).Value(value, depth);
  return out;
}

// A string printed as IndentedWriter prints it: copied when printed before on the thread.
struct JsonTextWriter::Printer {
  explicit Printer(std::string& out)
      : out_(out),
        printed_(ThreadPrintedStrings()),
        serializer_(nlohmann::detail::output_adapter<char, std::string>(out), ' ', Json::error_handler_t::replace) {}
  void String(std::string_view s) {
    if (PrintsAsItIs(s)) return Quoted(out_, s);
    if (const std::string* text = printed_.Find(s)) return void(out_ += *text);
    const size_t start = out_.size();
    serializer_.dump(Json(std::string(s)), false, false, 0, 0);
    printed_.Add(s, std::string_view(out_).substr(start));
  }
  std::string& out_;
  PrintedStrings& printed_;
  nlohmann::detail::serializer<Json> serializer_;
};

JsonTextWriter::JsonTextWriter(std::string& out, unsigned depth)
    : out_(out), depth_(depth), printer_(std::make_unique<Printer>(out)) {}

JsonTextWriter::~JsonTextWriter() = default;

std::string_view JsonTextWriter::Separator() {
  if (frames_.empty()) return {};  // the value itself
  Frame& f = frames_.back();
  return report::Separator(f.count++ == 0, f.depth + 2);
}

void JsonTextWriter::Next() { out_ += Separator(); }

void JsonTextWriter::Key(std::string_view key) {
  const std::string_view separator = Separator();
  if (PrintsAsItIs(key)) return Quoted(out_, separator, key, ": ");  // every key the writers give
  out_ += separator;
  printer_->String(key);
  out_ += ": ";
}

void JsonTextWriter::Open(char open, char close) {
  out_ += open;
  frames_.push_back({frames_.empty() ? depth_ : frames_.back().depth + 2, close});
}

void JsonTextWriter::End() {
  const Frame f = frames_.back();
  frames_.pop_back();
  if (f.count) {
    out_ += '\n';
    out_.append(f.depth, ' ');
  }
  out_ += f.close;
}

void JsonTextWriter::Scalar(std::string_view s) { printer_->String(s); }

void JsonTextWriter::Scalar(const std::vector<std::string>& items) {
  Open('[', ']');
  for (const std::string& item : items) Item(item);
  End();
}

}  // namespace archpatch::report
