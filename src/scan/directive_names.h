// The names a later round of package macros (scan/audit.cc) may find in a file, kept from the
// first round so that a file none of whose directives can name a package macro is not read
// again: the first round reads every C/C++ file; each later round read all those it had not
// lexed once more (1,503 of CUTLASS + FlashInfer's 2,743 files, three times), only to find most
// mention none of the round's macros.
//
// A package macro changes a file's findings only through its directives: an #if, #elif, #ifdef or
// #ifndef condition, or a #define that later directives read (NV_IF_TARGET queries are the
// compiler's own macros, which never become package macros). So the names kept are those of
// every line that may be part of a directive, a superset: each line holding `#`, `%:` (the
// digraph) or `%\` (the digraph split by a splice), with the lines a backslash continues and up
// to the end of a block comment opened there. Kept as 32-bit hashes: a collision only reads a
// file for nothing.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace archpatch::scan {

class DirectiveNames {
 public:
  // Unknown: may mention anything (a file the first round could not read).
  DirectiveNames() = default;
  static DirectiveNames Of(std::string_view contents);

  // The names a round asks about, hashed once for all its files (hashing them again for each file
  // was 39 M instructions of an audit of FlashInfer + CUTLASS).
  class Wanted {
   public:
    explicit Wanted(const std::set<std::string, std::less<>>& names);

   private:
    friend class DirectiveNames;
    std::vector<uint32_t> hashes_;
  };

  // False only when no directive of the file can name one of `names`.
  bool MayMention(const Wanted& names) const;
  bool MayMention(const std::set<std::string, std::less<>>& names) const { return MayMention(Wanted(names)); }
  // False only when no directive of the file can be a #define: then a later round, which reads a
  // file for the package macros it defines, has nothing to learn from it (CUTLASS's 1 MB
  // mma_sm90_gmma_sparse.hpp tests CUTE_ARCH_MMA_SM90A_ENABLED 160 times and defines nothing;
  // read again in each round, it was the last file of both).
  bool MayDefine() const { return !known_ || defines_; }
  // The length of the file's prefix that holds every #define and #undef it may have (the end of
  // the last directive-like line naming either): the file's definitions are those of its
  // directives up to there, which is all a package-macro read needs of them. CUTLASS's 2.8 MB
  // mma_sm90_gmma*_ext.hpp define their one macro by line 41 and test it 737 times after it.
  size_t DefinitionsEnd() const { return known_ ? definitions_end_ : std::string_view::npos; }
  size_t bytes() const { return hashes_.capacity() * sizeof(uint32_t); }

 private:
  bool known_ = false;
  bool defines_ = false;          // a directive line names `define`
  size_t definitions_end_ = 0;    // DefinitionsEnd()
  std::vector<uint32_t> hashes_;  // sorted, unique
};

}  // namespace archpatch::scan
