// archpatch as an Ansible binary module: Ansible copies the binary to the host and runs it with
// one argument, the path of a JSON file holding the task's arguments and Ansible's own
// `_ansible_*` keys (IsAnsibleModuleCall checks for them). archpatch then runs
// `apply` or `revert` on itself (as a child process, so that the subcommands stay exactly what a
// shell user gets, --json included) and answers on stdout with that JSON, which already follows
// Ansible's module contract (changed, failed, msg, diff), plus rc. docs/deploy.md documents the
// arguments.
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "util/input_file.h"
#include "util/result.h"
#include "report/json_text.h"

namespace archpatch::cli {
namespace {

using nlohmann::json;

struct ChildResult {
  int exit_code = kExitRefused;
  std::string out;
  std::string err;
};

// Reads both of the child's pipes to the end (poll, so neither can fill up and block it).
void Drain(int out_fd, int err_fd, ChildResult& result) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  char buffer[1 << 16];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
        continue;
      }
      close(fds[i].fd);
      fds[i].fd = -1;
      --open_fds;
    }
  }
}

// Runs this same binary with `args`, its stdout and stderr read through pipes: no file is
// created, so nothing in a shared /tmp can be planted in its way (issue 16, item 5).
ChildResult RunSelf(const std::vector<std::string>& args) {
  ChildResult result;
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) return result;
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]), close(out[1]);
    return result;
  }
  std::vector<char*> argv{const_cast<char*>("archpatch")};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    if (dup2(out[1], STDOUT_FILENO) < 0 || dup2(err[1], STDERR_FILENO) < 0) _exit(kExitRefused);
    execv("/proc/self/exe", argv.data());
    _exit(kExitRefused);
  }
  close(out[1]), close(err[1]);
  if (pid < 0) {
    close(out[0]), close(err[0]);
    return result;
  }
  Drain(out[0], err[0], result);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

std::vector<std::string> StringList(const json& value) {
  if (value.is_string()) return {value.get<std::string>()};
  std::vector<std::string> list;
  if (value.is_array()) {
    for (const json& item : value) {
      if (item.is_string()) list.push_back(item.get<std::string>());
    }
  }
  return list;
}

// The subcommand's arguments for the task's `state`, `rules`, `site_packages`/`python`,
// `clear_cache`, and Ansible's check and diff modes; throws UsageError for arguments Ansible
// users would otherwise see ignored.
std::vector<std::string> SubcommandArgs(const json& params) {
  static const char* const kKnown[] = {"state", "rules", "site_packages", "python", "clear_cache"};
  for (const auto& [key, value] : params.items()) {
    if (key.rfind("_ansible_", 0) == 0) continue;
    if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown)) {
      throw UsageError(
          fmt::format("unsupported parameter '{}' (supported: state, rules, site_packages, python, clear_cache)", key));
    }
  }
  std::string state = params.value("state", "present");
  if (state != "present" && state != "absent") {
    throw UsageError(fmt::format("state must be 'present' or 'absent', not '{}'", state));
  }
  bool present = state == "present";
  std::vector<std::string> args{present ? "apply" : "revert", "--json"};
  std::vector<std::string> rules = StringList(params.value("rules", json()));
  if (rules.empty() && present) throw UsageError("'rules' is required with state=present");
  for (const std::string& rule : rules) args.insert(args.end(), {"--rule", rule});
  if (rules.empty()) args.push_back("--all");
  for (const auto& [key, option] : {std::pair{"site_packages", "--site-packages"}, std::pair{"python", "--python"}}) {
    if (params.contains(key)) args.insert(args.end(), {option, params[key].get<std::string>()});
  }
  if (!params.value("clear_cache", true)) args.push_back("--no-clear-cache");
  // apply speaks Ansible's check and diff modes itself (--check, --diff).
  if (present && params.value("_ansible_check_mode", false)) args.push_back("--check");
  if (present && params.value("_ansible_diff", false)) args.push_back("--diff");
  return args;
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

json Answer(const json& params) {
  if (params.value("state", "present") == "absent" && params.value("_ansible_check_mode", false)) {
    return json{{"changed", false}, {"skipped", true}, {"msg", "revert has no dry run: skipped in check mode"}};
  }
  ChildResult run = RunSelf(SubcommandArgs(params));
  json output = json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  json answer = output.is_object() ? output : json::object();
  bool failed = run.exit_code != kExitOk && run.exit_code != kExitFindings;
  answer["rc"] = run.exit_code;
  answer["failed"] = failed;
  answer["changed"] = !failed && answer.value("changed", false);
  if (failed || answer.value("msg", "").empty()) {
    answer["msg"] = failed ? FirstLine(run.err) : "nothing to do";
  }
  return answer;
}

// Ansible's contract for a binary module (ansible-core's action plugin, module_style 'binary'):
// it runs `MODULE ARGS_FILE`, ARGS_FILE being `<remote tmp>/args`, a JSON object of the task's
// arguments to which Ansible always adds its own `_ansible_*` keys (_ansible_module_name,
// _ansible_version, _ansible_check_mode, ...). The `{"ANSIBLE_MODULE_ARGS": {...}}` wrapper
// that new-style modules read is accepted too. Nothing else is a module call: a file that
// happens to be named like the argument is no reason to leave the command line (issue 16, item 7).
std::optional<json> ModuleParams(const std::string& args_file) {
  Result<std::string> text = ReadInputFile(args_file, kMaxModuleArgsBytes);
  if (!text) return std::nullopt;
  json args = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!args.is_object()) return std::nullopt;
  if (args.size() == 1 && args.contains("ANSIBLE_MODULE_ARGS") && args["ANSIBLE_MODULE_ARGS"].is_object()) {
    return args["ANSIBLE_MODULE_ARGS"];
  }
  for (const auto& item : args.items()) {
    if (item.key().starts_with("_ansible_")) return args;
  }
  return std::nullopt;
}

}  // namespace

bool IsAnsibleModuleCall(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '-' || argv[1][0] == '\0') return false;
  return ModuleParams(argv[1]).has_value();
}

int RunAnsibleModule(const std::string& args_file) {
  json answer;
  try {
    std::optional<json> params = ModuleParams(args_file);
    if (!params) throw UsageError(fmt::format("'{}' is not Ansible's JSON object of module arguments", args_file));
    answer = Answer(*params);
  } catch (const std::exception& e) {
    answer = json{{"changed", false}, {"failed", true}, {"msg", e.what()}};
  }
  fmt::print("{}\n", report::DumpText(answer));
  return answer["failed"].get<bool>() ? 1 : 0;
}

}  // namespace archpatch::cli
