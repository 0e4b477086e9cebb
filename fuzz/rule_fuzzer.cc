// libFuzzer target for the rule loader: any bytes given as a rule file must parse into a Rule or
// fail with an Error (file:line:col where there is a place), never crash, hang or throw; a rule
// that parses keeps its invariants (an id, at least one target and one edit).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rules/loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  archpatch::Result<archpatch::rules::Rule> rule =
      archpatch::rules::ParseRule(text, "fuzz.yaml", {"flashinfer", "triton", "minifi"});
  if (rule && (rule->id.empty() || rule->targets.empty() || rule->edits.empty())) __builtin_trap();
  return 0;
}
