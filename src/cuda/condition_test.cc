#include "cuda/condition.h"

#include <cctype>

#include "cuda/condition_lexer.h"

#include <gtest/gtest.h>

namespace archpatch::cuda {
namespace {

arch::Arch A(std::string_view name) { return *arch::ParseArch(name); }

// The verdict of `text` for one device pass, with `flags` as -D/-U values ("X=1", "-Y").
Tri Eval(std::string_view text, std::string_view arch_name = "sm_120", const std::vector<std::string>& flags = {},
         bool undef_unknown = false) {
  MacroEnv env;
  env.undef_unknown = undef_unknown;
  for (const std::string& f : flags) {
    const bool define = f[0] != '-';
    EXPECT_TRUE(AddMacroFlag(env, define ? f : f.substr(1), define).ok()) << f;
  }
  Result<Condition> c = ParseCondition(text);
  EXPECT_TRUE(c.ok()) << text << ": " << (c.ok() ? "" : c.error().str());
  if (!c.ok()) return Tri::kUnknown;
  return Evaluate(*c, ArchLookup(A(arch_name), env));
}

Error ParseError(std::string_view text) {
  Result<Condition> c = ParseCondition(text);
  EXPECT_FALSE(c.ok()) << text;
  return c.ok() ? Error{} : c.error();
}

constexpr Tri T = Tri::kTrue, F = Tri::kFalse, U = Tri::kUnknown;

TEST(ConditionTest, IntegerLiteralsInEveryBaseAndSuffix) {
  EXPECT_EQ(Eval("0x4B0 == 1200"), T);
  EXPECT_EQ(Eval("0b10010110000 == 1200"), T);
  EXPECT_EQ(Eval("02260 == 1200"), T);
  EXPECT_EQ(Eval("1200u == 1200UL && 1200ll == 1200LLU && 1'200 == 1200"), T);
  EXPECT_EQ(Eval("__CUDA_ARCH__ >= 1200L"), T);
  EXPECT_EQ(Eval("0"), F);
}

TEST(ConditionTest, UnsignedArithmeticFollowsCpp) {
  EXPECT_EQ(Eval("-1 < 0"), T);
  EXPECT_EQ(Eval("-1 < 0u"), F);                     // -1 converts to UINTMAX_MAX
  EXPECT_EQ(Eval("18446744073709551615 == -1"), T);  // too large for intmax_t: unsigned
  EXPECT_EQ(Eval("(-1 >> 1) == -1 && (1 << 3) == 8 && (8 >> -1) == 16"), T);
  EXPECT_EQ(Eval("(0x7fffffffffffffff + 1) < 0"), T);  // wraps as cpp does
  EXPECT_EQ(Eval("7 / 2 == 3 && -7 % 3 == -1 && (2 ? 1 : 0u) - 2 > 0"), T);
}

TEST(ConditionTest, CharacterLiterals) {
  EXPECT_EQ(Eval("'a' == 97 && '\\n' == 10 && '\\x41' == 65 && '\\101' == 65"), T);
  EXPECT_EQ(Eval("'\\377' < 0"), T);  // char is signed
  EXPECT_EQ(Eval("'ab' == 24930"), T);
  EXPECT_EQ(Eval("u'\\xffff' > 0"), T);
}

TEST(ConditionTest, DefinedWithAndWithoutParentheses) {
  EXPECT_EQ(Eval("defined __CUDA_ARCH__"), T);
  EXPECT_EQ(Eval("defined(__CUDA_ARCH__) && defined ( __CUDA_ARCH_LIST__ )"), T);
  EXPECT_EQ(Eval("defined __CUDA_ARCH_FEAT_SM120_ALL", "sm_120"), F);
  EXPECT_EQ(Eval("defined __CUDA_ARCH_FEAT_SM120_ALL", "sm_120a"), T);
  EXPECT_EQ(Eval("defined(ENABLE_BF16)"), U);
  EXPECT_EQ(Eval("defined(ENABLE_BF16)", "sm_120", {}, true), F);
  EXPECT_EQ(Eval("defined(ENABLE_BF16)", "sm_120", {"ENABLE_BF16"}), T);
  EXPECT_EQ(Eval("defined(__CUDA_ARCH__)", "sm_120", {"-__CUDA_ARCH__"}), F);
}

TEST(ConditionTest, AlternativeTokensAndBooleanKeywords) {
  EXPECT_EQ(Eval("defined __CUDA_ARCH__ and not (__CUDA_ARCH__ < 1000) or false"), T);
  EXPECT_EQ(Eval("1 bitand 3 and (compl 0 == -1) and (2 xor 3) == 1 and 1 not_eq 2 and (1 bitor 2) == 3"), T);
  EXPECT_EQ(Eval("true && !false"), T);
}

TEST(ConditionTest, CommentsAndContinuationsInsideTheCondition) {
  EXPECT_EQ(Eval("__CUDA_ARCH__ >= 900 /* Hopper */ && \\\n  __CUDA_ARCH__ < 1000 // not Blackwell\n", "sm_90"), T);
  EXPECT_EQ(Eval("__CUDA_\\\nARCH__ == 1210", "sm_121"), T);
  EXPECT_EQ(Eval("__CUDA_ARCH__ >= 900 && \\\r\n __CUDA_ARCH__ < 1000", "sm_120"), F);
}

TEST(ConditionTest, ShortCircuitDecidesDespiteUnknownMacros) {
  EXPECT_EQ(Eval("0 && ENABLE_FP8"), F);
  EXPECT_EQ(Eval("ENABLE_FP8 && __CUDA_ARCH__ < 1000"), F);
  EXPECT_EQ(Eval("ENABLE_FP8 || __CUDA_ARCH__ >= 1200"), T);
  EXPECT_EQ(Eval("ENABLE_FP8 && __CUDA_ARCH__ >= 1200"), U);
  EXPECT_EQ(Eval("ENABLE_FP8 ? 1 : 1"), T);
  EXPECT_EQ(Eval("CUTLASS_ARCH_MMA_SM90_SUPPORTED"), U);
  EXPECT_EQ(Eval("CUTLASS_ARCH_MMA_SM90_SUPPORTED", "sm_120", {}, true), F);
}

TEST(ConditionTest, WhatCppRejectsAtRunTimeIsUnknownNotACrash) {
  EXPECT_EQ(Eval("1 / 0"), U);
  EXPECT_EQ(Eval("(1 % 0) || 1"), U);  // cpp rejects the whole directive
  EXPECT_EQ(Eval("0 && 1 / 0"), F);    // not evaluated, as in cpp
  EXPECT_EQ(Eval("1 ? 1 : 1 / 0"), T);
  EXPECT_EQ(Eval("(-9223372036854775807 - 1) / -1 < 0"), T);
  EXPECT_EQ(Eval("__has_include(<cuda_fp8.h>)"), U);
  EXPECT_EQ(Eval("__has_builtin(__builtin_assume) && __CUDA_ARCH__ < 800"), F);
  EXPECT_EQ(Eval("CUDA_VERSION_AT_LEAST(12, 8)"), U);
}

TEST(ConditionTest, ObjectLikeMacrosExpandLikeCpp) {
  EXPECT_EQ(Eval("SM == 120", "sm_120", {"SM=120"}), T);
  EXPECT_EQ(Eval("ARCH == 1200", "sm_120", {"ARCH=__CUDA_ARCH__"}), T);
  EXPECT_EQ(Eval("SUM * 2 == 5", "sm_120", {"SUM=1 + 2"}), T);  // 1 + 2 * 2
  EXPECT_EQ(Eval("EMPTY + 1", "sm_120", {"EMPTY="}), T);
  EXPECT_EQ(Eval("EMPTY", "sm_120", {"EMPTY="}), U);            // cpp: #if with no expression
  EXPECT_EQ(Eval("SELF == 0", "sm_120", {"SELF=SELF"}), T);     // painted blue, reads as 0
  EXPECT_EQ(Eval("__CUDA_ARCH_FEAT_SM120_ALL", "sm_120a"), T);  // nvcc passes it bare: 1
  EXPECT_EQ(Eval("__CUDACC_VER_MAJOR__ >= 12 && CUDART_VERSION >= 12080", "sm_120", {}, true), T);
  EXPECT_EQ(Eval("CUDA_VERSION >= 12080", "sm_120", {}, true), F);  // cuda.h is not included
}

TEST(ConditionTest, ArchMacrosPerPass) {
  const std::string gate = "defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)";
  EXPECT_EQ(Eval(gate, "sm_90a"), T);
  EXPECT_EQ(Eval(gate, "sm_103f"), T);
  EXPECT_EQ(Eval(gate, "sm_120"), F);
  EXPECT_EQ(Eval(gate, "sm_80"), F);
  EXPECT_EQ(Eval("__CUDA_ARCH_SPECIFIC__ == 1000 || __CUDA_ARCH_FAMILY_SPECIFIC__ == 1000", "sm_100f"), T);
  EXPECT_EQ(Eval("__CUDA_ARCH_SPECIFIC__ == 1000", "sm_100f", {}, true), F);

  Result<Condition> c = ParseCondition("defined(__CUDA_ARCH__)");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Evaluate(*c, HostLookup(MacroEnv{})), F);
  const std::vector<Tri> per_arch = EvaluatePerArch(*c, {A("sm_75"), A("sm_121f")}, MacroEnv{});
  EXPECT_EQ(per_arch, (std::vector<Tri>{T, T}));
}

TEST(ConditionTest, ErrorsPointAtTheColumn) {
  Error e = ParseError("__CUDA_ARCH__ >= ");
  EXPECT_EQ(e.where.column, 18);
  EXPECT_EQ(e.message, "expected an expression at the end of the condition");
  e = ParseError("(__CUDA_ARCH__ >= 900");
  EXPECT_EQ(e.where.column, 22);
  e = ParseError("__CUDA_ARCH__ >= 900 __CUDA_ARCH__");
  EXPECT_EQ(e.where.column, 22);
  EXPECT_EQ(e.message, "missing binary operator before '__CUDA_ARCH__'");
  e = ParseError("1 + * 2");
  EXPECT_EQ(e.where.column, 5);
  e = ParseError("defined(1)");
  EXPECT_EQ(e.where.column, 9);
  e = ParseError("08 == 8");
  EXPECT_EQ(e.message, "invalid digit '8' in octal constant");
  EXPECT_EQ(ParseError("1.5 > 1").message, "floating constant '1.5' in a #if condition");
  EXPECT_EQ(ParseError("12abc").message, "invalid suffix 'abc' on integer constant");
  EXPECT_EQ(ParseError("X = 1").where.column, 3);
  EXPECT_EQ(ParseError("1 /* open").where.column, 3);
  EXPECT_EQ(ParseError("1 && \\\n  (2").where.line, 2);
  EXPECT_EQ(ParseError("").message, "empty condition (#if with no expression)");
  EXPECT_EQ(ParseError("\"str\"").where.column, 1);
  EXPECT_EQ(ParseError("1 ? 2").message, "expected ':' before the end of the condition");
}

TEST(ConditionTest, DeepNestingIsRefusedNotACrash) {
  EXPECT_FALSE(ParseCondition(std::string(100000, '(') + "1").ok());
  EXPECT_FALSE(ParseCondition(std::string(100000, '!') + "1").ok());
  std::string long_sum = "1";
  for (int i = 0; i < 50000; ++i) long_sum += "+1";
  EXPECT_FALSE(ParseCondition(long_sum).ok());
  std::string wide_sum = "1";
  for (int i = 0; i < 1000; ++i) wide_sum += "+1";
  EXPECT_EQ(Eval(wide_sum + " == 1001"), T);
}

TEST(ConditionTest, IdentifiersAndArchMacros) {
  Result<Condition> c = ParseCondition(
      "defined(ENABLE_FP8) && (__CUDA_ARCH__ >= 900 || ENABLE_FP8 > 1) && CHECK(x) && __has_include(<a.h>)");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Identifiers(*c), (std::vector<std::string>{"ENABLE_FP8", "__CUDA_ARCH__", "CHECK"}));
  EXPECT_TRUE(MentionsArchMacro(*c));
  c = ParseCondition("CUTLASS_ARCH_MMA_SM90_SUPPORTED && __CUDACC_VER_MAJOR__ >= 12");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(MentionsArchMacro(*c));
  EXPECT_TRUE(IsArchMacro("__CUDA_ARCH_FEAT_SM100_ALL"));
  EXPECT_TRUE(IsArchMacro("NV_PROVIDES_SM_90"));
  EXPECT_FALSE(IsArchMacro("CUDART_VERSION"));
  // The first-letter pre-check keeps every family IsArchMacro names.
  for (const char* yes :
       {"__CUDA_ARCH__", "NV_PROVIDES_SM_90", "NV_IS_EXACTLY_SM_120", "_NV_TARGET_ARCH", "__NV_PROVIDES_SM_80",
        "__NV_IS_EXACTLY_SM_86", "NV_IS_DEVICE", "NV_IS_HOST", "NV_ANY_TARGET", "NV_NO_TARGET"}) {
    EXPECT_TRUE(IsArchMacro(yes)) << yes;
  }
  EXPECT_FALSE(IsArchMacro(""));
}

