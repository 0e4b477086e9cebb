// libFuzzer target for `apply --plan FILE`: any bytes are parsed as JSON and read back as an
// EditPlan, or refused; never a crash, a hang or an exception escaping.
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "plan/edit_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  (void)archpatch::plan::PlanFromJson(j);
  return 0;
}
