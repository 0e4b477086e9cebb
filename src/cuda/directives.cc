#include "cuda/directives.h"

#include <fmt/format.h>

namespace archpatch::cuda {
namespace {

bool IsComment(const Token& t) { return t.kind == Token::Kind::kComment; }

// Whether token i is the first token of its logical line (comments count as blanks).
bool StartsLine(const std::vector<Token>& tokens, size_t i, std::string_view contents) {
  size_t gap_end = tokens[i].begin;
  for (size_t k = i; k-- > 0;) {
    if (HasLineBreak(contents.substr(tokens[k].end, gap_end - tokens[k].end))) return true;
    if (!IsComment(tokens[k])) return false;
    if (tokens[k].Spelling(contents).substr(0, 2) == "//") return true;  // ends at a newline
    gap_end = tokens[k].begin;
  }
  return true;  // the file's first token
}

// The tokens of one directive: from '#' to the end of its logical line.
struct DirectiveTokens {
  size_t hash = 0;  // index of '#'
  size_t end = 0;   // one past the last token on the logical line
};

DirectiveTokens LogicalLine(const std::vector<Token>& tokens, size_t hash, std::string_view contents) {
  size_t end = hash + 1;
  while (end < tokens.size() &&
         !HasLineBreak(contents.substr(tokens[end - 1].end, tokens[end].begin - tokens[end - 1].end))) {
    ++end;
  }
  return {hash, end};
}

// The condition as written: comments dropped, a gap holding a comment or a continuation becomes
// one space, plain spacing stays as it is.
struct ConditionText {
  std::string text;
  ByteSpan span;
};

ConditionText FoldCondition(const std::vector<Token>& tokens, size_t first, size_t end, std::string_view contents) {
  ConditionText out;
  size_t previous_end = 0;
  bool any = false;
  for (size_t i = first; i < end; ++i) {
    if (IsComment(tokens[i])) continue;
    if (!any) {
      out.span.begin = tokens[i].begin;
    } else {
      std::string_view gap = contents.substr(previous_end, tokens[i].begin - previous_end);
      bool plain = gap.find_first_not_of(" \t") == std::string_view::npos;
      out.text += plain ? std::string(gap) : std::string(" ");
    }
    out.text += tokens[i].Spelling(contents);
    previous_end = tokens[i].end;
    any = true;
  }
  out.span.end = any ? previous_end : out.span.begin;
  return out;
}

bool ParseKind(std::string_view word, DirectiveKind& kind) {
  static constexpr std::pair<std::string_view, DirectiveKind> kWords[] = {
      {"if", DirectiveKind::kIf},     {"ifdef", DirectiveKind::kIfdef},     {"ifndef", DirectiveKind::kIfndef},
      {"elif", DirectiveKind::kElif}, {"elifdef", DirectiveKind::kElifdef}, {"elifndef", DirectiveKind::kElifndef},
      {"else", DirectiveKind::kElse},
  };
  for (const auto& [name, k] : kWords) {
    if (word == name) return kind = k, true;
  }
  return false;
}

bool Opens(DirectiveKind kind) {
  return kind == DirectiveKind::kIf || kind == DirectiveKind::kIfdef || kind == DirectiveKind::kIfndef;
}

// Calls visit(line) for each directive of the tokens, in order: a `#` that starts its logical line.
template <typename Visit>
void ForEachDirective(const std::vector<Token>& tokens, std::string_view contents, Visit visit) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].Spelling(contents) != "#" || !StartsLine(tokens, i, contents)) continue;
    const DirectiveTokens d = LogicalLine(tokens, i, contents);
    visit(d);
    i = d.end - 1;
  }
}

class ChainBuilder {
 public:
  ChainBuilder(const std::vector<Token>& tokens, std::string_view contents, const std::string& file,
               const LineIndex& lines)
      : tokens_(tokens), contents_(contents), file_(file), lines_(lines) {}

  DirectiveScan Build() {
    ForEachDirective(tokens_, contents_, [this](const DirectiveTokens& d) { Handle(d); });
    CloseUnterminated();
    return std::move(scan_);
  }

 private:
  // Index of the first non-comment token after `from` within the directive, or d.end.
  size_t NextWord(const DirectiveTokens& d, size_t from) const {
    while (from < d.end && IsComment(tokens_[from])) ++from;
    return from;
  }

  void Handle(const DirectiveTokens& d) {
    size_t word = NextWord(d, d.hash + 1);
    if (word == d.end) return;  // the null directive
    std::string_view name = tokens_[word].Spelling(contents_);
    DirectiveKind kind;
    if (name == "endif") return EndChain(d);
    if (name == "define" || name == "undef") return AddMacro(d, word, name == "define");
    if (!ParseKind(name, kind)) return;
    DirectiveBranch branch = MakeBranch(d, word, kind);
    if (Opens(kind)) return OpenChain(std::move(branch));
    ContinueChain(std::move(branch), d);
  }

