#include "profiler/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <thread>

extern char** environ;

namespace warplens::profile {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> child_environment(const ProcessSpec& spec) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const std::string& name : spec.env_unset) vars.erase(name);
  for (const auto& [name, value] : spec.env_set) vars[name] = value;
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [name, value] : vars) out.push_back(name + "=" + value);
  return out;
}

// Waits for `pid` until it exits, `deadline` passes or `stop` is requested.
// Returns true when it exited (status filled).
bool wait_until(pid_t pid, Clock::time_point deadline, bool use_deadline, std::stop_token stop,
                int* status) {
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;  // not our child any more
    if (stop.stop_requested()) return false;
    if (use_deadline && Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

void terminate_group(pid_t pid, std::chrono::milliseconds grace, int* status) {
  kill(-pid, SIGTERM);
  if (wait_until(pid, Clock::now() + grace, true, {}, status)) {
    kill(-pid, SIGKILL);  // stragglers in the group
    return;
  }
  kill(-pid, SIGKILL);
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec, std::stop_token stop) {
  ProcessResult result;
  if (spec.argv.empty()) {
    result.start_error = "no program given";
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  const char* out = spec.stdout_path.empty() ? "/dev/null" : spec.stdout_path.c_str();
  const char* err = spec.stderr_path.empty() ? "/dev/null" : spec.stderr_path.c_str();
  posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!spec.working_directory.empty())
    posix_spawn_file_actions_addchdir_np(&actions, spec.working_directory.c_str());

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  // Own process group (to signal everything it starts); default signal
  // dispositions and an empty mask, whatever the server set for itself.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);

  std::vector<std::string> env = child_environment(spec);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const auto start = Clock::now();
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    result.start_error = "cannot run " + spec.argv[0] + ": " + std::strerror(rc);
    return result;
  }
  result.started = true;

  int status = 0;
  const bool use_deadline = spec.timeout.count() > 0;
  if (!wait_until(pid, start + spec.timeout, use_deadline, stop, &status)) {
    if (stop.stop_requested()) result.cancelled = true;
    else result.timed_out = true;
    terminate_group(pid, spec.kill_grace, &status);
  }
  result.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = 128 + result.signal;
  }
  return result;
}

std::string describe(const ProcessResult& r, const ProcessSpec& spec) {
  const std::string name = spec.argv.empty() ? "the program" : spec.argv[0];
  if (!r.started) return r.start_error;
  if (r.cancelled) return name + " was cancelled";
  if (r.timed_out)
    return name + " timed out after " +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(spec.timeout).count()) +
           " s and was stopped";
  if (r.signal) return name + " was killed by signal " + std::to_string(r.signal) + " (" +
                       strsignal(r.signal) + ")";
  return name + " exited with code " + std::to_string(r.exit_code);
}

std::string tail_of_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  std::streamoff size = in.tellg();
  std::streamoff from = size > std::streamoff(max_bytes) ? size - std::streamoff(max_bytes) : 0;
  in.seekg(from);
  std::string s(std::size_t(size - from), '\0');
  in.read(s.data(), std::streamsize(s.size()));
  if (from > 0) {
    auto nl = s.find('\n');
    if (nl != std::string::npos) s = "..." + s.substr(nl);
  }
  return s;
}

}  // namespace warplens::profile
