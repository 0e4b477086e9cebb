// Asking an interpreter where its site-packages are: run it directly (posix_spawnp, no shell) and
// read sysconfig's paths as JSON from its stdout.
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "env/environment.h"

extern char** environ;

namespace archpatch::env {
namespace {

struct ProcessOutput {
  int exit_status = -1;
  std::string out, err;
};

// Reads both pipes until they close, with poll() so a chatty stderr cannot block stdout.
void Drain(int out_fd, int err_fd, ProcessOutput& result) {
  std::array<pollfd, 2> fds{pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0}};
  int open_count = 2;
  char buffer[4096];
  while (open_count > 0) {
    if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    for (pollfd& p : fds) {
      if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(p.fd, buffer, sizeof buffer);
      if (n > 0) {
        (p.fd == out_fd ? result.out : result.err).append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(p.fd);
        p.fd = -1;
        --open_count;
      }
    }
  }
}

Result<ProcessOutput> RunCapturing(const std::vector<std::string>& argv) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    return Error{fmt::format("cannot create a pipe: {}", std::strerror(errno)), {}};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  ProcessOutput result;
  if (spawn_error != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return Error{fmt::format("cannot run '{}': {}", argv[0], std::strerror(spawn_error)), {}};
  }
  Drain(out_pipe[0], err_pipe[0], result);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace

Result<std::vector<std::filesystem::path>> AskPythonForSitePackages(const std::string& python) {
  Result<ProcessOutput> run =
      RunCapturing({python, "-c", "import sysconfig,json;print(json.dumps(sysconfig.get_paths()))"});
  if (!run) return run.error();
  if (run->exit_status != 0) {
    std::string first_line = run->err.substr(0, run->err.find('\n'));
    return Error{
        fmt::format("'{}' failed to report its site-packages (exit {}): {}", python, run->exit_status, first_line), {}};
  }
  nlohmann::json paths = nlohmann::json::parse(run->out, nullptr, /*allow_exceptions=*/false);
  if (!paths.is_object() || !paths.contains("purelib") || !paths["purelib"].is_string()) {
    return Error{fmt::format("'{}' printed no sysconfig purelib path", python), {}};
  }
  std::vector<std::filesystem::path> dirs{paths["purelib"].get<std::string>()};
  if (paths.contains("platlib") && paths["platlib"].is_string() &&
      paths["platlib"].get<std::string>() != dirs[0].string()) {
    dirs.emplace_back(paths["platlib"].get<std::string>());
  }
  return dirs;
}

}  // namespace archpatch::env
