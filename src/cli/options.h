// Shared option handling for subcommands: Boost.Program_options with archpatch's error style.
#pragma once

#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace archpatch::cli {

namespace po = boost::program_options;

struct ParsedOptions {
  po::variables_map vars;
  bool help = false;  // --help was given: the caller prints its usage and returns 0
};

// Parses `args` against `desc` (plus -h/--help and -v, which every command accepts).
// `positional` names the option that collects positional arguments ("" for none).
// Throws UsageError with Boost's message on unknown or malformed options.
ParsedOptions ParseOptions(const std::string& command, po::options_description desc,
                           const std::vector<std::string>& args, const std::string& positional = "",
                           int max_positional = -1);

// Prints "usage: archpatch COMMAND SYNOPSIS" and the options.
void PrintCommandHelp(const std::string& command, const std::string& synopsis, const po::options_description& desc);

// Refuses two options that cannot go together: "'--a' and '--b' cannot be used together".
void RefuseTogether(const po::variables_map& vars, const char* a, const char* b);

}  // namespace archpatch::cli
