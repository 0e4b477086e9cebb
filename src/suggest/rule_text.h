// A rule as YAML text, in the layout of the shipped rules (docs/rules.md): what suggest writes.
// The caller checks the text with rules::ParseRule before anything is written.
#pragma once

#include <string>

#include "rules/rule.h"

namespace archpatch::suggest {

// id, summary, notes (a literal block), distribution, versions, targets, caches, edits; from the
// rule's fields (target_names as written, edits with their `expect`).
std::string RuleYaml(const rules::Rule& rule);

}  // namespace archpatch::suggest
