// `archpatch rules test`: a rule ships with rules/tests/<id>/before/ (a small site-packages tree
// with a *.dist-info) and rules/tests/<id>/after/ (the same tree as apply must leave it). The rule
// passes when planning against before/ yields exactly after/'s bytes, and planning against after/
// reports the rule satisfied (applying twice is a no-op).
#pragma once

#include <filesystem>
#include <string>

#include "rules/rule.h"

namespace archpatch::plan {

struct FixtureResult {
  bool passed = false;
  std::string message;  // why it failed: "demo/jit.py differs", "no fixture at ..."
  std::string diff;     // expected (after/) -> planned, as a unified diff
};

// <folder of the rule file>/tests/<id>
std::filesystem::path FixtureDir(const rules::Rule& rule);

FixtureResult TestRuleFixture(const rules::Rule& rule);

}  // namespace archpatch::plan
