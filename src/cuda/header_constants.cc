#include "cuda/header_constants.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>

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

struct HeaderCache {
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const FileConstants>> files;  // "" entry: unreadable
  size_t read = 0;
};

HeaderCache& Cache() {
  static HeaderCache cache;
  return cache;
}

std::shared_ptr<const FileConstants> LoadHeader(const std::string& path) {
  HeaderCache& cache = Cache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (auto it = cache.files.find(path); it != cache.files.end()) return it->second;
  }
  auto constants = std::make_shared<FileConstants>();
  if (Result<std::string> bytes = ReadInputFile(path, kMaxSourceBytes)) {
    const std::string& contents = *bytes;
    *constants = ReadFileConstants(path, contents, Tokenize(contents));
  }
  std::lock_guard<std::mutex> lock(cache.mutex);
  ++cache.read;
  return cache.files.emplace(path, std::move(constants)).first->second;
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

FileConstants ReadFileConstants(const std::string& file, std::string_view contents, const std::vector<Token>& all) {
  FileConstants out;
  std::vector<const Token*> t;
  for (const Token& tok : all) {
    if (tok.kind != Token::Kind::kComment) t.push_back(&tok);
  }
  auto text = [&](size_t i) { return i < t.size() ? t[i]->Spelling(contents) : std::string_view(); };
  LineIndex lines(contents);
  bool in_enum = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (text(i) == "#" && text(i + 1) == "include" && t.size() > i + 2 && t[i + 2]->kind == Token::Kind::kLiteral) {
      std::string_view quoted = text(i + 2);
      if (quoted.size() > 2 && quoted.front() == '"') out.includes.emplace_back(quoted.substr(1, quoted.size() - 2));
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
    NamedConstant c;
    c.value = negative ? -*value : *value;
    c.file = file;
    c.line = lines.Line(t[i]->begin);
    c.column = lines.Column(t[i]->begin);
    c.text = std::string(contents.substr(t[start]->begin, t[v]->end - t[start]->begin));
    out.constants.emplace(std::string(text(i)), std::move(c));
  }
  return out;
}

std::optional<NamedConstant> ConstantLookup::Find(std::string_view name) const {
  if (auto it = own_.constants.find(name); it != own_.constants.end()) return it->second;
  if (auto it = answers_.find(name); it != answers_.end()) return it->second;
  std::optional<NamedConstant> answer;
  for (const std::shared_ptr<const FileConstants>& header : Closure()) {
    if (auto it = header->constants.find(name); it != header->constants.end()) {
      answer = it->second;
      break;
    }
  }
  return answers_.emplace(std::string(name), std::move(answer)).first->second;
}

const std::vector<std::shared_ptr<const FileConstants>>& ConstantLookup::Closure() const {
  if (closure_) return *closure_;
  closure_.emplace();
  std::set<std::string> seen = {file_};
  std::vector<std::pair<std::string, const std::vector<std::string>*>> level = {{file_, &own_.includes}};
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

size_t HeadersRead() {
  std::lock_guard<std::mutex> lock(Cache().mutex);
  return Cache().read;
}

}  // namespace archpatch::cuda
