#include "util/data_dir.h"

#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace archpatch {
namespace fs = std::filesystem;
namespace {

bool HoldsData(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "rules" / "features.yaml", ec);
}

fs::path Clean(const fs::path& dir) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(dir, ec);
  return ec ? dir.lexically_normal() : canonical;
}

}  // namespace

std::vector<DataDir> DataDirCandidates(const fs::path& exe, const char* env_override) {
  std::vector<DataDir> out;
  if (env_override && *env_override) out.push_back({env_override, "$ARCHPATCH_DATA_DIR"});
  if (!exe.empty()) {
    const fs::path dir = exe.parent_path();
    out.push_back({Clean(dir / ".." / "share" / "archpatch"), fmt::format("installed beside {}", exe.string())});
    out.push_back({Clean(dir / "share" / "archpatch"), fmt::format("build tree of {}", exe.string())});
  }
  for (const char* system : {"/usr/local/share/archpatch", "/usr/share/archpatch"}) {
    out.push_back({system, fmt::format("system folder (none beside {})", exe.string())});
  }
  return out;
}

Result<DataDir> LocateDataDir(const fs::path& exe, const char* env_override) {
  const std::vector<DataDir> candidates = DataDirCandidates(exe, env_override);
  if (env_override && *env_override) {
    if (HoldsData(candidates.front().path)) return candidates.front();
    return Error{fmt::format("ARCHPATCH_DATA_DIR='{}' holds no rules/features.yaml (unset it to use the "
                             "data installed with archpatch)",
                             env_override),
                 {}};
  }
  std::vector<std::string> looked;
  for (const DataDir& candidate : candidates) {
    if (HoldsData(candidate.path)) return candidate;
    looked.push_back(candidate.path.string());
  }
  return Error{fmt::format("cannot find archpatch's data (rules/features.yaml) in {}; archpatch looks "
                           "beside its binary: install it whole (bin/ with share/), or set "
                           "ARCHPATCH_DATA_DIR to the folder holding rules/",
                           fmt::join(looked, ", ")),
               {}};
}

const Result<DataDir>& FindDataDir() {
  static const Result<DataDir> found = [] {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return LocateDataDir(ec ? fs::path() : exe, std::getenv("ARCHPATCH_DATA_DIR"));
  }();
  return found;
}

}  // namespace archpatch
