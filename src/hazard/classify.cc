#include "hazard/classify.h"

#include <algorithm>
#include <deque>
#include <set>
#include <string>

#include <fmt/format.h>

namespace archpatch::hazard {
namespace {

// Keywords after which `name(` declares a variable (`int x(3)`, `Foo x(y)`) rather than calling.
const std::set<std::string_view, std::less<>> kTypeKeywords = {
    "int",  "unsigned", "signed", "long",     "short",     "char",   "float",    "double", "bool",
    "auto", "void",     "const",  "volatile", "constexpr", "static", "register", "wchar_t"};

bool IsStringLiteral(const ParsedSource& source, const Token& t) {
  if (t.kind != Token::Kind::kLiteral) return false;
  const size_t quote = source.Spelling(t).find('"');
  return quote <= 3;  // npos when there is none
}

// The index of the '(' that makes tokens[i] a call (`f(`, `f<T, 2>(`), or 0 when it is not one.
size_t CallParen(const ParsedSource& source, size_t i) {
  const std::vector<Token>& tokens = source.tokens;
  size_t j = i + 1;
  if (j < tokens.size() && source.Spelling(tokens[j]) == "<") {
    int depth = 0;
    for (; j < tokens.size() && j < i + 64; ++j) {
      const std::string_view s = source.Spelling(tokens[j]);
      if (s == ";" || s == "{" || s == "}") return 0;
      if (s == "<") ++depth;
      if (s == ">") --depth;
      if (s == ">>") depth -= 2;
      if (depth <= 0) break;
    }
    ++j;
  }
  return j < tokens.size() && source.Spelling(tokens[j]) == "(" ? j : 0;
}

bool LooksLikeDeclaration(const ParsedSource& source, size_t i) {
  if (i == 0) return false;
  const Token& prev = source.tokens[i - 1];
  if (prev.kind == Token::Kind::kIdentifier) return true;
  const std::string_view s = source.Spelling(prev);
  if (prev.kind == Token::Kind::kKeyword) return kTypeKeywords.count(s) > 0;
  return s == ">" || s == "*" || s == "&";
}

struct Scope {
  size_t begin, end;
  std::string via;
  bool macro = false;  // a #define's body: its tokens sit on a directive line and still count
};

class BlockScanner {
 public:
  BlockScanner(const ParsedSource& source, const FeatureTable& table, MatchCache& cache)
      : source_(source), table_(table), cache_(cache) {}

  void Run(size_t begin, size_t end) {
    queue_.push_back({begin, end, ""});
    while (!queue_.empty()) {
      Scope scope = queue_.front();
      queue_.pop_front();
      ScanScope(scope);
    }
  }

  std::vector<FeatureUse> uses;
  std::vector<std::string> unseen;

 private:
  void ScanScope(const Scope& scope) {
    const auto& tokens = source_.tokens;
    auto first = std::lower_bound(tokens.begin(), tokens.end(), scope.begin,
                                  [](const Token& t, size_t offset) { return t.begin < offset; });
    for (size_t i = first - tokens.begin(); i < tokens.size() && tokens[i].begin < scope.end; ++i) {
      if (source_.on_directive[i] && !scope.macro) continue;
      const Token& t = tokens[i];
      if (IsStringLiteral(source_, t)) {
        for (const MatchCache::PtxUse& u : LiteralUses(source_.Spelling(t))) Use(u.feature, u.word, t, scope.via);
      } else if (t.kind == Token::Kind::kIdentifier) {
        Identifier(i, scope.via);
      }
    }
  }

  void Identifier(size_t i, const std::string& via) {
    const Token& t = source_.tokens[i];
    const std::string_view name = source_.Spelling(t);
    if (const Feature* f = MatchName(name)) {
      Use(f, name, t, via);
      return;
    }
    if (!CallParen(source_, i) || table_.IsPortable(name) || source_.types.count(name) ||
        LooksLikeDeclaration(source_, i)) {
      return;
    }
    if (Follow(name)) return;
    if (std::find(unseen.begin(), unseen.end(), name) == unseen.end()) unseen.emplace_back(name);
  }

  // The table's answer for `name`, asked once per file (MatchCache).
  const Feature* MatchName(std::string_view name) {
    if (!table_.MayMatchName(name)) return nullptr;  // most identifiers: no look-up at all
    auto [it, fresh] = cache_.names.try_emplace(name, nullptr);
    if (fresh) it->second = table_.MatchName(name);
    return it->second;
  }

