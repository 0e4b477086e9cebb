// archpatch arches: the arch table and the device-pass macros of each target.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "arch/arch.h"
#include "cli/command.h"
#include "cli/options.h"
#include "report/json_text.h"

namespace archpatch::cli {

int RunArches(const Context&, const std::vector<std::string>& args) {
  po::options_description desc("options");
  desc.add_options()("json", "print the table as JSON");
  ParsedOptions opts = ParseOptions("arches", desc, args);
  if (opts.help) {
    PrintCommandHelp("arches", "[--json]", desc);
    return kExitOk;
  }
  const bool json = opts.vars.count("json") > 0;
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const arch::Arch& a : arch::AllArches()) {
    std::string macros;
    nlohmann::ordered_json jm = nlohmann::ordered_json::object();
    for (const arch::Macro& m : arch::DeviceMacros(a)) {
      if (m.name.rfind("__CUDA_ARCH", 0) != 0) continue;  // compiler-version macros are common
      jm[m.name] = m.value;
      macros += m.value.empty() ? fmt::format(" {}", m.name) : fmt::format(" {}={}", m.name, m.value);
    }
    if (json) {
      out.push_back({{"name", a.name()}, {"major", a.major}, {"minor", a.minor}, {"macros", jm}});
    } else {
      fmt::print("{:<9}{}\n", a.name(), macros);
    }
  }
  if (json) fmt::print("{}\n", report::DumpText(out, 2));
  return kExitOk;
}

}  // namespace archpatch::cli
