// The --json form of a Finding (docs/audit.md, "JSON output"): the one place the gate model
// becomes JSON. Keys and their order are a contract; the kind-specific keys follow the common
// ones in the order each form lists them.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "gate/finding.h"

namespace archpatch {
namespace gate {
// Declared beside the model's namespace so that ToJson(finding) is found from every stage.
nlohmann::ordered_json ToJson(const Finding& finding);
}  // namespace gate
using gate::ToJson;

namespace report {

// {"sm_120": "false", "sm_90": "true", ...}: one key per arch, in verdict order.
nlohmann::ordered_json VerdictJson(const gate::Verdicts& verdicts);

// The fields of a widen verdict ("widen", "target", "needs", "uses", "unseen_calls", ...).
nlohmann::ordered_json WidenJson(const gate::WidenHazard& widen);

// The precompiled artifacts a gate's module loads ("prebuilt", docs/audit.md): one object per
// artifact group.
nlohmann::ordered_json PrebuiltJson(const std::vector<gate::PrebuiltArtifacts>& links);

// What IndentedText(ToJson(finding), depth) prints (report/json_text.h), printed as it is written
// instead of built first: --json's findings.
std::string FindingText(const gate::Finding& finding, unsigned depth);

}  // namespace report
}  // namespace archpatch