  // The same for an instruction word (inline PTX repeats its instructions as much).
  const Feature* MatchPtx(std::string_view word) {
    auto [it, fresh] = cache_.ptx.try_emplace(word, nullptr);
    if (fresh) it->second = table_.MatchPtx(word);
    return it->second;
  }

  // The known words of a string literal, split and matched the first time the file shows it.
  const std::vector<MatchCache::PtxUse>& LiteralUses(std::string_view literal) {
    auto [it, fresh] = cache_.literals.try_emplace(literal);
    if (fresh) {
      words_.clear();
      PtxWordViews(literal, words_);
      for (std::string_view word : words_) {
        if (const Feature* f = MatchPtx(word)) it->second.push_back({f, word});
      }
    }
    return it->second;
  }

  // Queues the bodies of the same-file functions and macros named `name`; false if there are none.
  bool Follow(std::string_view name) {
    bool found = false;
    if (auto named = source_.functions_by_name.find(name); named != source_.functions_by_name.end()) {
      for (size_t index : named->second) {
        const FunctionDef& f = source_.functions[index];
        found = true;
        if (visited_functions_.insert(index).second) queue_.push_back({f.body_begin, f.body_end, std::string(name)});
      }
    }
    if (auto it = source_.macros.find(name); it != source_.macros.end()) {
      found = true;
      if (visited_macros_.insert(name).second) {
        queue_.push_back({it->second.first, it->second.second, std::string(name), true});
      }
    }
    return found;
  }

  void Use(const Feature* f, std::string_view found, const Token& t, const std::string& via) {
    for (const FeatureUse& u : uses) {
      if (u.feature == f) return;  // one use per feature is enough to explain the verdict
    }
    uses.push_back({f, std::string(found), source_.lines.Line(t.begin), source_.lines.Column(t.begin), via});
  }

  const ParsedSource& source_;
  const FeatureTable& table_;
  MatchCache& cache_;
  std::deque<Scope> queue_;
  // What was queued: a function by its index in source_.functions (one name, one body), a macro
  // by its name.
  std::set<size_t> visited_functions_;
  std::set<std::string_view> visited_macros_;
  std::vector<std::string_view> words_;  // a literal's instruction words (LiteralUses' scratch)
};

}  // namespace

void PtxWordViews(std::string_view literal, std::vector<std::string_view>& words) {
  // Drop an encoding prefix, the quotes, and a raw string's delimiters.
  const size_t quote = literal.find('"');
  if (quote == std::string_view::npos) return;
  const bool raw = quote > 0 && literal[quote - 1] == 'R';
  std::string_view body = literal.substr(quote + 1);
  if (!body.empty() && body.back() == '"') body.remove_suffix(1);
  if (raw) {
    const size_t open = body.find('(');
    const size_t close = body.rfind(')');
    if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
      body = body.substr(open + 1, close - open - 1);
    }
  }
  // A word is a run of the body between separators.
  size_t start = 0;
  auto flush = [&](size_t end) {
    if (end > start) words.push_back(body.substr(start, end - start));
  };
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (!raw && c == '\\' && i + 1 < body.size()) {  // \n, \t, \" separate words
      flush(i);
      ++i;
      start = i + 1;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '{' || c == '}' || c == ',') {
      flush(i);
      start = i + 1;
    }
  }
  flush(body.size());
}

std::vector<std::string> PtxWords(std::string_view literal) {
  std::vector<std::string_view> views;
  PtxWordViews(literal, views);
  return {views.begin(), views.end()};
}

Classification ClassifyBlock(const ParsedSource& source, std::string_view contents, size_t begin, size_t end,
                             const arch::Arch& target, const FeatureTable& table, MatchCache* cache) {
  (void)contents;  // the bytes `source` views
  MatchCache own;
  BlockScanner scanner(source, table, cache ? *cache : own);
  scanner.Run(begin, end);
  Classification c;
  c.uses = std::move(scanner.uses);
  c.unseen_calls = std::move(scanner.unseen);
  const arch::Arch specific{target.major, target.minor, arch::Variant::kArchSpecific};
  bool hint = target.variant != arch::Variant::kArchSpecific && arch::IsKnown(specific);
  for (const FeatureUse& u : c.uses) {
    if (u.feature->AvailableOn(target)) continue;
    c.missing.push_back(u);
    hint = hint && u.feature->AvailableOn(specific);
  }
  c.target_variant_hint = !c.missing.empty() && hint;
  c.safety = !c.missing.empty() ? Safety::kUnsafe : !c.unseen_calls.empty() ? Safety::kUnknown : Safety::kSafe;
  return c;
}

}  // namespace archpatch::hazard
