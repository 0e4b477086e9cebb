// archpatch-binscan: the binary scan alone, for machines where the full archpatch (which links
// libclang) cannot run. Same library, same output as `archpatch audit --binaries-only`.
//   archpatch-binscan [--arch sm_120[,sm_121]] [--json] PATH...
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "arch/arch.h"
#include "binary/output.h"
#include "binary/scan.h"

int main(int argc, char** argv) {
  using namespace archpatch;
  std::string arches = "sm_120";
  bool json = false;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (std::strcmp(argv[i], "--arch") == 0 && i + 1 < argc) {
      arches = argv[++i];
    } else if (argv[i][0] == '-') {
      fmt::print(stderr,
                 "archpatch-binscan: error: unknown option '{}'\n"
                 "usage: archpatch-binscan [--arch LIST] [--json] PATH...\n",
                 argv[i]);
      return 2;
    } else {
      paths.push_back(argv[i]);
    }
  }
  Result<std::vector<arch::Arch>> targets = arch::ParseArchList(arches);
  if (!targets || paths.empty()) {
    fmt::print(stderr, "archpatch-binscan: error: {}\n", targets ? "no path given" : targets.error().str());
    return 2;
  }
  binary::ScanOptions options;
  options.targets = *targets;
  binary::BinaryScan scan = binary::ScanBinaries(paths, options);
  if (json) {
    fmt::print("{}\n", nlohmann::ordered_json{{"binaries", binary::ToJson(scan)}}.dump(2));
  } else {
    fmt::print("{}", binary::FormatText(scan));
    for (const Error& e : scan.errors) fmt::print(stderr, "archpatch-binscan: error: {}\n", e.str());
  }
  if (!scan.errors.empty()) return 2;
  return scan.AnyNoImage() ? 1 : 0;
}
