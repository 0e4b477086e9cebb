#include "cuda/header_constants.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>

#include "cuda/directive_lines.h"
#include "util/identifier.h"
#include "util/input_file.h"

namespace archpatch::cuda {
namespace {

constexpr int kMaxIncludeDepth = 6;
constexpr int kMaxAncestors = 8;

std::optional<long long> IntegerLiteral(std::string_view text) {
  while (!text.empty() && (text.back() == 'u' || text.back() == 'U' || text.back() == 'l' || text.back() == 'L')) {
    text.remove_suffix(1);
  }
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) base = 16, text.remove_prefix(2);
  long long value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// A byte the skim cannot read a name across: a splice or a universal character name ('\\'), a
// byte of a UTF-8 character, '$' (the lexer takes all three into names).
bool EndsTheSkim(char c) { return c == '\\' || c == '$' || static_cast<unsigned char>(c) >= 0x80; }

// The names `s` may define as constants: each NAME written `NAME = [-] DIGIT`, in code, comments
// or strings alike (a superset of ReadFileConstants' names, which lexing the file then checks).
// `uncertain`: such a value whose name the skim cannot see for certain (a comment, a line break or
// a splice before the `=`, a comment or a splice after it): the header may define any name.
std::vector<std::string> NamesGivenDigits(std::string_view s, bool& uncertain) {
  std::vector<std::string> names;
  for (size_t eq = s.find('='); eq != std::string_view::npos; eq = s.find('=', eq + 1)) {
    if (eq + 1 < s.size() && s[eq + 1] == '=') {  // `==`
      ++eq;
      continue;
    }
    size_t v = eq + 1;
    while (v < s.size() && IsBlank(s[v])) ++v;
    if (v < s.size() && s[v] == '-') ++v;
    while (v < s.size() && IsBlank(s[v])) ++v;
    if (v < s.size() && (s[v] == '/' || s[v] == '\\')) uncertain = true;
    if (v >= s.size() || s[v] < '0' || s[v] > '9') continue;
    size_t end = eq;
    while (end > 0 && IsBlank(s[end - 1])) {
      if (s[--end] == '\n') uncertain = true;  // a `//` comment may end the line before
    }
    if (end > 0 && (s[end - 1] == '/' || EndsTheSkim(s[end - 1]))) uncertain = true;  // `*/`, a splice
    size_t begin = end;
    while (begin > 0 && IsIdentifierChar(s[begin - 1])) --begin;
    if (begin == end) continue;
    if (begin > 0 && (EndsTheSkim(s[begin - 1]) || s[begin - 1] == '\n' || s[begin - 1] == '\r')) {
      // A name that starts a line may continue one ended by a splice.
      if (s[begin - 1] != '\n' && s[begin - 1] != '\r') uncertain = true;
      size_t back = begin - 1;
      while (back > 0 && (s[back - 1] == '\r' || s[back - 1] == '\n')) --back;
      if (back > 0 && s[back - 1] == '\\') uncertain = true;
    }
    names.emplace_back(s.substr(begin, end - begin));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// `#include "..."` paths of the tokens, as written between the quotes.
std::vector<std::string> QuotedIncludes(const std::vector<const Token*>& t, std::string_view contents) {
  std::vector<std::string> out;
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i]->Spelling(contents) != "#" || t[i + 1]->Spelling(contents) != "include" ||
        t[i + 2]->kind != Token::Kind::kLiteral)
      continue;
    const std::string_view quoted = t[i + 2]->Spelling(contents);
    if (quoted.size() > 2 && quoted.front() == '"') out.emplace_back(quoted.substr(1, quoted.size() - 2));
  }
  return out;
}

std::vector<const Token*> CodeTokens(const std::vector<Token>& all) {
  std::vector<const Token*> t;
  for (const Token& tok : all) {
    if (tok.kind != Token::Kind::kComment) t.push_back(&tok);
  }
  return t;
}

struct Counts {
  std::atomic<size_t> read{0}, lexed{0};
};
Counts& Count() {
  static Counts counts;
  return counts;
}

}  // namespace

// A header of some file's include closure, read once per process: its quoted includes (from its
// directive lines alone where cuda::DirectiveLineTokens can skim them) and the names it may
// define; its constants are lexed at the first lookup of one of those names. Most headers of a
// closure define none of the names a file asks for: lexing each whole was a fifteenth of an audit
// of CUTLASS's headers.
class HeaderFacts {
 public:
  explicit HeaderFacts(std::string path) : path_(std::move(path)) {
    Result<std::string> bytes = ReadInputFile(path_, kMaxSourceBytes);
    ++Count().read;
    if (!bytes) return;
    const std::string& contents = *bytes;
    if (std::optional<std::vector<Token>> lines = DirectiveLineTokens(contents)) {
      includes = QuotedIncludes(CodeTokens(*lines), contents);
      names_ = NamesGivenDigits(contents, any_name_);
      return;
    }
    constants_ = Lex(contents);  // the skim cannot read it: the lexer at once
    includes = constants_->includes;
    any_name_ = true;
  }

