// A binding that IsBareCall accepts is stored unparsed: Resolve must give what Parse would have.
#include "python/cond_expr.h"

#include <gtest/gtest.h>

namespace archpatch::python {
namespace {

struct Parsed {
  std::string source;
  TokenStream ts;
  std::vector<LogicalLine> lines;
};

Parsed Lex(std::string src) {
  Parsed p{std::move(src), {}, {}};
  Result<std::vector<Token>> tokens = Tokenize("x.py", p.source);
  EXPECT_TRUE(tokens.ok());
  if (!tokens.ok()) return p;
  p.ts = MakeStream(p.source, std::move(*tokens));
  p.lines = SplitLines(p.ts);
  return p;
}

void ExpectSame(const CondExpr& a, const CondExpr& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.callee, b.callee);
  EXPECT_EQ(a.where.text, b.where.text);
  EXPECT_EQ(a.bound_name, b.bound_name);
  EXPECT_EQ(a.bound_at.text, b.bound_at.text);
  ASSERT_EQ(a.args.size(), b.args.size());
  for (size_t k = 0; k < a.args.size(); ++k) {
    EXPECT_EQ(a.args[k].kind, b.args[k].kind);
    EXPECT_EQ(a.args[k].number, b.args[k].number);
    EXPECT_EQ(a.args[k].text, b.args[k].text);
  }
}

TEST(CondParser, ADeferredCallResolvesToWhatParseGives) {
  const std::map<size_t, size_t> no_gates;
  const std::vector<GateTruth> gates;
  for (const char* src : {"x = f(1)\n", "x = utils.is_sm100a_supported(dev, 'sm_90', (9, 0))\n", "x = a.b.c(y, z=1)\n",
                          "x = f(\n  1,\n  2)\n"}) {
    Parsed p = Lex(src);
    ASSERT_EQ(p.lines.size(), 1u);
    const LogicalLine& l = p.lines[0];
    CondParser parser(p.ts, no_gates, gates);
    ASSERT_TRUE(parser.IsBareCall(l.first + 2, l.last)) << src;
    const BoundConditions bound;
    CondExpr eager = parser.Parse(l.first + 2, l.last, nullptr, &bound, "");
    parser.MarkBound(l.first, l.last, eager);
    ExpectSame(parser.Resolve({{}, true, l.first, l.last}), eager);
    EXPECT_EQ(eager.kind, CondExpr::Kind::kCall) << src;
  }
}

TEST(CondParser, OnlyBareCallsAreDeferred) {
  const std::map<size_t, size_t> no_gates;
  const std::vector<GateTruth> gates;
  for (const char* src : {"x = not(f(1))\n", "x = f(1) and g(2)\n", "x = f(1)(2)\n", "x = f(1).y\n", "x = f\n",
                          "x = (f(1))\n", "x = True\n", "x = a[0](1)\n", "x = f(1) if y else z\n"}) {
    Parsed p = Lex(src);
    ASSERT_EQ(p.lines.size(), 1u);
    const LogicalLine& l = p.lines[0];
    EXPECT_FALSE(CondParser(p.ts, no_gates, gates).IsBareCall(l.first + 2, l.last)) << src;
  }
}

// A gate at the start of the value is read as the gate, not as a call.
TEST(CondParser, AGateIsNoBareCall) {
  Parsed p = Lex("x = has_device_capability(90)\n");
  const LogicalLine& l = p.lines.at(0);
  const std::map<size_t, size_t> gate_at = {{l.first + 2, 0}};
  std::vector<GateTruth> gates(1);
  gates[0].last_token = l.last;
  EXPECT_FALSE(CondParser(p.ts, gate_at, gates).IsBareCall(l.first + 2, l.last));
}

}  // namespace
}  // namespace archpatch::python
