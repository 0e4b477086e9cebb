// What the recogniser needs above tokens: logical lines with their def/class scope, bracket
// matching, primaries (a.b(c)[0]) and literals (ints, strings, None, tuples, lists, sets),
// with module-level names bound to literals resolved.
#pragma once

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "python/tokenizer.h"
#include "gate/finding.h"

namespace archpatch::python {

// The tokens of one file and what was derived from them once.
struct TokenStream {
  std::string_view source;
  std::vector<Token> tokens;
  std::vector<size_t> match;  // for a bracket token, the index of its partner; otherwise npos

  std::string_view Text(size_t i) const { return TokenText(source, tokens[i]); }
  bool Is(size_t i, std::string_view text) const {
    return i < tokens.size() && tokens[i].kind != TokenKind::kString && Text(i) == text;
  }
  // Is with a literal: its length known when compiled, the compare is inlined (memcmp was called
  // for each of the recogniser's many tests against "(", "." or "in").
  template <size_t N>
  bool Is(size_t i, const char (&text)[N]) const {
    if (i >= tokens.size()) return false;
    const Token& t = tokens[i];
    return t.kind != TokenKind::kString && t.end - t.begin == N - 1 &&
           std::memcmp(source.data() + t.begin, text, N - 1) == 0;
  }
  bool IsName(size_t i) const { return i < tokens.size() && tokens[i].kind == TokenKind::kName; }
  // Source text from the start of token `first` to the end of token `last - 1`, with line
  // continuations and the indentation after them folded into one space.
  std::string Folded(size_t first, size_t last) const;
  ByteSpan Span(size_t first, size_t last) const { return {tokens[first].begin, tokens[last - 1].end}; }
};

TokenStream MakeStream(std::string_view source, std::vector<Token> tokens);
inline TokenStream MakeStream(std::string_view source, Tokenized tokenized) {
  return TokenStream{source, std::move(tokenized.tokens), std::move(tokenized.match)};
}

// The enclosing def/class names of a line, outermost first. The lines of one scope share one
// immutable list: a copy of the names in every line was most of SplitLines' cost.
class Scope {
 public:
  Scope() = default;  // module level
  explicit Scope(std::vector<std::string> names)
      : names_(std::make_shared<const std::vector<std::string>>(std::move(names))) {}

  const std::vector<std::string>& names() const;
  bool empty() const { return !names_ || names_->empty(); }
  size_t size() const { return names_ ? names_->size() : 0; }
  const std::string& front() const { return names_->front(); }
  bool operator==(const Scope& other) const { return names_ == other.names_ || names() == other.names(); }

 private:
  std::shared_ptr<const std::vector<std::string>> names_;  // null at module level
};

// One logical line: tokens [first, last) without its NEWLINE/INDENT/DEDENT.
struct LogicalLine {
  size_t first = 0;
  size_t last = 0;
  int depth = 0;           // indentation level (0 = module level)
  Scope scope;             // shared with the other lines of its scope
  bool docstring = false;  // the line is only a string expression (docstring, note)
};

// Splits into logical lines and gives each its scope. A def/class line belongs to its own
// scope (its parameter defaults are "inside" it); decorator lines take the scope of the def
// they decorate. Lambdas open no scope.
std::vector<LogicalLine> SplitLines(const TokenStream& ts);

std::string ScopeName(const std::vector<std::string>& scope);  // "Class.method"
inline std::string ScopeName(const Scope& scope) { return ScopeName(scope.names()); }

enum class LiteralKind { kInt, kString, kNone, kTuple, kList, kSet, kOpaque };

struct Literal {
  LiteralKind kind = LiteralKind::kOpaque;
  long long number = 0;        // kInt
  std::string text;            // kString: the body between the quotes (concatenated)
  std::vector<Literal> items;  // kTuple, kList, kSet
  ByteSpan span;               // exact bytes of the literal
  size_t first_token = 0;      // token range [first_token, last_token)
  size_t last_token = 0;
  std::string via;  // the module-level name it was reached through, if any
  bool parenthesized_scalar = false;
  bool enum_member = false;  // kString read from an enum member (`Arch.sm_100a`), not a string

  bool IsCollection() const {
    return kind == LiteralKind::kTuple || kind == LiteralKind::kList || kind == LiteralKind::kSet;
  }
};

// Module-level names bound once to a literal: `_SUPPORTED_MAJORS = [9, 10]`.
using Bindings = std::map<std::string, Literal, std::less<>>;
Bindings ModuleBindings(const TokenStream& ts, const std::vector<LogicalLine>& lines);

// Parses a literal starting at token `i` (not past `end`); `next` receives the index after it.
// A name bound in `bindings` resolves to its literal (with `via` set). Elements of a collection
// that are not literals become kOpaque items; a non-literal at the top returns nullopt.
std::optional<Literal> ParseLiteral(const TokenStream& ts, size_t i, size_t end, size_t& next, const Bindings* bindings,
                                    int depth = 0);

// The end of the primary expression starting at `i` (NAME followed by .name, (...) and [...]),
// or `i` when no primary starts there.
size_t PrimaryEnd(const TokenStream& ts, size_t i, size_t end);

}  // namespace archpatch::python