  // Written only by the constructor: safe beside other workers' Constants().
  bool MayDefine(std::string_view name) const {
    return any_name_ || std::binary_search(names_.begin(), names_.end(), name);
  }

  const FileConstants& Constants() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!constants_) {
      Result<std::string> bytes = ReadInputFile(path_, kMaxSourceBytes);
      constants_ = bytes ? Lex(*bytes) : FileConstants{};
    }
    return *constants_;
  }

  std::vector<std::string> includes;

 private:
  FileConstants Lex(const std::string& contents) const {
    ++Count().lexed;
    return ReadFileConstants(path_, contents, Tokenize(contents), ConstantsOf::kHeader);
  }

  std::string path_;
  std::vector<std::string> names_;  // sorted
  bool any_name_ = false;           // or lexed whole by the constructor
  mutable std::mutex mutex_;
  mutable std::optional<FileConstants> constants_;
};

namespace {

struct HeaderCache {
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const HeaderFacts>> files;
};

HeaderCache& Cache() {
  static HeaderCache cache;
  return cache;
}

std::shared_ptr<const HeaderFacts> LoadHeader(const std::string& path) {
  HeaderCache& cache = Cache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (auto it = cache.files.find(path); it != cache.files.end()) return it->second;
  }
  auto facts = std::make_shared<const HeaderFacts>(path);
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.files.emplace(path, std::move(facts)).first->second;
}

// `#include "a/b.h"` from dir/x.h: dir/a/b.h, then each folder above dir (the package's include
// root). Answers are kept per (folder, include): every file of a folder asks the same questions.
std::optional<std::string> FindInclude(const std::string& from, const std::string& include) {
  namespace fs = std::filesystem;
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, std::optional<std::string>, std::less<>> found;
  fs::path dir = fs::path(from).parent_path();
  auto key = std::make_pair(dir.string(), include);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = found.find(key); it != found.end()) return it->second;
  }
  std::optional<std::string> answer;
  std::error_code ec;
  for (int up = 0; up <= kMaxAncestors; ++up) {
    fs::path candidate = dir / include;
    if (fs::is_regular_file(candidate, ec)) {
      answer = candidate.lexically_normal().string();
      break;
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  std::lock_guard<std::mutex> lock(mutex);
  return found.emplace(std::move(key), std::move(answer)).first->second;
}

}  // namespace

namespace {

// `# define NAME INTEGER` (or `(INTEGER)`) alone on its line, from the `#` at t[i]: the indexes
// of the integer and of the token that ends the line.
struct DefinedValue {
  size_t value = 0, last = 0;
};
std::optional<DefinedValue> DefinedInteger(const std::vector<const Token*>& t, size_t i, std::string_view contents) {
  auto text = [&](size_t k) { return k < t.size() ? t[k]->Spelling(contents) : std::string_view(); };
  if (text(i) != "#" || text(i + 1) != "define" || i + 3 >= t.size() || t[i + 2]->kind != Token::Kind::kIdentifier)
    return std::nullopt;
  // A function-like macro's '(' touches its name; an object-like one's value is written apart.
  const bool parenthesized = text(i + 3) == "(" && t[i + 3]->begin > t[i + 2]->end && text(i + 5) == ")";
  const size_t value = parenthesized ? i + 4 : i + 3, last = parenthesized ? i + 5 : i + 3;
  if (value >= t.size() || t[value]->kind != Token::Kind::kLiteral || !IntegerLiteral(text(value))) return std::nullopt;
  // Nothing more on the line (comments are not in `t`), and no backslash continuing it.
  const size_t newline = std::min(contents.find('\n', t[last]->end), contents.size());
  if (last + 1 < t.size() && t[last + 1]->begin < newline) return std::nullopt;
  const size_t end = contents.find_last_not_of(" \t\r", newline - 1);
  if (end != std::string_view::npos && end >= t[last]->end && contents[end] == '\\') return std::nullopt;
  return DefinedValue{value, last};
}

}  // namespace

