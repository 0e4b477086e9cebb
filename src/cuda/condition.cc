#include "cuda/condition.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cuda/condition_literal.h"
#include "cuda/condition_parser.h"

namespace archpatch::cuda {
namespace {

// C++ alternative tokens and what they stand for; the assignment ones are never valid in a #if.
const std::map<std::string_view, std::string_view>& AlternativeTokens() {
  static const std::map<std::string_view, std::string_view> table = {
      {"and", "&&"},  {"or", "||"},     {"not", "!"},     {"bitand", "&"}, {"bitor", "|"},   {"xor", "^"},
      {"compl", "~"}, {"not_eq", "!="}, {"and_eq", "&="}, {"or_eq", "|="}, {"xor_eq", "^="},
  };
  return table;
}

// Binary operators by precedence (higher binds tighter); '?' is the ternary. A switch, not a
// map: the parser asks several times per operator of every #if of a file.
int Precedence(std::string_view op) {
  if (op.size() == 1) {
    switch (op[0]) {
      case ',': return 1;
      case '?': return 2;
      case '|': return 5;
      case '^': return 6;
      case '&': return 7;
      case '<':
      case '>': return 9;
      case '+':
      case '-': return 11;
      case '*':
      case '/':
      case '%': return 12;
      default: return 0;
    }
  }
  if (op.size() != 2) return 0;
  if (op == "||") return 3;
  if (op == "&&") return 4;
  if (op == "==" || op == "!=") return 8;
  if (op == "<=" || op == ">=") return 9;
  if (op == "<<" || op == ">>") return 10;
  return 0;
}

// Built-in function-like operators of GCC and Clang; their value is never known here.
bool IsBuiltinQuery(std::string_view name) {
  static const std::set<std::string_view> names = {
      "__has_include",     "__has_include_next", "__has_builtin",    "__has_attribute", "__has_cpp_attribute",
      "__has_c_attribute", "__has_feature",      "__has_extension",  "__has_warning",   "__has_declspec_attribute",
      "__is_identifier",   "__has_embed",        "__is_target_arch", "__is_target_os",
  };
  return names.count(name) > 0;
}

ConditionNode Leaf(ConditionNode::Kind kind, const CondToken& token, std::string name = "") {
  ConditionNode node;
  node.kind = kind;
  node.name = std::move(name);
  node.begin = token.begin, node.end = token.end;
  return node;
}

constexpr int kMaxDepth = 256;  // nesting beyond this is refused rather than risking the stack
constexpr int kMaxTreeDepth = 2000;

}  // namespace

ConditionParser::ConditionParser(std::string_view text, std::vector<CondToken> tokens) : tokens_(std::move(tokens)) {
  condition_.text_ = std::string(text);
}

Result<Condition> ConditionParser::Parse() {
  try {
    if (tokens_.empty()) Fail(condition_.text_.size(), "empty condition (#if with no expression)");
    condition_.root_ = ParseExpression(1);
    if (Peek() != nullptr) FailAtToken(Peek(), "missing binary operator before");
  } catch (const Failure& failure) {
    return failure.error;
  }
  return std::move(condition_);
}

const CondToken* ConditionParser::Peek() const { return next_ < tokens_.size() ? &tokens_[next_] : nullptr; }

const CondToken& ConditionParser::Take() {
  if (next_ >= tokens_.size()) Fail(condition_.text_.size(), "expected an expression at the end of the condition");
  return tokens_[next_++];
}

int ConditionParser::Add(ConditionNode node) {
  // Trees deeper than this (`1+1+1+...` builds depth without parser recursion) would make the
  // evaluator's recursion risky; refuse them like deep parentheses.
  int depth = 1;
  for (int child : node.children) depth = std::max(depth, tree_depth_[child] + 1);
  if (depth > kMaxTreeDepth) Fail(node.begin, "condition nested too deeply");
  tree_depth_.push_back(depth);
  condition_.nodes_.push_back(std::move(node));
  return static_cast<int>(condition_.nodes_.size()) - 1;
}

void ConditionParser::Fail(size_t offset, std::string message) const {
  throw Failure{Error{std::move(message), LocationOf(condition_.text_, offset)}};
}

void ConditionParser::FailAtToken(const CondToken* token, std::string_view what) const {
  if (token == nullptr) Fail(condition_.text_.size(), fmt::format("{} the end of the condition", what));
  Fail(token->begin, fmt::format("{} '{}'", what, token->text));
}

// The binary operator `token` spells (alternative tokens normalised), or "" if it is none.
std::string ConditionParser::BinaryOperator(const CondToken* token) const {
  if (token == nullptr) return "";
  std::string op = token->text;
  if (token->kind == CondToken::Kind::kIdentifier) {
    auto it = AlternativeTokens().find(op);
    if (it == AlternativeTokens().end()) return "";
    op = std::string(it->second);
  } else if (token->kind != CondToken::Kind::kPunct) {
    return "";
  }
  return Precedence(op) > 0 ? op : "";
}

int ConditionParser::ParseExpression(int min_precedence) {
  if (++depth_ > kMaxDepth) Fail(Peek() ? Peek()->begin : 0, "condition nested too deeply");
  int lhs = ParseUnary();
  for (std::string op = BinaryOperator(Peek()); !op.empty() && Precedence(op) >= min_precedence;
       op = BinaryOperator(Peek())) {
    const CondToken& op_token = Take();
    ConditionNode node;
    node.op = op;
    node.op_begin = op_token.begin, node.op_end = op_token.end;
    node.begin = condition_.nodes_[lhs].begin;
    if (op == "?") {
      const int then_branch = ParseExpression(1);
      const CondToken* colon = Peek();
      if (colon == nullptr || colon->text != ":") FailAtToken(colon, "expected ':' before");
      Take();
      const int else_branch = ParseExpression(Precedence("?"));  // right-associative
      node.kind = ConditionNode::Kind::kTernary;
      node.children = {lhs, then_branch, else_branch};
    } else {
      const int rhs = ParseExpression(Precedence(op) + 1);
      node.kind = ConditionNode::Kind::kBinary;
      node.children = {lhs, rhs};
    }
    node.end = condition_.nodes_[node.children.back()].end;
    lhs = Add(std::move(node));
  }
  --depth_;
  return lhs;
}

int ConditionParser::ParseUnary() {
  const CondToken* token = Peek();
  std::string op;
  if (token != nullptr && token->kind == CondToken::Kind::kPunct &&
      (token->text == "!" || token->text == "~" || token->text == "-" || token->text == "+")) {
    op = token->text;
  } else if (token != nullptr && (token->text == "not" || token->text == "compl")) {
    op = token->text == "not" ? "!" : "~";
  }
  if (op.empty()) return ParsePrimary();
  if (++depth_ > kMaxDepth) Fail(token->begin, "condition nested too deeply");
  Take();
  ConditionNode node;
  node.kind = ConditionNode::Kind::kUnary;
  node.op = op;
  node.begin = node.op_begin = token->begin;
  node.op_end = token->end;
  const int operand = ParseUnary();
  node.end = condition_.nodes_[operand].end;
  node.children = {operand};
  --depth_;
  return Add(std::move(node));
}

int ConditionParser::ParsePrimary() {
  const CondToken* peek = Peek();
  if (peek == nullptr) FailAtToken(nullptr, "expected an expression at");
  const CondToken& token = Take();
  switch (token.kind) {
    case CondToken::Kind::kNumber:
    case CondToken::Kind::kChar: return ParseNumber(token);
    case CondToken::Kind::kIdentifier: {
      if (token.text == "defined") return ParseDefined(token);
      if (AlternativeTokens().count(token.text)) FailAtToken(&token, "expected an expression before");
      if (token.text == "true" || token.text == "false") {
        ConditionNode node = Leaf(ConditionNode::Kind::kNumber, token, token.text);
        node.value = token.text == "true" ? 1 : 0;
        return Add(std::move(node));
      }
      const CondToken* next = Peek();
      if (IsBuiltinQuery(token.text) || (next != nullptr && next->text == "(")) return ParseCall(token);
      return Add(Leaf(ConditionNode::Kind::kIdentifier, token, token.text));
    }
    case CondToken::Kind::kPunct:
      if (token.text == "(") {
        const int inner = ParseExpression(1);
        const CondToken* close = Peek();
        if (close == nullptr || close->text != ")") FailAtToken(close, "missing ')' before");
        ConditionNode node = Leaf(ConditionNode::Kind::kParen, token);
        node.end = Take().end;
        node.children = {inner};
        return Add(std::move(node));
      }
      FailAtToken(&token, "expected an expression before");
    case CondToken::Kind::kString:
    case CondToken::Kind::kOther: break;
  }
  FailAtToken(&token, "token not valid in a #if condition:");
}

int ConditionParser::ParseNumber(const CondToken& token) {
  Result<LiteralValue> value =
      token.kind == CondToken::Kind::kChar ? InterpretChar(token.text) : InterpretInteger(token.text);
  if (!value) Fail(token.begin, value.error().message);
  ConditionNode node = Leaf(ConditionNode::Kind::kNumber, token);
  node.value = static_cast<intmax_t>(value->bits);
  node.is_unsigned = value->is_unsigned;
  return Add(std::move(node));
}

// defined X, defined(X), defined ( X ).
int ConditionParser::ParseDefined(const CondToken& keyword) {
  const CondToken* next = Peek();
  const bool paren = next != nullptr && next->text == "(";
  if (paren) Take();
  const CondToken* name = Peek();
  if (name == nullptr || name->kind != CondToken::Kind::kIdentifier) {
    FailAtToken(name, "operator 'defined' requires an identifier, not");
  }
  ConditionNode node = Leaf(ConditionNode::Kind::kDefined, keyword, name->text);
  node.end = Take().end;
  if (paren) {
    const CondToken* close = Peek();
    if (close == nullptr || close->text != ")") FailAtToken(close, "missing ')' after 'defined' before");
    node.end = Take().end;
  }
  return Add(std::move(node));
}

// NAME(...) with balanced parentheses: a function-like macro or a __has_* query.
int ConditionParser::ParseCall(const CondToken& name) {
  const CondToken* open = Peek();
  if (open == nullptr || open->text != "(") FailAtToken(open, fmt::format("missing '(' after '{}' before", name.text));
  Take();
  int open_parens = 1;
  size_t end = open->end;
  while (open_parens > 0) {
    const CondToken* token = Peek();
    if (token == nullptr) Fail(open->begin, fmt::format("unterminated argument list of '{}'", name.text));
    open_parens += token->text == "(" ? 1 : token->text == ")" ? -1 : 0;
    end = Take().end;
  }
  ConditionNode node = Leaf(ConditionNode::Kind::kCall, name, name.text);
  node.end = end;
  return Add(std::move(node));
}

Result<Condition> ParseCondition(std::string_view text) {
  Result<std::vector<CondToken>> tokens = LexCondition(text);
  if (!tokens) return tokens.error();
  return ConditionParser(text, std::move(*tokens)).Parse();
}

bool IsArchMacro(std::string_view name) {
  static const std::string_view prefixes[] = {"__CUDA_ARCH", "NV_PROVIDES_SM_",   "NV_IS_EXACTLY_SM_",
                                              "_NV_TARGET_", "__NV_PROVIDES_SM_", "__NV_IS_EXACTLY_SM_"};
  if (name.empty() || (name[0] != '_' && name[0] != 'N')) return false;  // where every one starts
  for (std::string_view p : prefixes) {
    if (name.substr(0, p.size()) == p) return true;
  }
  return name == "NV_IS_DEVICE" || name == "NV_IS_HOST" || name == "NV_ANY_TARGET" || name == "NV_NO_TARGET";
}

std::vector<std::string> Identifiers(const Condition& condition) {
  std::vector<std::pair<size_t, std::string>> found;
  for (const ConditionNode& node : condition.nodes()) {
    const bool named = node.kind == ConditionNode::Kind::kIdentifier || node.kind == ConditionNode::Kind::kDefined ||
                       (node.kind == ConditionNode::Kind::kCall && !IsBuiltinQuery(node.name));
    if (named) found.emplace_back(node.begin, node.name);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (auto& [offset, name] : found) {
    if (seen.insert(name).second) names.push_back(name);
  }
  return names;
}

// The names Identifiers lists, read in place: this runs for every #if of a file, and the list
// (sorted, deduplicated copies) is not needed to know whether one of them is an arch macro.
bool MentionsArchMacro(const Condition& condition) {
  for (const ConditionNode& node : condition.nodes()) {
    const bool named = node.kind == ConditionNode::Kind::kIdentifier || node.kind == ConditionNode::Kind::kDefined ||
                       (node.kind == ConditionNode::Kind::kCall && !IsBuiltinQuery(node.name));
    if (named && IsArchMacro(node.name)) return true;
  }
  return false;
}

}  // namespace archpatch::cuda