  DirectiveBranch MakeBranch(const DirectiveTokens& d, size_t word, DirectiveKind kind) {
    DirectiveBranch b;
    b.kind = kind;
    const Token& hash = tokens_[d.hash];
    b.line = lines_.Line(hash.begin), b.column = lines_.Column(hash.begin);
    b.directive_span = {hash.begin, tokens_[d.end - 1].end};
    ConditionText cond = FoldCondition(tokens_, word + 1, d.end, contents_);
    if (kind == DirectiveKind::kElse) cond = {"", {tokens_[word].end, tokens_[word].end}};
    b.condition = std::move(cond.text);
    b.condition_span = cond.span;
    size_t at = kind == DirectiveKind::kElse ? tokens_[word].begin : cond.span.begin;
    b.condition_line = lines_.Line(at), b.condition_column = lines_.Column(at);
    size_t after = contents_.find('\n', b.directive_span.end);
    b.block.begin = after == std::string_view::npos ? contents_.size() : after + 1;
    b.first_line = lines_.Line(b.directive_span.end) + 1;
    return b;
  }

  int Innermost() const { return open_.empty() ? -1 : open_.back(); }

  void OpenChain(DirectiveBranch b) {
    b.parent = Innermost();
    b.chain = next_chain_++;
    scan_.branches.push_back(std::move(b));
    open_.push_back(static_cast<int>(scan_.branches.size()) - 1);
  }

  void CloseBlock(int index, size_t hash_offset) {
    DirectiveBranch& b = scan_.branches[index];
    size_t line_start = lines_.LineStart(lines_.Line(hash_offset));
    b.block.end = std::max(b.block.begin, line_start);
    b.last_line = lines_.Line(hash_offset) - 1;
  }

  void ContinueChain(DirectiveBranch b, const DirectiveTokens& d) {
    if (open_.empty()) return Problem(d, fmt::format("'#{}' without '#if'", DirectiveName(b.kind)));
    int current = open_.back();
    if (scan_.branches[current].kind == DirectiveKind::kElse) {
      return Problem(d, fmt::format("'#{}' after '#else'", DirectiveName(b.kind)));
    }
    CloseBlock(current, tokens_[d.hash].begin);
    b.parent = scan_.branches[current].parent;
    b.chain = scan_.branches[current].chain;
    b.previous = current;
    scan_.branches.push_back(std::move(b));
    open_.back() = static_cast<int>(scan_.branches.size()) - 1;
  }

  void EndChain(const DirectiveTokens& d) {
    if (open_.empty()) return Problem(d, "'#endif' without '#if'");
    CloseBlock(open_.back(), tokens_[d.hash].begin);
    open_.pop_back();
  }

  void AddMacro(const DirectiveTokens& d, size_t word, bool define) {
    size_t name = NextWord(d, word + 1);
    if (name == d.end || tokens_[name].kind == Token::Kind::kPunctuation) return;
    MacroDirective m;
    m.define = define;
    m.name = tokens_[name].Spelling(contents_);
    m.offset = tokens_[d.hash].begin;
    m.branch = Innermost();
    // Function-like when '(' touches the name: `#define F(x)`, not `#define F (x)`.
    m.function_like = name + 1 < d.end && tokens_[name + 1].begin == tokens_[name].end &&
                      tokens_[name + 1].Spelling(contents_) == "(";
    if (define && !m.function_like) m.replacement = FoldCondition(tokens_, name + 1, d.end, contents_).text;
    scan_.macros.push_back(std::move(m));
  }

  void CloseUnterminated() {
    for (int index : open_) {
      DirectiveBranch& b = scan_.branches[index];
      b.block.end = contents_.size();
      b.last_line = lines_.Line(contents_.size());
      b.terminated = false;
      scan_.problems.push_back(Error{fmt::format("'#{}' is not closed by '#endif'", DirectiveName(b.kind)),
                                     Location{file_, b.line, b.column}});
    }
    open_.clear();
  }

  void Problem(const DirectiveTokens& d, std::string message) {
    size_t at = tokens_[d.hash].begin;
    scan_.problems.push_back(Error{std::move(message), Location{file_, lines_.Line(at), lines_.Column(at)}});
  }

  const std::vector<Token>& tokens_;
  std::string_view contents_;
  const std::string& file_;
  const LineIndex& lines_;
  DirectiveScan scan_;
  std::vector<int> open_;  // the innermost open branch of each open chain
  int next_chain_ = 0;
};

}  // namespace

bool StartsIncludeDirective(std::string_view text) {
  if (text.empty() || text[0] != '#') return false;
  const size_t word = text.find_first_not_of(" \t", 1);
  return word != std::string_view::npos && text.substr(word, 7) == "include";
}

std::vector<Token> DirectiveLinesOf(const std::vector<Token>& tokens, std::string_view contents) {
  std::vector<Token> lines;
  ForEachDirective(tokens, contents, [&](const DirectiveTokens& d) {
    lines.insert(lines.end(), tokens.begin() + static_cast<std::ptrdiff_t>(d.hash),
                 tokens.begin() + static_cast<std::ptrdiff_t>(d.end));
  });
  return lines;
}

DirectiveScan ReadDirectives(const std::vector<Token>& tokens, std::string_view contents, const std::string& file) {
  return ReadDirectives(tokens, contents, file, LineIndex(contents));
}

DirectiveScan ReadDirectives(const std::vector<Token>& tokens, std::string_view contents, const std::string& file,
                             const LineIndex& lines) {
  return ChainBuilder(tokens, contents, file, lines).Build();
}

}  // namespace archpatch::cuda
