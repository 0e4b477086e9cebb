#include "apply/prebuilt_edits.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "apply/unsafe_edits.h"
#include "gate/prebuilt.h"
#include "scan/artifacts.h"
#include "scan/prebuilt_link.h"
#include "scan/scan.h"

namespace archpatch::apply {
namespace {

namespace fs = std::filesystem;

// The edited file's package (the first folder of its path under the rule's root) is read for its
// artifact declarations; every other entry of the root only for installed artifacts (the
// flashinfer-cubin distribution beside flashinfer).
scan::ArtifactIndex IndexPackage(const fs::path& root, const std::string& package) {
  std::vector<std::string> installed;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == package || name.ends_with(".dist-info") || name.starts_with(".")) continue;
    if (it->is_directory(ec) && !it->is_symlink(ec)) installed.push_back(it->path().string());
  }
  return scan::IndexArtifacts({(root / package).string()}, installed);
}

std::string Installed(const std::vector<gate::PrebuiltArtifacts>& links) {
  std::vector<std::string> names;
  size_t count = 0;
  for (const gate::PrebuiltArtifacts& l : links) {
    names.insert(names.end(), l.binaries.begin(), l.binaries.end());
    count += l.binary_count;
  }
  if (count < 2) return "";  // the one installed file is named in the sentence already
  const std::string more = count > names.size() ? fmt::format(" and {} more", count - names.size()) : "";
  return fmt::format(" (installed: {}{})", fmt::join(names, ", "), more);
}

Finding Hazard(const StagedFile& file, const plan::TextEdit& edit, const Finding& gate, const arch::Arch& target) {
  const Tri runs = gate::PrebuiltRuns(gate.prebuilt);
  Finding f;
  f.file = file.file->path;
  f.line = edit.line;
  f.column = edit.column;
  f.kind = runs == Tri::kFalse ? gate::Kind::kPrebuiltWithoutImage : gate::Kind::kWidenUnknown;
  f.severity = runs == Tri::kFalse ? Severity::kError : Severity::kWarning;
  f.text = gate.text;
  f.span = gate.span;
  f.scope = gate.scope;
  f.summary = fmt::format("rule '{}' edit {} changes '{}': {}{}", file.rule->rule_id, edit.edit_index + 1, gate.text,
                          gate::PrebuiltSentence(gate.prebuilt, target.name()), Installed(gate.prebuilt));
  f.rule = file.rule->rule_id;
  f.prebuilt = gate.prebuilt;
  return f;
}

void HazardsOf(const StagedFile& file, const scan::ArtifactIndex& index, std::vector<Finding>& out) {
  if (index.empty()) return;  // the package declares no artifacts: nothing to scan the file for
  for (const std::string& name : file.rule->targets) {
    Result<arch::Arch> target = arch::ParseArch(name);
    if (!target) continue;
    Result<std::vector<Finding>> gates = scan::ScanFileGates(file.file->path, file.before, {*target}, cuda::MacroEnv{});
    if (!gates) return;  // planning scanned these bytes already
    scan::LinkFilePrebuilt(*gates, file.file->path, file.before, index, *target);
    for (const plan::TextEdit& edit : file.file->edits) {
      bool touches_a_gate = false;
      for (const Finding& gate : *gates) {
        if (!EditTouches(edit, gate.span)) continue;
        touches_a_gate = true;
        if (!gate.prebuilt.empty() && gate::PrebuiltRuns(gate.prebuilt) != Tri::kTrue) {
          out.push_back(Hazard(file, edit, gate, *target));
        }
      }
      if (touches_a_gate) continue;
      // A replace of what the file scan does not see as a gate: judged by where it is.
      Finding place;
      place.text = edit.before;
      place.span = {edit.begin, edit.end};
      place.prebuilt = scan::LinkPlace(file.file->path, file.before, edit.begin, index, *target);
      if (!place.prebuilt.empty() && gate::PrebuiltRuns(place.prebuilt) != Tri::kTrue) {
        out.push_back(Hazard(file, edit, place, *target));
      }
    }
  }
}

}  // namespace

std::vector<Finding> PrebuiltHazards(const StagedPlan& staged) {
  std::vector<Finding> out;
  std::map<std::pair<std::string, std::string>, scan::ArtifactIndex> indexes;
  for (const StagedFile& file : staged.files) {
    if (scan::KindOf(file.file->path) == scan::FileKind::kOther) continue;
    const std::string package = fs::path(file.file->path).begin()->string();
    auto key = std::make_pair(file.rule->root, package);
    auto it = indexes.find(key);
    if (it == indexes.end()) it = indexes.emplace(key, IndexPackage(file.rule->root, package)).first;
    HazardsOf(file, it->second, out);
  }
  return out;
}

}  // namespace archpatch::apply
