// archpatch as an Ansible binary module: Ansible copies the binary to the host and runs it with
// one argument, the path of a JSON file holding the task's arguments. archpatch then runs
// `apply` or `revert` on itself (as a child process, so that the subcommands stay exactly what a
// shell user gets, --json included) and answers on stdout with that JSON, which already follows
// Ansible's module contract (changed, failed, msg, diff), plus rc. docs/deploy.md documents the
// arguments.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "util/result.h"

namespace archpatch::cli {
namespace {

using nlohmann::json;

struct ChildResult {
  int exit_code = kExitRefused;
  std::string out;
  std::string err;
};

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs this same binary with `args`; stdout and stderr land in temporary files.
ChildResult RunSelf(const std::vector<std::string>& args) {
  auto dir = std::filesystem::temp_directory_path();
  std::string base = (dir / fmt::format("archpatch-ansible-{}", getpid())).string();
  std::string out_path = base + ".out", err_path = base + ".err";
  ChildResult result;
  pid_t pid = fork();
  if (pid == 0) {
    if (!std::freopen(out_path.c_str(), "w", stdout) || !std::freopen(err_path.c_str(), "w", stderr)) {
      _exit(kExitRefused);
    }
    std::vector<char*> argv{const_cast<char*>("archpatch")};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    _exit(kExitRefused);
  }
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  }
  result.out = ReadAll(out_path);
  result.err = ReadAll(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
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
      throw UsageError(fmt::format(
          "unsupported parameter '{}' (supported: state, rules, site_packages, python, clear_cache)", key));
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

}  // namespace

bool IsAnsibleModuleCall(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '-') return false;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(argv[1], ec)) return false;
  std::ifstream in(argv[1]);
  char first = 0;
  in >> first;  // skips whitespace
  return first == '{';
}

int RunAnsibleModule(const std::string& args_file) {
  json answer;
  json params = json::parse(ReadAll(args_file), nullptr, /*allow_exceptions=*/false);
  try {
    if (!params.is_object()) {
      throw UsageError(fmt::format("'{}' is not a JSON object of module arguments", args_file));
    }
    answer = Answer(params);
  } catch (const std::exception& e) {
    answer = json{{"changed", false}, {"failed", true}, {"msg", e.what()}};
  }
  fmt::print("{}\n", answer.dump());
  return answer["failed"].get<bool>() ? 1 : 0;
}

}  // namespace archpatch::cli
