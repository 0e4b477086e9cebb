// Links gates to the precompiled artifacts their module loads (docs/audit.md, "Precompiled
// artifacts"), from the index of scan/artifacts.h. A gate is linked to a group when:
//   - it is a Python gate inside a function that names the group (a module generator:
//     `supported_major_versions=[10]` inside gen_trtllm_gen_fused_moe_sm100_module), or inside a
//     function of its file that calls such a function, directly or through other functions of the
//     same file (at most kMaxCallDepth calls deep), or one nested in it;
//   - it is a host C++ check (cpp-runtime-gate) in a file such a function compiles (names in a
//     string literal: "trtllm_fused_moe_kernel_launcher.cu").
// CUDA #if gates are never linked: they decide what is compiled, not which cubins are loaded.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "gate/finding.h"
#include "gate/group.h"
#include "python/scanner.h"
#include "scan/artifacts.h"

namespace archpatch::scan {

inline constexpr int kMaxCallDepth = 4;

struct ModuleCalls;  // a module's functions, what each calls and the loaders it reaches (.cc)

// The calls of each module linked so far, by file, resolved: an audit links a module's own
// findings on the worker that scanned it, and those the package model resolves in it at the
// findings round's end, where the module was read and tokenized again on the one worker the
// model ran on (FlashInfer 0.6.16's gemm_base.py and prefill.py: that stretch went from 13 ms to
// 2-5 ms on 16 cores). Shared between threads.
//
// A module scanned before the artifact index is made (beside the first read and the package-
// macro rounds) keeps its calls unresolved, read from the scan's tokens: its findings are linked
// after the package model, from them, and the worker that scanned it never waits for the index
// (on 16 cores, workers scanning modules beside the package-macro rounds waited 1-8 ms for it).
class LinkedCalls {
 public:
  bool Has(const std::string& file) const;
  // The module's calls, resolved against `index` (at the first Find, when kept unresolved).
  std::shared_ptr<const ModuleCalls> Find(const std::string& file, const ArtifactIndex& index);
  void Keep(const std::string& file, std::shared_ptr<const ModuleCalls> calls);
  // The calls of the module whose scan's tokens are `syntax`, to be resolved at the first Find.
  void KeepUnresolved(const std::string& file, const python::ModuleSyntax& syntax);

 private:
  struct Entry {
    std::shared_ptr<const ModuleCalls> resolved;  // null until resolved
    std::shared_ptr<ModuleCalls> unresolved;      // KeepUnresolved's, until the first Find
  };
  mutable std::mutex mutex_;  // guards calls_ and the resolution of each entry
  std::map<std::string, Entry, std::less<>> calls_;
};

// Links the findings of one file whose bytes are `source` (Finding::prebuilt, marking each
// Finding::prebuilt_read). Findings of other files are left alone. Audit calls it on a worker
// for each Python module's kept findings (AuditOptions::after_python_file): the module is not
// read and tokenized again in the serial end, where those links were a quarter of it. `syntax`:
// the scan's tokens and lines of `source`, when the caller has them (otherwise it is tokenized).
// With `kept`, the module's calls are taken from it when there, and kept in it when read.
void LinkFilePrebuilt(std::vector<Finding>& findings, const std::string& file, std::string_view source,
                      const ArtifactIndex& index, const arch::Arch& target,
                      const python::ModuleSyntax* syntax = nullptr, LinkedCalls* kept = nullptr);

// What an edit at byte `offset` of `file` reaches when it touches no gate the file's own scan
// finds (a `replace:` of a predicate call only the package model resolves): the links of a gate
// at that place, in its enclosing Python function (whole function), or anywhere in a host C++
// source a loader compiles.
std::vector<gate::PrebuiltArtifacts> LinkPlace(const std::string& file, std::string_view source, size_t offset,
                                               const ArtifactIndex& index, const arch::Arch& target);

// Every finding not linked yet (Finding::prebuilt_read), each file read once (only files that
// name a loader, or hold a C++ check; a module whose calls `kept` holds is not read), the files
// spread over `jobs` threads.
void LinkPrebuilt(std::vector<Finding>& findings, const ArtifactIndex& index, const arch::Arch& target, int jobs,
                  LinkedCalls* kept = nullptr);

// Copies the links of each group's root and places into Group::prebuilt and makes its widen
// verdict widen-unsafe when no image runs on the target, unknown (from widen-safe) when the
// arches are not known, with the reason first.
void MarkPrebuiltGroups(std::vector<gate::Group>& groups, const std::vector<Finding>& findings,
                        const arch::Arch& target);

// The whole step audit and suggest run after scan::BuildGroups: index `paths`, link, mark.
void LinkAndMarkPrebuilt(std::vector<Finding>& findings, std::vector<gate::Group>& groups,
                         const std::vector<std::string>& paths, const arch::Arch& target, int jobs);
// The same with the index already made (audit makes it while the scan runs: it needs only the
// paths).
void LinkAndMarkPrebuilt(std::vector<Finding>& findings, std::vector<gate::Group>& groups, const ArtifactIndex& index,
                         const arch::Arch& target, int jobs);

}  // namespace archpatch::scan
