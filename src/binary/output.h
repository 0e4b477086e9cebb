// The binary scan as people and programs read it: Findings (kind "binary-coverage"), the
// --json object and the text report. The JSON fields are a contract (docs/binaries.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "binary/scan.h"
#include "gate/finding.h"

namespace archpatch::binary {

// One Finding per file with kernels: verdict true where it runs (native or ptx-jit), false for
// no-image; Finding::binary holds the images and each target's coverage.
// Severity: error when some target has no image, warning for ptx-jit only, info when native.
std::vector<Finding> ToFindings(const BinaryScan& scan);

// {"targets", "files", "distributions", "totals", "examined", "errors"}.
nlohmann::ordered_json ToJson(const BinaryScan& scan);

// The text report: per distribution, then per file, then totals.
std::string FormatText(const BinaryScan& scan);

}  // namespace archpatch::binary