TEST(ConditionTest, NodesCarryByteOffsets) {
  const std::string text = "defined(X) &&  (__CUDA_ARCH__ < 1200)";
  Result<Condition> c = ParseCondition(text);
  ASSERT_TRUE(c.ok());
  const ConditionNode& root = c->root();
  EXPECT_EQ(root.op, "&&");
  EXPECT_EQ(text.substr(root.op_begin, root.op_end - root.op_begin), "&&");
  const ConditionNode& rhs = c->node(root.children[1]);
  EXPECT_EQ(text.substr(rhs.begin, rhs.end - rhs.begin), "(__CUDA_ARCH__ < 1200)");
}

// The lexer tells punctuators by their first character and literals by their first letter
// (pre-checks): every ASCII character alone, and every prefixed literal, keeps its kind.
TEST(ConditionTest, LexerKindsOfEveryFirstCharacter) {
  const std::string_view puncts = "()!~-+*/%<>&^|?:,[]{}.;#=";
  for (int c = 0x21; c < 0x7f; ++c) {
    const std::string text(1, static_cast<char>(c));
    Result<std::vector<CondToken>> tokens = LexCondition(text);
    if (c == '\'' || c == '"') {
      EXPECT_FALSE(tokens.ok()) << text;  // unterminated literal
      continue;
    }
    ASSERT_TRUE(tokens.ok()) << text;
    ASSERT_EQ(tokens->size(), 1u) << text;
    const CondToken::Kind kind = (*tokens)[0].kind;
    const bool ident = std::isalpha(c) || c == '_' || c == '$';
    if (std::isdigit(c)) {
      EXPECT_EQ(kind, CondToken::Kind::kNumber) << text;
    } else if (ident) {
      EXPECT_EQ(kind, CondToken::Kind::kIdentifier) << text;
    } else {
      const bool punct = puncts.find(static_cast<char>(c)) != std::string_view::npos;
      EXPECT_EQ(kind, punct ? CondToken::Kind::kPunct : CondToken::Kind::kOther) << text;
    }
  }
  for (std::string_view literal : {"'a'", "L'a'", "u'a'", "U'a'", "u8'a'", "\"s\"", "L\"s\"", "u8\"s\""}) {
    Result<std::vector<CondToken>> tokens = LexCondition(literal);
    ASSERT_TRUE(tokens.ok()) << literal;
    ASSERT_EQ(tokens->size(), 1u) << literal;
    EXPECT_EQ((*tokens)[0].text, literal);
  }
  Result<std::vector<CondToken>> tokens = LexCondition("a<<=b->c::d");
  ASSERT_TRUE(tokens.ok());
  std::vector<std::string> texts;
  for (const CondToken& t : *tokens) texts.push_back(t.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"a", "<<=", "b", "->", "c", "::", "d"}));
}

TEST(MacroEnvTest, FlagsParseLikeACompilerCommandLine) {
  MacroEnv env;
  ASSERT_TRUE(AddMacroFlag(env, "A", true).ok());
  ASSERT_TRUE(AddMacroFlag(env, "B=2", true).ok());
  ASSERT_TRUE(AddMacroFlag(env, "C=", true).ok());
  ASSERT_TRUE(AddMacroFlag(env, "A", false).ok());
  EXPECT_EQ(env.defines, (std::map<std::string, std::string>{{"B", "2"}, {"C", ""}}));
  EXPECT_EQ(env.undefs, (std::set<std::string>{"A"}));
  EXPECT_EQ(AddMacroFlag(env, "1X", true).error().message, "'1X' is not a macro name");
  EXPECT_FALSE(AddMacroFlag(env, "X=1", false).ok());
}

}  // namespace
}  // namespace archpatch::cuda
