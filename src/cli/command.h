// The subcommand table's types. Each subcommand lives in cmd_<name>.cc, parses its own options
// with Boost.Program_options, calls the library, and prints; main.cc only dispatches.
#pragma once

#include <string>
#include <vector>

namespace archpatch::cli {

// Exit codes, documented in docs/cli.md.
enum ExitCode : int {
  kExitOk = 0,        // success: no findings; apply/revert changed what was asked
  kExitFindings = 1,  // audit/verify/status: something to report; apply/revert: nothing to do
  kExitUsage = 2,     // bad options or input; nothing changed on disk
  kExitRefused = 3,   // refused or failed (rule mismatch, hazard, hash mismatch, rolled back)
};

struct Context {
  std::string program = "archpatch";
  int verbosity = 0;  // -v count
};

using CommandFn = int (*)(const Context& ctx, const std::vector<std::string>& args);

struct Command {
  const char* name;
  const char* summary;
  CommandFn run;
};

int RunAudit(const Context&, const std::vector<std::string>&);
int RunEval(const Context&, const std::vector<std::string>&);
int RunArches(const Context&, const std::vector<std::string>&);
int RunApply(const Context&, const std::vector<std::string>&);
int RunRevert(const Context&, const std::vector<std::string>&);
int RunStatus(const Context&, const std::vector<std::string>&);
int RunVerify(const Context&, const std::vector<std::string>&);
int RunRules(const Context&, const std::vector<std::string>&);
int RunCaches(const Context&, const std::vector<std::string>&);
int RunSuggest(const Context&, const std::vector<std::string>&);

// Ansible binary-module mode (ansible_module.cc): `archpatch ARGS_FILE`, where ARGS_FILE holds
// the task's JSON arguments with Ansible's `_ansible_*` keys (or an ANSIBLE_MODULE_ARGS object);
// answers with Ansible's module contract (changed, failed, msg, diff).
bool IsAnsibleModuleCall(int argc, char** argv);
int RunAnsibleModule(const std::string& args_file);

}  // namespace archpatch::cli
