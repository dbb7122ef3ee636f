#include "common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

extern char** environ;

namespace warplens {

namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  int fd[2] = {-1, -1};
  bool open() { return pipe2(fd, O_CLOEXEC) == 0; }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
  ~Pipe() {
    close_end(0);
    close_end(1);
  }
};

// Reads what is available; false at end of stream.
bool drain(int fd, std::string& into, std::size_t cap) {
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      std::size_t room = into.size() < cap ? cap - into.size() : 0;
      into.append(buf, std::min<std::size_t>(room, static_cast<std::size_t>(n)));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

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

// The child leads its own process group (POSIX_SPAWN_SETPGROUP with 0), so
// the group id is its pid; signalling the group reaches the tools it started
// and nothing else. (glibc's posix_spawn returns after the child's setpgid.)
void signal_group(pid_t pid, int sig) { ::kill(-pid, sig); }

// The wait: reads the captured pipes (if any) while the child runs, and
// ends the group on a timeout or a stop request.
class Waiter {
 public:
  Waiter(pid_t pid, const ProcessSpec& spec, int out_fd, int err_fd, ProcessResult& r)
      : pid_(pid), spec_(spec), out_fd_(out_fd), err_fd_(err_fd), r_(r) {}

  int wait(Clock::time_point start, std::stop_token stop) {
    const bool use_deadline = spec_.timeout.count() > 0;
    const Clock::time_point deadline = start + spec_.timeout;
    Clock::time_point kill_at = Clock::time_point::max();  // SIGKILL after the grace period
    Clock::time_point drain_until = Clock::time_point::max();
    bool terminating = false;
    auto pause = std::chrono::milliseconds(1);
    for (;;) {
      if (!reaped_) reap();
      if (reaped_) {
        // Output still buffered in the pipes; a grandchild that keeps them
        // open (a daemon) is not waited for more than a moment.
        if (!open_streams()) break;
        if (drain_until == Clock::time_point::max()) drain_until = Clock::now() + std::chrono::milliseconds(1000);
        if (Clock::now() >= drain_until) break;
      } else if (!terminating && (stop.stop_requested() || (use_deadline && Clock::now() >= deadline))) {
        if (stop.stop_requested()) r_.cancelled = true;
        else r_.timed_out = true;
        terminating = true;
        signal_group(pid_, SIGTERM);
        kill_at = Clock::now() + spec_.kill_grace;
      } else if (terminating && Clock::now() >= kill_at) {
        signal_group(pid_, SIGKILL);
        kill_at = Clock::time_point::max();
      }
      poll_once(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(20));
    }
    // Stragglers of a group we ended (the child is gone, its tools may not be).
    if (terminating) signal_group(pid_, SIGKILL);
    return status_;
  }

 private:
  void reap() {
    pid_t w = waitpid(pid_, &status_, WNOHANG);
    if (w == pid_ || (w < 0 && errno != EINTR)) reaped_ = true;  // (< 0: not our child any more)
  }
  bool open_streams() const { return out_open_ || err_open_; }
  void poll_once(std::chrono::milliseconds pause) {
    pollfd fds[2];
    nfds_t n = 0;
    int out_at = -1, err_at = -1;
    if (out_open_) out_at = static_cast<int>(n), fds[n++] = {out_fd_, POLLIN, 0};
    if (err_open_) err_at = static_cast<int>(n), fds[n++] = {err_fd_, POLLIN, 0};
    int ready = ::poll(n ? fds : nullptr, n, static_cast<int>(pause.count()));
    if (ready <= 0) return;
    if (out_at >= 0 && (fds[out_at].revents & (POLLIN | POLLHUP | POLLERR)))
      out_open_ = drain(out_fd_, r_.out, spec_.max_captured_bytes);
    if (err_at >= 0 && (fds[err_at].revents & (POLLIN | POLLHUP | POLLERR)))
      err_open_ = drain(err_fd_, r_.err, spec_.max_captured_bytes);
  }

  pid_t pid_;
  const ProcessSpec& spec_;
  int out_fd_, err_fd_;
  ProcessResult& r_;
  bool out_open_ = out_fd_ >= 0, err_open_ = err_fd_ >= 0;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace

ProcessResult run_process(const ProcessSpec& spec, std::stop_token stop) {
  ProcessResult result;
  if (spec.argv.empty()) {
    result.start_error = "no program given";
    return result;
  }
  Pipe out, err;
  if (spec.capture_output && (!out.open() || !err.open())) {
    result.start_error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (spec.capture_output) {
    posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  } else {
    const char* o = spec.stdout_path.empty() ? "/dev/null" : spec.stdout_path.c_str();
    const char* e = spec.stderr_path.empty() ? "/dev/null" : spec.stderr_path.c_str();
    posix_spawn_file_actions_addopen(&actions, 1, o, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, e, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  if (!spec.working_directory.empty())
    posix_spawn_file_actions_addchdir_np(&actions, spec.working_directory.c_str());

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);

  const bool own_environment = !spec.env_set.empty() || !spec.env_unset.empty();
  std::vector<std::string> env;
  std::vector<char*> envp;
  if (own_environment) {
    env = child_environment(spec);
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
  }
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const auto start = Clock::now();
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), own_environment ? envp.data() : environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  out.close_end(1);
  err.close_end(1);
  if (rc != 0) {
    result.start_error = "cannot run " + spec.argv[0] + ": " + std::strerror(rc);
    return result;
  }
  result.started = true;
  if (spec.capture_output) {
    fcntl(out.fd[0], F_SETFL, O_NONBLOCK);
    fcntl(err.fd[0], F_SETFL, O_NONBLOCK);
  }
  Waiter waiter(pid, spec, out.fd[0], err.fd[0], result);
  int status = waiter.wait(start, stop);
  result.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = 128 + result.signal;
  }
  return result;
}

std::string describe_process(const ProcessResult& r, const ProcessSpec& spec) {
  const std::string name = spec.argv.empty() ? "the program" : spec.argv[0];
  if (!r.started) return r.start_error;
  if (r.cancelled) return name + " was cancelled";
  if (r.timed_out)
    return name + " timed out after " +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(spec.timeout).count()) +
           " s and was stopped";
  if (r.signal) return name + " was killed by signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) + ")";
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

}  // namespace warplens
