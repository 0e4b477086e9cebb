#include "gate/prebuilt.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace archpatch::gate {
namespace {

std::string Join(const std::vector<PrebuiltArtifacts>& links) {
  std::vector<std::string> parts;
  for (const PrebuiltArtifacts& l : links) parts.push_back(DescribePrebuilt(l));
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

Tri PrebuiltRuns(const std::vector<PrebuiltArtifacts>& links) {
  Tri out = Tri::kFalse;
  for (const PrebuiltArtifacts& l : links) {
    if (l.runs_on_target == Tri::kTrue) return Tri::kTrue;
    if (l.runs_on_target == Tri::kUnknown) out = Tri::kUnknown;
  }
  return links.empty() ? Tri::kUnknown : out;
}

std::string DescribePrebuilt(const PrebuiltArtifacts& link) {
  const std::string example = link.binaries.empty() ? "" : fmt::format(", e.g. {}", link.binaries.front());
  const std::string files = fmt::format("{} installed file{}", link.binary_count, link.binary_count == 1 ? "" : "s");
  std::string where;
  switch (link.arches_from) {
    case ArchesFrom::kCubinHeaders:
      where = fmt::format("read from the cubin headers of its {}{}", files, example);
      break;
    case ArchesFrom::kFileNames:
      where =
          link.binary_count > 0 ? fmt::format("named so by its {}{}", files, example) : "named so by its checksums.txt";
      break;
    case ArchesFrom::kDeclaredList: where = fmt::format("as {} lists them", link.declared); break;
    case ArchesFrom::kUnknown:
      where = link.binary_count > 0 ? fmt::format("arches unknown: none named by its {}{}", files, example)
                                    : "fetched at run time, no copy under the audited paths, so its arches are unknown";
      break;
  }
  const std::string arches = link.arches.empty() ? "" : fmt::format("{}: ", fmt::join(link.arches, ", "));
  return fmt::format("{} via {} ({}{})", link.group, link.via, arches, where);
}

std::string PrebuiltSentence(const std::vector<PrebuiltArtifacts>& links, const std::string& target) {
  switch (PrebuiltRuns(links)) {
    case Tri::kFalse:
      return fmt::format(
          "its module loads precompiled code with no image for {}: {}; widening this gate for {} would load code that "
          "cannot run there (prebuilt-without-image)",
          target, Join(links), target);
    case Tri::kUnknown:
      return fmt::format(
          "its module loads precompiled code whose arches archpatch cannot see: {}; widening this gate may load code "
          "with no image for {}",
          Join(links), target);
    case Tri::kTrue: break;
  }
  return fmt::format("its module loads precompiled code that has an image for {}: {}", target, Join(links));
}

}  // namespace archpatch::gate
