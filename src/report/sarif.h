// SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format) for `archpatch audit --sarif`:
// one reportingDescriptor (rule) per exclusion class, one result per root cause at its root gate,
// with a relatedLocation for each of its places, so code-scanning services and editors show them.
// The subset written is documented in docs/audit.md and checked by tests/sarif against the
// 2.1.0 schema's required properties.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/finding.h"
#include "report/groups.h"

namespace archpatch::report {

struct SarifOptions {
  std::string target;        // "sm_120"
  std::string tool_version;  // archpatch's version
  std::string working_dir;   // absolute; relative file paths resolve against it (%SRCROOT%)
};

nlohmann::ordered_json ToSarif(const std::vector<Group>& groups, const std::vector<Finding>& findings,
                               const SarifOptions& options);

// A path as a URI reference: '%', ' ', '#', '?' and non-ASCII bytes percent-encoded.
std::string UriReference(std::string_view path);

}  // namespace archpatch::report
