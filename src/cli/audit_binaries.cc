#include "cli/audit_binaries.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "binary/output.h"
#include "binary/python_link.h"
#include "cli/command.h"
#include "report/json_text.h"

namespace archpatch::cli {

void AddBinariesOptions(po::options_description& desc) {
  desc.add_options()("no-binaries", "skip the binary coverage report (on by default for environments)");
  desc.add_options()("binaries",
                     "also report whether the CUDA binaries found (.so, .cubin, .fatbin, .ptx) can run on --arch")(
      "binaries-only", "report only the CUDA binaries and their coverage (docs/binaries.md)");
}

int RunBinariesOnly(const arch::Arch& target, const std::vector<std::string>& paths, bool json) {
  binary::ScanOptions options;
  options.targets = {target};
  const binary::BinaryScan scan = binary::ScanBinaries(paths, options);
  for (const Error& e : scan.errors) fmt::print(stderr, "archpatch: error: {}\n", e.str());
  if (json) {
    fmt::print("{}\n", report::DumpText(nlohmann::ordered_json{{"binaries", binary::ToJson(scan)}}, 2));
  } else {
    fmt::print("{}", binary::FormatText(scan));
  }
  if (!scan.errors.empty()) return kExitUsage;
  return scan.AnyNoImage() ? kExitFindings : kExitOk;
}

bool BinariesAsked(const po::variables_map& vars, bool by_default) {
  return vars.count("binaries") || (by_default && !vars.count("no-binaries"));
}

binary::BinaryScan ScanAuditBinaries(const arch::Arch& target, const std::vector<std::string>& paths) {
  binary::ScanOptions options;
  options.targets = {target};
  options.named_files_must_be_binaries = false;
  return binary::ScanBinaries(paths, options);
}

}  // namespace archpatch::cli
