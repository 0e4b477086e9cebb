#include "cuda/runtime_relevance.h"

#include <algorithm>

#include "cuda/blank_bodies.h"
#include "cuda/functions.h"
#include "cuda/runtime_eval.h"
#include "cuda/runtime_gates.h"

namespace archpatch::cuda {
namespace {

using runtime_detail::View;

bool IsOneOf(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// `and`, `not_eq`, ...: read as operators, whatever the lexer calls them.
bool IsAlternativeOperator(std::string_view s) {
  return IsOneOf(s, {"and", "or", "not", "xor", "bitand", "bitor", "compl", "and_eq", "or_eq", "xor_eq", "not_eq"});
}

// The last name of the qualified name starting at `i` (`arch::detail::X`: X's index).
size_t ChainEnd(const View& v, size_t i) {
  size_t k = i;
  while (v.Is(k + 1, "::") && v.IsIdent(k + 2)) k += 2;
  return k;
}

// The cursor for a capability name `arch` in `arch::X` (a NamespaceRef or TypeRef) is the first
// child of what `arch::X` names. The walk reads a child's spelling only as the first child of a
// call or of an unexposed expression (CalleeName) or as the only child of an unexposed one
// (Strip): a construction `arch::X{}` / `arch::X(...)` / `arch::X<...>`, a value-init, a type
// trait (`__is_same(arch::X, Y)`), typeid, sizeof. A qualified name that ends in none of these
// (a value `arch::kMin`, a type in a declaration, a template argument) keeps `arch` unread.
bool IsLeadingQualifierUnread(const View& v, size_t i) {
  const std::string_view after = v.Text(ChainEnd(v, i) + 1);
  if (after.empty() || IsOneOf(after, {"(", "{", "<", "::"})) return false;
  const std::string_view prev = v.Text(i - 1);
  if (prev == "." || prev == "->") return false;  // obj.arch::x: a member's qualifier
  if (prev == "(" && i >= 2) {
    const std::string_view before = v.Text(i - 2);
    if (v.t[i - 2]->kind == Token::Kind::kKeyword || before.starts_with("__") ||
        IsOneOf(before, {"sizeof", "alignof", "typeid", "decltype", "noexcept"})) {
      return false;
    }
  }
  return true;
}

// Keywords after which a name declares (or elaborates) a type or a namespace.
bool IsTypeIntroducer(std::string_view s) {
  return IsOneOf(s, {"class", "struct", "union", "enum", "typename", "namespace", "using", "typedef"});
}

// Positions where a capability name is never an expression cursor the walk evaluates (see the
// header): each is a declaration's name or part of a qualified name.
bool IsUnreadCapabilityName(const View& v, size_t i) {
  const std::string_view prev = v.Text(i - 1), next = v.Text(i + 1);
  if (prev == "namespace") return true;  // namespace arch {, using namespace arch;
  // enum class Major : int {, template <class Arch>, struct Arch;
  if (IsOneOf(prev, {"class", "struct", "union", "enum", "typename"}) && IsOneOf(next, {",", ">", "=", "{", ";", ":"}))
    return true;
  if (prev == "using" && next == "=") return true;  // using Arch = cutlass::arch::Sm90;
  // After `X::` or `X<...>::`, not leading (`::arch::` at file scope leads).
  const bool inner = prev == "::" && i >= 2 && (v.IsIdent(i - 2) || v.Is(i - 2, ">"));
  if (next == "::") return inner || IsLeadingQualifierUnread(v, i);
  // GMMA::Major tnspA: the type of a declaration (two names in a row are no expression).
  return inner && v.IsIdent(i + 1) && !IsAlternativeOperator(next);
}

// What the directives of a file tell the statement rule.
struct DirectiveFacts {
  std::vector<size_t> starts;            // every directive's `#`, in file order
  std::vector<std::string_view> macros;  // names the file #defines, sorted
  std::vector<size_t> capability;        // capability names a #define may bring anywhere
  bool names_type = false;               // a #define may declare a check-named type
};

// One #define: `words` its tokens from `define` on. A capability name of its body stays unread
// after expansion when every token IsUnreadCapabilityName looks at is the macro's own (no
// parameter, no # or ##): `cutlass::arch::synclog_emit()`, `using Arch = cutlass::arch::Sm100;`.
void ReadDefine(std::string_view contents, const std::vector<const Token*>& words, DirectiveFacts& out) {
  if (words.size() < 2) return;
  out.macros.push_back(words[1]->Spelling(contents));
  std::vector<std::string_view> params = {"__VA_ARGS__", "#", "##"};
  size_t body = 2;
  if (words.size() > 2 && words[2]->Spelling(contents) == "(" && words[2]->begin == words[1]->end) {
    for (body = 3; body < words.size() && words[body]->Spelling(contents) != ")"; ++body) {
      params.push_back(words[body]->Spelling(contents));
    }
    ++body;
  }
  if (IsCapabilityName(words[1]->Spelling(contents))) out.capability.push_back(words[1]->begin);
  View v{contents, {}, {}};
  for (size_t w = body; w < words.size(); ++w) v.t.push_back(words[w]);
  v.match.assign(v.t.size(), std::string_view::npos);
  const bool declares = std::any_of(v.t.begin(), v.t.end(), [&](const Token* t) {
    return IsTypeIntroducer(t->Spelling(contents)) || t->Spelling(contents) == "##";
  });
  for (size_t i = 0; i < v.t.size(); ++i) {
    if (!v.IsIdent(i)) continue;
    const std::string_view name = v.Text(i);
    if (declares && IsCheckName(name) && !v.Is(i + 1, "(")) out.names_type = true;
    if (!IsCapabilityName(name)) continue;
    const size_t last = std::max(i, ChainEnd(v, i)) + 1;
    bool own = i >= 2 && last < v.t.size();
    for (size_t k = i >= 2 ? i - 2 : 0; own && k <= last; ++k) {
      own = std::find(params.begin(), params.end(), v.Text(k)) == params.end();
    }
    if (!own || !IsUnreadCapabilityName(v, i)) out.capability.push_back(v.t[i]->begin);
  }
}

DirectiveFacts ReadDirectives(const View& view, const std::vector<Token>& tokens) {
  DirectiveFacts out;
  for (const auto& [hash, end] : view.directives) {
    out.starts.push_back(tokens[hash].begin);
    std::vector<const Token*> words;  // the directive's tokens after '#', comments left out
    for (size_t k = hash + 1; k < tokens.size() && tokens[k].begin < end; ++k) {
      if (tokens[k].kind != Token::Kind::kComment) words.push_back(&tokens[k]);
    }
    if (!words.empty() && words[0]->Spelling(view.src) == "define") ReadDefine(view.src, words, out);
  }
  std::sort(out.macros.begin(), out.macros.end());
  return out;
}

// Names a construction may read without their being written in its statement: a check-named
// type, the scope of one, or a template parameter (`Checker{ok, major >= 9}` is recorded as a
// check, and so is an implicit construction of Checker), and a capability-named class
// (`struct Arch`, implicitly constructed and compared).
bool DeclaresUnwrittenName(const View& v) {
  bool in_typedef = false;
  for (size_t i = 0; i < v.t.size(); ++i) {
    const std::string_view text = v.Text(i), prev = v.Text(i - 1);
    if (text == "typedef") in_typedef = true;
    if (text == ";") in_typedef = false;
    if (!v.IsIdent(i)) continue;
    const bool declared = IsTypeIntroducer(prev) || (prev == "using" && v.Is(i + 1, "="));
    if ((declared || in_typedef) && IsCheckName(text)) return true;
    // (`template <class Arch>` declares a parameter, `enum class Major` an enum: neither is constructed.)
    if (IsOneOf(prev, {"class", "struct", "union"}) && !IsOneOf(v.Text(i - 2), {"<", ",", "enum"}) &&
        IsCapabilityName(text)) {
      return true;
    }
  }
  return false;
}

// The statements of the code (see the header): which capability names sit in one that can hold
// a gate the walk records.
class StatementScan {
 public:
  StatementScan(const View& v, const DirectiveFacts& directives) : v_(v), directives_(directives) {}

  void Run() {
    frames_.emplace_back();
    for (size_t i = 0; i < v_.t.size() && balanced_; ++i) Step(i);
    balanced_ = balanced_ && groups_.empty();
    const size_t end = v_.t.empty() ? 0 : v_.t.back()->end;
    while (!frames_.empty()) Close(end, false), PopFrame();
  }

  // Whether brackets pair: else statements cannot be told apart, and Run stops early.
  bool balanced() const { return balanced_; }
  // The capability names in a statement that can hold a gate, but those in unread positions.
  const std::vector<size_t>& statement_names() const { return kept_; }

 private:
  struct Statement {
    size_t depth = 0;  // parentheses and brackets open within it
    bool has_if = false, refuses = false, checks = false;
    size_t first = std::string_view::npos;
    std::vector<size_t> names;
  };
  // A brace group (the file: the first): its statement under way, whether a refusal sits
  // anywhere inside, and the names of the `if (...)` it is the branch of, kept when one does.
  struct Frame {
    Statement statement;
    bool refusal = false;
    std::vector<size_t> pending;
  };

  void Step(size_t i) {
    const std::string_view text = v_.Text(i);
    Statement& s = frames_.back().statement;
    if (s.first == std::string_view::npos) s.first = v_.t[i]->begin;
    if (text == "{") {
      std::vector<size_t> pending;
      if (s.depth == 0) pending = Close(v_.t[i]->begin, true);
      groups_.push_back('{');
      frames_.emplace_back();
      frames_.back().pending = std::move(pending);
    } else if (text == "}") {
      if (groups_.empty() || groups_.back() != '{') return void(balanced_ = false);
      groups_.pop_back();
      Close(v_.t[i]->begin, false);
      PopFrame();
    } else if (text == "(" || text == "[") {
      groups_.push_back(text[0]);
      ++s.depth;
    } else if (text == ")" || text == "]") {
      if (groups_.empty() || groups_.back() != (text == ")" ? '(' : '[')) return void(balanced_ = false);
      groups_.pop_back();
      --s.depth;
    } else if (text == ";" && s.depth == 0) {
      Close(v_.t[i]->begin, false);
    } else {
      Note(i, s);
    }
  }

  void Note(size_t i, Statement& s) {
    const std::string_view text = v_.Text(i);
    const Token::Kind kind = v_.t[i]->kind;
    if (text == "if") s.has_if = true;
    // The statements the walk counts as refusing: return, continue, throw (or a macro of the file).
    const bool macro = kind == Token::Kind::kIdentifier &&
                       std::binary_search(directives_.macros.begin(), directives_.macros.end(), text);
    if (text == "return" || text == "continue" || text == "throw" || macro) s.refuses = frames_.back().refusal = true;
    // A check's callee as the walk reads it: the called name, or the first element of an
    // implicit construction (`{"check", ...}`, `{check_ok, ...}`).
    // A name inside template arguments or after a comma is neither, unless called:
    // `warpgroup_reg_dealloc<GenericRegisterRequirement>()`; a literal is one as a first element.
    const std::string_view prev = v_.Text(i - 1);
    if (!s.checks && kind == Token::Kind::kIdentifier &&
        (!IsOneOf(prev, {"<", ","}) || v_.Is(i + 1, "(") || v_.Is(i + 1, "<")) && IsCheckName(text)) {
      s.checks = true;
    }
    if (!s.checks && kind == Token::Kind::kLiteral && IsOneOf(prev, {"(", "{"}) && IsCheckName(text)) s.checks = true;
    if (macro) s.checks = true;
    if (kind == Token::Kind::kIdentifier && IsCapabilityName(text) && !IsUnreadCapabilityName(v_, i)) {
      s.names.push_back(v_.t[i]->begin);
    }
  }

  // Ends the statement under way at `at`; `before_block`: at a '{' outside parentheses, whose
  // group may be the branch of an `if` in it. Returns the names that wait for that group.
  std::vector<size_t> Close(size_t at, bool before_block) {
    Statement& s = frames_.back().statement;
    std::vector<size_t> pending;
    if (!s.names.empty()) {
      // A directive inside: the other branch may be what clang reads.
      auto d = std::lower_bound(directives_.starts.begin(), directives_.starts.end(), s.first);
      const bool directive = d != directives_.starts.end() && *d < at;
      if (s.checks || directive || (s.has_if && s.refuses)) {
        kept_.insert(kept_.end(), s.names.begin(), s.names.end());
      } else if (s.has_if && before_block) {
        pending = std::move(s.names);
      }
    }
    const size_t depth = s.depth;
    s = Statement{};
    s.depth = depth;
    return pending;
  }

  void PopFrame() {
    Frame& f = frames_.back();
    if (f.refusal) kept_.insert(kept_.end(), f.pending.begin(), f.pending.end());
    const bool refusal = f.refusal;
    frames_.pop_back();
    if (!frames_.empty() && refusal) frames_.back().refusal = true;
  }

  const View& v_;
  const DirectiveFacts& directives_;
  std::vector<char> groups_;
  std::vector<Frame> frames_;
  std::vector<size_t> kept_;
  bool balanced_ = true;
};

}  // namespace

std::vector<size_t> ReadableCapabilityNames(std::string_view contents, const std::vector<Token>& tokens) {
  return ReadableCapabilityNames(runtime_detail::MakeView(contents, tokens), tokens);
}

std::vector<size_t> ReadableCapabilityNames(const View& v, const std::vector<Token>& tokens) {
  const DirectiveFacts directives = ReadDirectives(v, tokens);
  StatementScan scan(v, directives);
  scan.Run();
  std::vector<size_t> out;
  if (scan.balanced() && !directives.names_type && !DeclaresUnwrittenName(v)) {
    out = scan.statement_names();
  } else {  // every name but those in unread positions
    for (size_t i = 0; i < v.t.size(); ++i) {
      if (v.IsIdent(i) && IsCapabilityName(v.Text(i)) && !IsUnreadCapabilityName(v, i)) out.push_back(v.t[i]->begin);
    }
  }
  out.insert(out.end(), directives.capability.begin(), directives.capability.end());
  std::sort(out.begin(), out.end());
  return out;
}

std::string BlankIrrelevantBodies(std::string_view contents, const std::vector<Token>& tokens,
                                  const std::vector<size_t>& readable) {
  std::vector<gate::ByteSpan> irrelevant;
  size_t covered = 0;  // bodies are listed outer first: skip those inside a kept or blanked one
  for (const FunctionBody& body : FindFunctionBodies(tokens, contents)) {
    if (body.begin < covered) continue;
    covered = body.end;
    auto name = std::lower_bound(readable.begin(), readable.end(), body.begin + 1);
    if (name == readable.end() || *name + 1 >= body.end) irrelevant.push_back({body.begin, body.end});
  }
  return BlankBodies(contents, tokens, irrelevant);
}

}  // namespace archpatch::cuda
