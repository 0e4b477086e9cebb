// Differential tests of `archpatch eval --undef-unknown` against the real compiler and unifdef:
// every condition of tests/differential/conditions.txt, for every arch of the table, must get the
// verdict nvcc's device pass gives it (`nvcc -gencode arch=compute_X,code=sm_X --cuda -E`, exactly
// one device pass: plain `-arch=sm_90a -E` would preprocess a compute_90 pass first), and the
// verdict unifdef gives where unifdef can decide. One nvcc and one unifdef run per arch cover the
// whole corpus: `#if COND / int ok_N; / #else / int no_N; / #endif`.
#include <unistd.h>

#include <cctype>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {
namespace {

const char* kCorpus = "tests/differential/conditions.txt";

std::string FindNvcc() {
  const char* env = std::getenv("NVCC");
  for (std::string path : {std::string(env ? env : ""), std::string("/usr/local/cuda/bin/nvcc")}) {
    if (!path.empty() && access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

int Shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct Case {
  std::string expr;
  std::map<std::string, std::string> verdict;  // arch -> "true"/"false"/"unknown"
};

// archpatch's verdicts for the whole corpus, per arch, under `flags`.
std::vector<Case> ArchpatchVerdicts(const std::vector<std::string>& flags) {
  std::vector<std::string> args = {"eval", "--undef-unknown", "--json", "--arch", "all", "--expr-file", kCorpus};
  args.insert(args.end(), flags.begin(), flags.end());
  RunResult r = RunArchpatch(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<Case> cases;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line);
    cases.push_back({j["expr"], j["verdict"].get<std::map<std::string, std::string>>()});
  }
  return cases;
}

// The file both oracles read: one #if/#else per condition.
std::string OracleSource(const std::vector<Case>& cases) {
  std::string src;
  for (size_t i = 0; i < cases.size(); ++i) {
    src += "#if " + cases[i].expr + "\nint ok_" + std::to_string(i) + ";\n#else\nint no_" + std::to_string(i) +
           ";\n#endif\n";
  }
  return src;
}

// For each case: "true" when only ok_N survived, "false" when only no_N, "" when both (undecided).
std::vector<std::string> OracleVerdicts(const std::string& output, size_t count) {
  std::set<std::string> seen;
  const std::regex marker(R"(\b(ok|no)_[0-9]+\b)");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), marker); it != std::sregex_iterator(); ++it) {
    seen.insert(it->str());
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    const bool ok = seen.count("ok_" + std::to_string(i)), no = seen.count("no_" + std::to_string(i));
    out.push_back(ok && !no ? "true" : no && !ok ? "false" : "");
  }
  return out;
}

// Macro names of the corpus that are project macros (not compiler, arch or runtime ones).
std::set<std::string> ProjectMacros(const std::vector<Case>& cases) {
  std::set<std::string> names;
  for (const Case& c : cases) {
    const std::string& t = c.expr;
    for (size_t i = 0; i < t.size();) {
      if (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '\'') {  // numbers, char literals
        const char open = t[i++];
        while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '\'' || t[i] == '\\')) {
          if (open == '\'' && t[i] == '\'') {
            ++i;
            break;
          }
          ++i;
        }
      } else if (std::isupper(static_cast<unsigned char>(t[i])) || t[i] == '_') {
        size_t j = i;
        while (j < t.size() && (std::isalnum(static_cast<unsigned char>(t[j])) || t[j] == '_')) ++j;
        const std::string name = t.substr(i, j - i);
        if (name.rfind("__", 0) != 0 && name != "CUDART_VERSION") names.insert(name);
        i = j;
      } else {
        ++i;
      }
    }
  }
  return names;
}

std::string ComputeName(const std::string& sm) { return "compute_" + sm.substr(3); }

class EvalDifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc_ = FindNvcc();
    if (nvcc_.empty())
      GTEST_SKIP()
          << "nvcc not found ($NVCC unset, no /usr/local/cuda/bin/nvcc): differential test against nvcc skipped";
  }

  // Runs nvcc's device pass for `arch` over the corpus and compares; returns the agreements.
  int CompareWithNvcc(const std::vector<Case>& cases, const std::string& arch, const std::string& flags) {
    WriteFile(dir_.path() / "conds.cu", OracleSource(cases));
    const std::string out = (dir_.path() / "conds.ii").string();
    const std::string cmd = "cd " + ShellQuote(dir_.path().string()) + " && " + ShellQuote(nvcc_) +
                            " -gencode arch=" + ComputeName(arch) + ",code=" + arch + " --cuda -E " + flags +
                            " conds.cu -o conds.ii";
    EXPECT_EQ(Shell(cmd), 0) << cmd;
    const std::vector<std::string> nvcc = OracleVerdicts(ReadFile(out), cases.size());
    int agreed = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      EXPECT_NE(nvcc[i], "") << "nvcc kept both branches of '" << cases[i].expr << "'";
      EXPECT_EQ(cases[i].verdict.at(arch), nvcc[i]) << arch << " " << flags << ": '" << cases[i].expr << "'";
      agreed += cases[i].verdict.at(arch) == nvcc[i];
    }
    return agreed;
  }

  std::string nvcc_;
  TempDir dir_;
};