FileConstants ReadFileConstants(const std::string& file, std::string_view contents, const std::vector<Token>& all,
                                ConstantsOf what, LazyBodies* shared) {
  FileConstants out;
  const std::vector<const Token*> t = CodeTokens(all);
  out.includes = QuotedIncludes(t, contents);
  auto text = [&](size_t i) { return i < t.size() ? t[i]->Spelling(contents) : std::string_view(); };
  LineIndex lines(contents);
  LazyBodies own(all, contents);  // found at the first constant: most files have none
  LazyBodies& bodies = shared ? *shared : own;
  // t[name] = the value ending at t[last], written from t[start] on.
  auto keep = [&](size_t name, size_t start, size_t last, long long value) {
    NamedConstant c;
    c.value = value;
    c.file = file;
    c.line = lines.Line(t[name]->begin);
    c.column = lines.Column(t[name]->begin);
    c.text = std::string(contents.substr(t[start]->begin, t[last]->end - t[start]->begin));
    if (text(start) != "#") {  // a macro is no function's
      if (const FunctionBody* body = InnermostBody(bodies.Get(), t[name]->begin)) {
        if (what == ConstantsOf::kScannedFile)
          out.locals.emplace(std::string(text(name)), LocalConstant{std::move(c), body->begin, body->end});
        return;
      }
    }
    out.constants.emplace(std::string(text(name)), std::move(c));
  };
  bool in_enum = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (what == ConstantsOf::kScannedFile && text(i) == "#") {
      if (std::optional<DefinedValue> d = DefinedInteger(t, i, contents)) {
        keep(i + 2, i, d->last, *IntegerLiteral(text(d->value)));
      }
      continue;
    }
    if (text(i) == "enum") in_enum = true;
    if (in_enum && text(i) == "}") in_enum = false;
    // NAME = INTEGER followed by ';' (constexpr/const variables) or ',' / '}' (enumerators).
    if (t[i]->kind != Token::Kind::kIdentifier || text(i + 1) != "=") continue;
    size_t v = i + 2;
    bool negative = text(v) == "-";
    if (negative) ++v;
    if (v >= t.size() || t[v]->kind != Token::Kind::kLiteral) continue;
    std::optional<long long> value = IntegerLiteral(text(v));
    const std::string_view after = text(v + 1);
    if (!value || !(after == ";" || (in_enum && (after == "," || after == "}")))) continue;
    size_t start = i;
    if (!in_enum) {  // a constant variable: `constexpr int32_t NAME` or `const int NAME` before it
      bool constant = false;
      for (size_t k = i; k-- > 0 && i - k <= 4;) {
        if (text(k) == "constexpr" || text(k) == "const") constant = true, start = k;
        if (text(k) == ";" || text(k) == "{" || text(k) == "}") break;
      }
      if (!constant) continue;
    }
    keep(i, start, v, negative ? -*value : *value);
  }
  return out;
}

const FileConstants& ConstantLookup::Own() const {
  if (!own_) own_ = read_own_();
  return *own_;
}

std::optional<NamedConstant> ConstantLookup::Find(std::string_view name, size_t offset) const {
  const FileConstants& own = Own();
  const LocalConstant* local = nullptr;  // the innermost body's: bodies nest, so the last to begin
  for (auto [it, end] = own.locals.equal_range(name); it != end; ++it) {
    const LocalConstant& c = it->second;
    if (c.begin <= offset && offset < c.end && (!local || c.begin > local->begin)) local = &c;
  }
  if (local) return local->constant;
  if (auto it = own.constants.find(name); it != own.constants.end()) return it->second;
  if (auto it = answers_.find(name); it != answers_.end()) return it->second;
  std::optional<NamedConstant> answer;
  for (const std::shared_ptr<const HeaderFacts>& header : Closure()) {
    if (!header->MayDefine(name)) continue;
    const FileConstants& constants = header->Constants();
    if (auto it = constants.constants.find(name); it != constants.constants.end()) {
      answer = it->second;
      break;
    }
  }
  return answers_.emplace(std::string(name), std::move(answer)).first->second;
}

const std::vector<std::shared_ptr<const HeaderFacts>>& ConstantLookup::Closure() const {
  if (closure_) return *closure_;
  closure_.emplace();
  std::set<std::string> seen = {file_};
  std::vector<std::pair<std::string, const std::vector<std::string>*>> level = {{file_, &Own().includes}};
  for (int depth = 0; depth < kMaxIncludeDepth && !level.empty(); ++depth) {
    std::vector<std::pair<std::string, const std::vector<std::string>*>> next;
    for (const auto& [from, includes] : level) {
      for (const std::string& include : *includes) {
        std::optional<std::string> path = FindInclude(from, include);
        if (!path || !seen.insert(*path).second) continue;
        closure_->push_back(LoadHeader(*path));
        next.emplace_back(*path, &closure_->back()->includes);
      }
    }
    level = std::move(next);
  }
  return *closure_;
}

size_t HeadersRead() { return Count().read; }
size_t HeadersLexed() { return Count().lexed; }

}  // namespace archpatch::cuda
