// `archpatch audit --binaries` and `--binaries-only`: the binary coverage report of src/binary
// (docs/binaries.md), kept out of cmd_audit.cc so the audit command only calls these.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "binary/scan.h"
#include "cli/options.h"
#include "report/finding.h"

namespace archpatch::cli {

// Adds --binaries and --binaries-only to the audit options.
void AddBinariesOptions(po::options_description& desc);

// `audit --binaries-only`: scans PATHs for CUDA binaries, prints the report (or {"binaries": ...}
// with --json) and returns the exit code: 1 when a file has no image for the target, 2 when a
// named file is not a CUDA binary, else 0.
int RunBinariesOnly(const arch::Arch& target, const std::vector<std::string>& paths, bool json);

// Whether the binary report is asked for: --binaries, or (with `by_default`) no --no-binaries.
bool BinariesAsked(const po::variables_map& vars, bool by_default);

// `audit --binaries`: the scan (named files that are not binaries are passed over, they are the
// sources the audit reads).
binary::BinaryScan ScanAuditBinaries(const arch::Arch& target, const std::vector<std::string>& paths);

}  // namespace archpatch::cli