TEST_F(EvalDifferentialTest, AgreesWithNvccOnEveryArchWithProjectMacrosUndefined) {
  const std::vector<Case> cases = ArchpatchVerdicts({});
  ASSERT_GE(cases.size(), 80u);
  std::string undefs;
  for (const std::string& name : ProjectMacros(cases)) undefs += " -U" + name;
  int agreed = 0, total = 0;
  for (const auto& [arch, verdict] : cases.front().verdict) {
    agreed += CompareWithNvcc(cases, arch, undefs);
    total += cases.size();
  }
  std::cout << "differential: archpatch agrees with nvcc on " << agreed << " of " << total << " (" << cases.size()
            << " conditions x " << cases.front().verdict.size() << " arches)\n";
}

TEST_F(EvalDifferentialTest, AgreesWithNvccWhenProjectMacrosAreDefined) {
  const std::vector<std::string> defines = {"-DENABLE_BF16=1",
                                            "-DENABLE_FP8",
                                            "-DCUTLASS_ARCH_MMA_SM90_SUPPORTED=1",
                                            "-DFLASHINFER_VERSION=2",
                                            "-DSGL_KERNEL_ARCH=1000 + 0",
                                            "-DPROJECT_MAX_SM=1000",
                                            "-DVLLM_FP8_SUPPORTED=0",
                                            "-DUSE_ROCM="};
  const std::vector<Case> cases = ArchpatchVerdicts(defines);
  std::string flags;
  for (const std::string& d : defines) flags += " " + ShellQuote(d);
  int agreed = 0, total = 0;
  for (const std::string arch : {"sm_80", "sm_90a", "sm_100f", "sm_120", "sm_121a"}) {
    agreed += CompareWithNvcc(cases, arch, flags);
    total += cases.size();
  }
  std::cout << "differential: with -D project macros, archpatch agrees with nvcc on " << agreed << " of " << total
            << "\n";
}

// The macros of one device pass, as unifdef -D flags: the arch ones from `archpatch arches
// --json`, and the compiler/runtime ones nvcc 13.0 defines in every pass.
std::map<std::string, std::string> PassMacros(const nlohmann::json& arch_entry) {
  std::map<std::string, std::string> macros = {
      {"__CUDACC__", "1"},
      {"__NVCC__", "1"},
      {"__CUDACC_VER_MAJOR__", "13"},
      {"__CUDACC_VER_MINOR__", "0"},
      {"__CUDACC_VER_BUILD__", "88"},
      {"CUDART_VERSION", "13000"},
      {"__cplusplus", "201703L"},
  };
  for (const auto& [name, value] : arch_entry["macros"].items()) {
    macros[name] = value.get<std::string>().empty() ? "1" : value.get<std::string>();
  }
  return macros;
}

TEST(EvalUnifdefTest, AgreesWithUnifdefWhereUnifdefDecides) {
  if (Shell("command -v unifdef >/dev/null") != 0) GTEST_SKIP() << "unifdef not installed: differential test skipped";
  std::vector<Case> cases = ArchpatchVerdicts({});
  RunResult arches = RunArchpatch({"arches", "--json"});
  ASSERT_EQ(arches.exit_code, 0);
  std::set<std::string> arch_names;  // every __CUDA_ARCH* name, to -U those a pass lacks
  for (const auto& entry : nlohmann::json::parse(arches.out)) {
    for (const auto& [name, value] : entry["macros"].items()) arch_names.insert(name);
  }
  std::set<std::string> undefined = ProjectMacros(cases);
  undefined.insert("CUDA_VERSION");
  // unifdef 2.10 predates C++14 digit separators and stops at `1'000`: leave those out of its file.
  const std::regex separator(R"([0-9]'[0-9])");
  std::vector<Case> readable;
  for (const Case& c : cases) {
    if (!std::regex_search(c.expr, separator)) readable.push_back(c);
  }
  cases = readable;
  TempDir dir;
  WriteFile(dir.path() / "conds.c", OracleSource(cases));
  int decided = 0, agreed = 0, total = 0;
  for (const auto& entry : nlohmann::json::parse(arches.out)) {
    const std::string arch = entry["name"];
    const std::map<std::string, std::string> pass = PassMacros(entry);
    std::string flags;
    for (const auto& [name, value] : pass) flags += " -D" + name + "=" + value;
    for (const std::string& name : undefined) flags += " -U" + name;
    for (const std::string& name : arch_names) {
      if (!pass.count(name)) flags += " -U" + name;
    }
    const std::string out = (dir.path() / "out.c").string();
    const int rc =
        Shell("unifdef" + flags + " -o " + ShellQuote(out) + " " + ShellQuote((dir.path() / "conds.c").string()));
    ASSERT_TRUE(rc == 0 || rc == 1) << "unifdef failed (exit " << rc << ") for " << arch;
    const std::vector<std::string> unifdef = OracleVerdicts(ReadFile(out), cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
      ++total;
      if (unifdef[i].empty()) continue;  // unifdef cannot decide it (and/or, ?:, *, char literals ...)
      ++decided;
      EXPECT_EQ(cases[i].verdict.at(arch), unifdef[i]) << arch << ": '" << cases[i].expr << "'";
      agreed += cases[i].verdict.at(arch) == unifdef[i];
    }
  }
  EXPECT_GT(decided, total / 2);  // the comparison must cover most of the corpus to mean anything
  std::cout << "differential: unifdef decided " << decided << " of " << total << "; archpatch agrees on " << agreed
            << "\n";
}

}  // namespace
}  // namespace archpatch::e2e
