#include "python/chains.h"

#include <gtest/gtest.h>

#include "python/package.h"
#include "python/scanner.h"
#include "scan/audit.h"
#include "report/finding.h"

namespace archpatch::python {
// (in src/scan: it checks what scan::ExcludesTarget makes of the marks)
namespace {

// FlashInfer's gemm_base.py picks a backend per family: sm_120 is false at the first test and
// takes the `elif`, so the first test keeps only arches that no branch admits out.
constexpr const char* kDispatch = R"(import torch

def pick_backend(device):
    major, minor = torch.cuda.get_device_capability(device)
    if major == 10:
        backend = "cutlass_sm10x"
    elif major == 12:
        backend = "cutlass_sm120"
    return backend
)";

// The chain inside another `if` is found too (flash-attention's per-arch forward classes sit
// under `if not use_cached:`).
TEST(Chains, ChainsInsideAnotherIfAreFound) {
  constexpr const char* kNested = R"(import torch

def forward(device, cached):
    major, minor = torch.cuda.get_device_capability(device)
    if not cached:
        if major == 9:
            fwd = "sm90"
        elif major == 12:
            fwd = "sm120"
    return fwd
)";
  Result<ScannedModule> scanned = ScanPythonModule("fwd.py", kNested, arch::AllArches());
  ASSERT_TRUE(scanned.ok()) << scanned.error().str();
  ASSERT_EQ(scanned->summary.chains.size(), 1u);
  EXPECT_EQ(scanned->summary.chains[0][0].first_line, 6);
}

TEST(Chains, AnArchAnotherBranchAdmitsIsNotKeptOutByThisOne) {
  const std::vector<arch::Arch> arches = arch::AllArches();
  Result<ScannedModule> scanned = ScanPythonModule("gemm.py", kDispatch, arches);
  ASSERT_TRUE(scanned.ok()) << scanned.error().str();
  ASSERT_EQ(scanned->summary.chains.size(), 1u);
  ASSERT_EQ(scanned->summary.chains[0].size(), 2u);
  EXPECT_EQ(scanned->summary.chains[0][1].first_line, 7);

  std::vector<Finding> own = scanned->findings, resolved;
  MarkChainSiblings({{"gemm.py", scanned->summary.chains}}, own, resolved);
  ASSERT_EQ(own.size(), 2u);
  const Finding& first = own[0];
  EXPECT_EQ(first.line, 5);
  ASSERT_TRUE(ToJson(first).contains("earlier_verdict"));
  EXPECT_EQ(ToJson(first)["earlier_verdict"]["sm_120"], "true");
  EXPECT_EQ(ToJson(first)["earlier_verdict"]["sm_90"], "false");

  const std::vector<std::string> others = {"sm_90", "sm_100"};
  EXPECT_FALSE(scan::ExcludesTarget(first, "sm_120", others)) << "sm_120 takes the elif";
  EXPECT_TRUE(scan::ExcludesTarget(first, "sm_90", {"sm_100"})) << "no branch admits sm_90";
}

// FlashInfer's mla/_core.py: early returns in a row are one dispatch; a refusing branch takes
// no arch anywhere, so it marks nothing.
TEST(Chains, EarlyReturnsInARowAreOneChainAndRefusalsTakeNoBranch) {
  constexpr const char* kReturns = R"(import torch

def resolve_backend(device):
    major, minor = torch.cuda.get_device_capability(device)
    if major == 12:
        return "sparse"
    if major == 10:
        return "trtllm-gen"
    raise ValueError("unsupported")

def refuse_then_pick(device):
    major, minor = torch.cuda.get_device_capability(device)
    if major == 10:
        backend = "fast"
    elif major < 9:
        raise RuntimeError("too old")
    return backend
)";
  const std::vector<arch::Arch> arches = arch::AllArches();
  Result<ScannedModule> scanned = ScanPythonModule("mla.py", kReturns, arches);
  ASSERT_TRUE(scanned.ok()) << scanned.error().str();
  ASSERT_EQ(scanned->summary.chains.size(), 2u);
  std::vector<Finding> own = scanned->findings, resolved;
  MarkChainSiblings({{"mla.py", scanned->summary.chains}}, own, resolved);
  auto at = [&](int line) -> const Finding& {
    for (const Finding& f : own)
      if (f.line == line) return f;
    ADD_FAILURE() << "no finding on line " << line;
    return own.front();
  };
  EXPECT_FALSE(scan::ExcludesTarget(at(7), "sm_120", {"sm_100"})) << "sm_120 returned at line 5";
  EXPECT_TRUE(scan::ExcludesTarget(at(7), "sm_90", {"sm_100"}));
  // sm_120 skips `elif major < 9: raise` and takes no branch: the first test keeps it out.
  EXPECT_TRUE(scan::ExcludesTarget(at(13), "sm_120", {"sm_100"}));
}

// The same chain through a bound name the package model resolves: the mark reaches its findings.
TEST(Chains, ResolvedBranchesAreMarkedToo) {
  constexpr const char* kBound = R"(import torch

def pick_backend(device):
    major, minor = torch.cuda.get_device_capability(device)
    is_sm10x = major == 10
    is_sm120 = major == 12
    if is_sm10x:
        backend = "cutlass_sm10x"
    elif is_sm120:
        backend = "cutlass_sm120"
    return backend
)";
  const std::vector<arch::Arch> arches = arch::AllArches();
  Result<ScannedModule> scanned = ScanPythonModule("gemm.py", kBound, arches);
  ASSERT_TRUE(scanned.ok()) << scanned.error().str();
  std::map<std::string, std::vector<BranchChain>> chains = {{"gemm.py", scanned->summary.chains}};
  std::vector<Finding> own = scanned->findings;
  std::vector<ModuleSummary> modules;
  modules.push_back(std::move(scanned->summary));
  std::vector<Finding> resolved = PackageModel(std::move(modules), arches).BranchFindings();
  PackageModel::DropBoundComparisons(own, resolved);
  EXPECT_TRUE(own.empty()) << "the bound comparisons are reported where they are used";
  MarkChainSiblings(chains, own, resolved);
  ASSERT_EQ(resolved.size(), 2u);
  EXPECT_EQ(resolved[0].line, 7);
  EXPECT_FALSE(scan::ExcludesTarget(resolved[0], "sm_120", {"sm_100"}));
  EXPECT_TRUE(scan::ExcludesTarget(resolved[0], "sm_90", {"sm_100"}));
}

}  // namespace
}  // namespace archpatch::python
