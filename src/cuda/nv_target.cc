#include "cuda/nv_target.h"

#include <charconv>

#include <fmt/format.h>

#include "cuda/condition.h"
#include "cuda/functions.h"
#include "cuda/gates.h"

namespace archpatch::cuda {
namespace {

bool ConsumePrefix(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

std::optional<int> Number(std::string_view s) {
  int n = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return n;
}

struct Argument {
  size_t first = 0, end = 0;  // token indices, half-open
};

// The macro's arguments: split at top-level commas between the '(' at `open` and its ')'.
std::optional<std::vector<Argument>> Arguments(const std::vector<Token>& code, size_t open, std::string_view contents,
                                               size_t& close) {
  std::vector<Argument> args;
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open; i < code.size(); ++i) {
    std::string_view s = code[i].Spelling(contents);
    if (s == "(" || s == "[" || s == "{") ++depth;
    if (s == ")" || s == "]" || s == "}") {
      if (--depth == 0) {
        args.push_back({start, i});
        close = i;
        return args;
      }
    }
    if (s == "," && depth == 1) {
      args.push_back({start, i});
      start = i + 1;
    }
  }
  return std::nullopt;
}

struct Branch {
  std::string query;       // "" for the else branch
  size_t query_token = 0;  // index into code
  Argument body;
};

// The branches of one macro use, in order; empty when the shape is not one it knows.
std::vector<Branch> Branches(std::string_view macro, const std::vector<Argument>& args, const std::vector<Token>& code,
                             std::string_view contents) {
  std::vector<Branch> out;
  auto query = [&](const Argument& a) -> std::string {
    return a.end == a.first + 1 ? std::string(code[a.first].Spelling(contents)) : "";
  };
  if (macro == "NV_DISPATCH_TARGET") {
    for (size_t i = 0; i + 1 < args.size(); i += 2) out.push_back({query(args[i]), args[i].first, args[i + 1]});
    return out;
  }
  if (args.size() < 2 || args.size() > 3) return out;
  out.push_back({query(args[0]), args[0].first, args[1]});
  if (args.size() == 3) out.push_back({"", args[0].first, args[2]});
  return out;
}

}  // namespace

std::optional<std::string> NvTargetCondition(std::string_view q) {
  if (q == "NV_IS_DEVICE") return "defined(__CUDA_ARCH__)";
  if (q == "NV_IS_HOST") return "!defined(__CUDA_ARCH__)";
  if (q == "NV_ANY_TARGET") return "1";
  if (q == "NV_NO_TARGET") return "0";
  std::string_view rest = q;
  if (ConsumePrefix(rest, "NV_PROVIDES_SM_")) {
    if (auto n = Number(rest)) return fmt::format("defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= {}", *n * 10);
  } else if (ConsumePrefix(rest, "NV_IS_EXACTLY_SM_")) {
    if (auto n = Number(rest)) return fmt::format("defined(__CUDA_ARCH__) && __CUDA_ARCH__ == {}", *n * 10);
  } else if (ConsumePrefix(rest, "NV_HAS_FEATURE_SM_") && !rest.empty()) {
    char suffix = rest.back();
    auto n = Number(rest.substr(0, rest.size() - 1));
    if (n && suffix == 'a') {
      return fmt::format("defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= {} && defined(__CUDA_ARCH_FEAT_SM{}_ALL)", *n * 10,
                         *n);
    }
    if (n && suffix == 'f') {
      return fmt::format("defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH_FAMILY_SPECIFIC__ == {}", *n * 10);
    }
  }
  return std::nullopt;
}

std::vector<Finding> FindNvTargetGates(const std::string& file, std::string_view contents,
                                       const std::vector<Token>& tokens, const std::vector<arch::Arch>& arches,
                                       const MacroEnv& env) {
  return FindNvTargetGates(file, contents, tokens, arches, env, LineIndex(contents));
}

std::vector<Finding> FindNvTargetGates(const std::string& file, std::string_view contents,
                                       const std::vector<Token>& tokens, const std::vector<arch::Arch>& arches,
                                       const MacroEnv& env, const LineIndex& lines) {
  std::vector<Token> code;
  for (const Token& t : tokens) {
    if (t.kind != Token::Kind::kComment) code.push_back(t);
  }
  std::vector<FunctionBody> bodies;  // computed on the first gate only
  bool have_bodies = false;
  std::vector<Finding> findings;
  for (size_t i = 0; i + 1 < code.size(); ++i) {
    std::string_view name = code[i].Spelling(contents);
    if (name != "NV_IF_TARGET" && name != "NV_IF_ELSE_TARGET" && name != "NV_DISPATCH_TARGET") continue;
    if (code[i + 1].Spelling(contents) != "(") continue;
    size_t close = 0;
    auto args = Arguments(code, i + 1, contents, close);
    if (!args) continue;
    if (!have_bodies) bodies = FindFunctionBodies(tokens, contents, /*scopes=*/true), have_bodies = true;
    std::vector<Tri> earlier(arches.size(), Tri::kFalse);
    for (const Branch& b : Branches(name, *args, code, contents)) {
      std::optional<std::string> cond = b.query.empty() ? std::optional<std::string>("1") : NvTargetCondition(b.query);
      std::vector<Tri> own(arches.size(), Tri::kUnknown);
      if (cond) {
        if (Result<Condition> parsed = ParseCondition(*cond)) own = EvaluatePerArch(*parsed, arches, env);
      }
      Finding f;
      f.file = file;
      const Token& q = code[b.query_token];
      f.line = lines.Line(q.begin), f.column = lines.Column(q.begin);
      f.kind = gate::Kind::kCudaGate;
      f.text = std::string(q.Spelling(contents));
      f.span = {q.begin, q.end};
      f.scope = EnclosingFunction(bodies, q.begin);
      std::vector<Tri> effective(arches.size());
      for (size_t a = 0; a < arches.size(); ++a) {
        effective[a] = TriAnd(own[a], TriNot(earlier[a]));
        f.verdict.push_back({arches[a].name(), effective[a]});
      }
      const Token &first = code[b.body.first], &last = code[b.body.end - 1];
      f.form = gate::NvTargetForm{std::string(name), b.query.empty() ? "else" : b.query, cond};
      f.block =
          gate::Block{lines.Line(first.begin), lines.Line(last.end), {first.begin, last.end}, {}, {}, std::nullopt};
      if (b.body.first != (*args)[1].first) f.chain.earlier_taken = Verdicts(arches, earlier);
      findings.push_back(std::move(f));
      for (size_t a = 0; a < arches.size(); ++a) earlier[a] = TriOr(earlier[a], own[a]);
    }
    i = close;
  }
  return findings;
}

}  // namespace archpatch::cuda
