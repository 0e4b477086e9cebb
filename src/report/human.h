// Findings for people: one block per finding (place, condition, verdict per arch in compact
// groups, what the gated block holds, and one line on what it means for a deployment).
// Colour only when `color` is set (UseColor: a terminal, NO_COLOR unset, TERM not dumb).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "report/finding.h"

namespace archpatch::report {

bool UseColor(std::FILE* out);

// `text` on one line: each run of blanks and line breaks (a condition continued over lines) as
// one space, none at the start.
std::string OneLine(std::string_view text);

// "true on sm_90..sm_110f; false on sm_75..sm_89, sm_120..sm_121f": runs of three or more arches
// (in the order of `arch_order`, the arch table) with the same verdict print as first..last.
std::string CompactVerdict(const Finding& finding, const std::vector<std::string>& arch_order);

// One sentence for someone deploying models: what the gate does on `target`.
std::string WhatItMeans(const Finding& finding, const std::string& target);

void PrintFinding(std::FILE* out, const Finding& finding, const std::string& target,
                  const std::vector<std::string>& arch_order, bool color);

}  // namespace archpatch::report
