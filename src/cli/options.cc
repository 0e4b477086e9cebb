#include "cli/options.h"

#include <iostream>

#include <fmt/format.h>

#include "util/result.h"

namespace archpatch::cli {

ParsedOptions ParseOptions(const std::string& command, po::options_description desc,
                           const std::vector<std::string>& args, const std::string& positional, int max_positional) {
  desc.add_options()("help,h", "show this help")("verbose,v", "more logging on stderr (-v, -vv)");
  po::positional_options_description pos;
  if (!positional.empty()) pos.add(positional.c_str(), max_positional);
  ParsedOptions parsed;
  try {
    po::store(po::command_line_parser(args).options(desc).positional(pos).run(), parsed.vars);
    parsed.help = parsed.vars.count("help") > 0;
    if (!parsed.help) po::notify(parsed.vars);
  } catch (const po::error& e) {
    throw UsageError(fmt::format("{}: {}", command, e.what()));
  }
  return parsed;
}

void PrintCommandHelp(const std::string& command, const std::string& synopsis, const po::options_description& desc) {
  fmt::print("usage: archpatch {} {}\n\n", command, synopsis);
  std::cout << desc << std::flush;
}

void RefuseTogether(const po::variables_map& vars, const char* a, const char* b) {
  if (vars.count(a) && !vars[a].defaulted() && vars.count(b) && !vars[b].defaulted()) {
    throw UsageError(fmt::format("'--{}' and '--{}' cannot be used together", a, b));
  }
}

}  // namespace archpatch::cli
