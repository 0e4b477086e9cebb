// The directives of the files the first round read, kept from the scan that read them so that a
// later round of package macros (scan/audit.cc) evaluates a file's definitions again without
// reading and lexing it (in CUTLASS those are the 1-3 MB cute/arch/mma_sm90_gmma*.hpp headers,
// read again in every round), and the findings round evaluates them without reading them from the
// tokens again. A file's directives do not depend on the macro environment; only their evaluation
// does (cuda::DefinitionsOf).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cuda/directives.h"
#include "scan/directive_names.h"
#include "util/identifier.h"

namespace archpatch::scan {

class DirectiveStore {
 public:
  // What a round knows of a file (by its index in the audit's file list).
  enum class Known : uint8_t {
    kUnread,         // its directives were never read (the prefilter skipped them), or not kept
    kNoDefinitions,  // read: it #defines nothing, in any environment
    kKept,           // read and kept: Scan() gives them
  };

  // `limit`: bytes of directives kept in all (tests give a small one).
  explicit DirectiveStore(size_t files, size_t limit = kLimit)
      : limit_(limit),
        known_(files, Known::kUnread),
        whole_(files, false),
        scans_(files),
        names_(files),
        first_(files),
        sizes_(files) {}

  // After a scan of file `index` that read its directives. Safe beside other workers' calls for
  // other files. Past kLimit bytes kept in all, a file's directives are dropped (one that defines
  // something is then kUnread: a round reads the file again). `whole` false: the directives of
  // the file's prefix that holds its definitions (DirectiveNames::DefinitionsEnd), which the
  // rounds evaluate again and the findings round does not take.
  void Keep(size_t index, std::shared_ptr<const cuda::DirectiveScan> scan, bool defines, bool whole = true);

  // What the first read of a C/C++ file found: which analyses the prefilter lets through.
  struct FirstRead {
    bool read = false;  // false: never read (a Python file, or one that could not be read)
    bool directives = false, nv_target = false, runtime = false;
    // Its directives read under the user's macros alone: a branch the audit may keep, or a
    // warning to report. Without one (and no package macro named) the findings round has nothing
    // to find in them.
    bool directive_findings = true;
    // nv_target and runtime are not known yet: the file's lexing ahead looks for them (the
    // findings round completes them with LexAhead::Kinds before it reads them).
    bool kinds_ahead = false;
  };
  // After the first round read file `index` (every C/C++ file it could read): the names its
  // directives may hold and the analyses it needs. Safe beside other workers' calls for other files.
  void KeepFirstRead(size_t index, DirectiveNames names, FirstRead first) {
    names_[index] = std::move(names);
    first_[index] = first;
  }
  // Once the first read scanned its directives: none of them is a finding under the user's macros.
  void NoteNoDirectiveFindings(size_t index) { first_[index].directive_findings = false; }
  void CompleteFirstRead(size_t index, bool nv_target, bool runtime) {
    first_[index].nv_target = nv_target, first_[index].runtime = runtime, first_[index].kinds_ahead = false;
  }
  const FirstRead& First(size_t index) const { return first_[index]; }
  // The size the walk found file `index` at (0: not known): the rounds take the largest first.
  void NoteSize(size_t index, size_t bytes) { sizes_[index] = bytes; }
  size_t SizeOf(size_t index) const { return sizes_[index]; }
  // The files' indices, largest first (ties in the walk's order): sorted at the first call, before
  // any worker starts, and kept for the later rounds (a GPU environment has 68,849 files).
  const std::vector<size_t>& LargestFirst();
  // False when no directive of file `index` can name one of `names`: a later round need not read it.
  bool MayMention(size_t index, const DirectiveNames::Wanted& names) const { return names_[index].MayMention(names); }
  bool MayDefine(size_t index) const { return names_[index].MayDefine(); }
  size_t DefinitionsEnd(size_t index) const { return names_[index].DefinitionsEnd(); }

  Known Of(size_t index) const { return known_[index]; }
  const cuda::DirectiveScan& Scan(size_t index) const { return *scans_[index]; }
  // The directives kept of file `index` (of a file that defines nothing too), or null: the
  // findings round takes them instead of reading them again.
  std::shared_ptr<const cuda::DirectiveScan> Kept(size_t index) const {
    return whole_[index] ? scans_[index] : nullptr;
  }
  size_t bytes() const { return bytes_; }

 private:
  // FlashInfer 0.6.16 + CUTLASS keeps 1.5 MiB (every file the first read lexed).
  static constexpr size_t kLimit = size_t{16} << 20;
  const size_t limit_;
  std::vector<Known> known_;
  // scans_[i] holds the whole file's directives (Keep); bytes, which workers set beside each other.
  std::vector<uint8_t> whole_;
  std::vector<std::shared_ptr<const cuda::DirectiveScan>> scans_;
  std::vector<DirectiveNames> names_;
  std::vector<FirstRead> first_;
  std::vector<size_t> sizes_;
  std::vector<size_t> largest_first_;  // LargestFirst(), once made
  std::atomic<size_t> bytes_{0};
};

// Whether a condition, a macro name or a replacement of `scan` names one of `names`: the only way
// a macro of the environment changes how the file's directives evaluate.
bool DirectivesMention(const cuda::DirectiveScan& scan, const NameFilter& names);
inline bool DirectivesMention(const cuda::DirectiveScan& scan, const std::set<std::string, std::less<>>& names) {
  return DirectivesMention(scan, NameFilter(names));
}

}  // namespace archpatch::scan
