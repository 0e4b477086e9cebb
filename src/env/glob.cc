#include "env/glob.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "env/safe_path.h"

namespace archpatch::env {
namespace fs = std::filesystem;
namespace {

// One compiled pattern element. kStar and kGlobStar loop on themselves; kFork consumes nothing
// (it stands before the "**" of a "**/" and leads past the '/' too: no folder at all); the others
// consume one character and move on.
struct Token {
  enum class Kind { kChar, kAny, kClass, kStar, kGlobStar, kFork } kind = Kind::kChar;
  char c = 0;
  bool negate = false;
  std::vector<std::pair<char, char>> ranges;  // kClass: inclusive ranges

  bool Accepts(char x) const {
    switch (kind) {
      case Kind::kChar: return x == c;
      case Kind::kAny: return x != '/';
      case Kind::kStar: return x != '/';
      case Kind::kGlobStar: return true;
      case Kind::kFork: return false;
      case Kind::kClass: {
        if (x == '/') return false;
        bool in =
            std::any_of(ranges.begin(), ranges.end(), [x](const auto& r) { return r.first <= x && x <= r.second; });
        return in != negate;
      }
    }
    return false;
  }
  bool Loops() const { return kind == Kind::kStar || kind == Kind::kGlobStar; }
};

// A class at pattern[i] == '['; returns the index after its ']', or npos when it is not closed
// (then '[' is an ordinary character, as in fnmatch).
size_t ParseClass(std::string_view pattern, size_t i, Token& token) {
  token.kind = Token::Kind::kClass;
  size_t j = i + 1;
  if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) token.negate = true, ++j;
  const size_t first = j;
  for (; j < pattern.size() && (pattern[j] != ']' || j == first); ++j) {
    if (j + 2 < pattern.size() && pattern[j + 1] == '-' && pattern[j + 2] != ']') {
      token.ranges.emplace_back(pattern[j], pattern[j + 2]);
      j += 2;
    } else {
      token.ranges.emplace_back(pattern[j], pattern[j]);
    }
  }
  return j < pattern.size() ? j + 1 : std::string_view::npos;
}

std::vector<Token> Compile(std::string_view pattern) {
  std::vector<Token> tokens;
  for (size_t i = 0; i < pattern.size();) {
    Token token;
    if (pattern[i] == '*') {
      size_t run = pattern.find_first_not_of('*', i);
      if (run == std::string_view::npos) run = pattern.size();
      token.kind = run - i >= 2 ? Token::Kind::kGlobStar : Token::Kind::kStar;
      if (token.kind == Token::Kind::kGlobStar && run < pattern.size() && pattern[run] == '/') {
        Token fork;
        fork.kind = Token::Kind::kFork;
        tokens.push_back(std::move(fork));
      }
      i = run;
    } else if (pattern[i] == '?') {
      token.kind = Token::Kind::kAny;
      ++i;
    } else if (size_t end = pattern[i] == '[' ? ParseClass(pattern, i, token) : std::string_view::npos;
               end != std::string_view::npos) {
      i = end;
    } else {
      token = Token{};
      token.c = pattern[i++];
    }
    tokens.push_back(std::move(token));
  }
  return tokens;
}

// Adds the positions reachable without consuming a character: past a star (it may match
// nothing), and from a fork past its "**/" as a whole (no folder at all; only before the "**"
// consumed anything: "**//x" must not match "d/x"). Edges only go forward, so one ascending
// pass is enough.
void Close(const std::vector<Token>& tokens, std::vector<char>& states) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!states[i]) continue;
    if (tokens[i].Loops()) states[i + 1] = 1;
    if (tokens[i].kind == Token::Kind::kFork) states[i + 1] = states[i + 3] = 1;  // "**", "/", then past
  }
}

bool HasGlobCharacters(std::string_view part) { return part.find_first_of("*?[") != std::string_view::npos; }

std::vector<std::string_view> Components(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = std::min(path.find('/', start), path.size());
    std::string_view part = path.substr(start, slash - start);
    if (!part.empty() && part != ".") parts.push_back(part);
    start = slash + 1;
  }
  return parts;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view path) {
  if (pattern.size() > kMaxGlobPatternBytes) return false;
  const std::vector<Token> tokens = Compile(pattern);
  std::vector<char> states(tokens.size() + 1, 0), next(tokens.size() + 1, 0);
  states[0] = 1;
  Close(tokens, states);
  for (char c : path) {
    std::fill(next.begin(), next.end(), 0);
    bool any = false;
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (!states[i] || !tokens[i].Accepts(c)) continue;
      next[tokens[i].Loops() ? i : i + 1] = 1;
      any = true;
    }
    if (!any) return false;
    Close(tokens, next);
    states.swap(next);
  }
  return states[tokens.size()];
}

Result<std::vector<std::string>> GlobInside(const fs::path& root, std::string_view pattern) {
  if (Status safe = CheckRelativePath(pattern); !safe) return safe.error();
  if (pattern.size() > kMaxGlobPatternBytes) {
    return Error{fmt::format("pattern is longer than {} bytes", kMaxGlobPatternBytes), {}};
  }
  // Walk only below the pattern's literal folders.
  std::string prefix, normalized;
  bool literal = true;
  int below_prefix = 0;  // components after the literal folders: how deep a walk without ** goes
  for (std::string_view part : Components(pattern)) {
    literal = literal && !HasGlobCharacters(part);
    if (literal) prefix += (prefix.empty() ? "" : "/") + std::string(part);
    if (!literal) ++below_prefix;
    normalized += (normalized.empty() ? "" : "/") + std::string(part);
  }
  const bool crosses = normalized.find("**") != std::string::npos;
  std::vector<std::string> matches;
  if (prefix == normalized) {  // no glob characters: one file
    Result<fs::path> file = ResolveInside(root, normalized);
    if (!file) return file.error();
    if (fs::is_regular_file(*file)) matches.push_back(normalized);
    return matches;
  }
  Result<fs::path> start = ResolveInside(root, prefix.empty() ? "." : prefix);
  if (!start) return start.error();
  std::error_code ec;
  if (!fs::is_directory(*start, ec)) return matches;
  size_t entries = 0;
  for (auto it = fs::recursive_directory_iterator(*start, ec); !ec && it != fs::end(it); it.increment(ec)) {
    if (++entries > kMaxGlobWalkEntries || it.depth() >= kMaxGlobWalkDepth) {
      return Error{fmt::format("'{}': more than {} entries or {} folders deep under '{}'; narrow the pattern", pattern,
                               kMaxGlobWalkEntries, kMaxGlobWalkDepth, start->string()),
                   {}};
    }
    if (!crosses && it.depth() + 1 >= below_prefix) it.disable_recursion_pending();
    const std::string name = it->path().filename().string();
    if (it->is_directory() && IsStateDirName(name)) {
      it.disable_recursion_pending();
      continue;
    }
    std::string relative = it->path().lexically_relative(*start).generic_string();
    if (!prefix.empty()) relative = prefix + "/" + relative;
    if (!GlobMatch(normalized, relative)) continue;
    Result<fs::path> file = ResolveInside(root, relative);
    if (!file) return file.error();
    if (fs::is_regular_file(*file)) matches.push_back(relative);
  }
  if (ec) return Error{fmt::format("cannot list '{}': {}", start->string(), ec.message()), {}};
  std::sort(matches.begin(), matches.end());
  return matches;
}

}  // namespace archpatch::env
