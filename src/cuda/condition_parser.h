// Internal: the #if grammar over a token list, shared by ParseCondition (tokens of the text as
// written) and the evaluator (tokens after macro expansion).
#pragma once

#include <string_view>
#include <vector>

#include "cuda/condition.h"
#include "cuda/condition_lexer.h"

namespace archpatch::cuda {

class ConditionParser {
 public:
  // `text` is what the token offsets point into (errors are located in it).
  ConditionParser(std::string_view text, std::vector<CondToken> tokens);
  Result<Condition> Parse();

 private:
  struct Failure {
    Error error;
  };
  int ParseExpression(int min_precedence);
  int ParseUnary();
  int ParsePrimary();
  int ParseDefined(const CondToken& keyword);
  int ParseCall(const CondToken& name);
  int ParseNumber(const CondToken& token);

  const CondToken* Peek() const;
  const CondToken& Take();
  std::string BinaryOperator(const CondToken* token) const;
  int Add(ConditionNode node);
  [[noreturn]] void Fail(size_t offset, std::string message) const;
  [[noreturn]] void FailAtToken(const CondToken* token, std::string_view what) const;

  Condition condition_;
  std::vector<CondToken> tokens_;
  size_t next_ = 0;
  int depth_ = 0;
  std::vector<int> tree_depth_;  // per node, parallel to condition_.nodes_
};

}  // namespace archpatch::cuda
