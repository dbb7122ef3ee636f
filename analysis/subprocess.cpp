#include "analysis/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace warplens {

namespace {

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

// Reads what is available; returns false at end of stream.
bool drain(int fd, std::string& into, std::size_t cap) {
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      std::size_t room = into.size() < cap ? cap - into.size() : 0;
      into.append(buf, std::min<std::size_t>(room, static_cast<std::size_t>(n)));
      if (static_cast<std::size_t>(n) < sizeof buf) return true;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

// The child leads its own process group (POSIX_SPAWN_SETPGROUP with 0), so
// the group id is its pid; signalling the group reaches the tools it started
// and nothing else. (glibc's posix_spawn returns after the child's setpgid.)
void kill_group(pid_t pid, int sig) { ::kill(-pid, sig); }

}  // namespace

ProcessResult run_process(const ProcessRequest& req, std::stop_token stop) {
  ProcessResult r;
  auto t0 = std::chrono::steady_clock::now();
  if (req.argv.empty()) {
    r.error = "no program given";
    return r;
  }
  Pipe out, err;
  if (!out.open() || !err.open()) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  if (!req.working_directory.empty())
    posix_spawn_file_actions_addchdir_np(&actions, req.working_directory.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t empty, defaults;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&attr, &empty);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGINT);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  std::vector<char*> argv;
  for (const auto& a : req.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  out.close_end(1);
  err.close_end(1);
  if (rc != 0) {
    r.error = req.argv[0] + ": " + std::strerror(rc);
    return r;
  }
  r.started = true;
  fcntl(out.fd[0], F_SETFL, O_NONBLOCK);
  fcntl(err.fd[0], F_SETFL, O_NONBLOCK);

  auto deadline = req.timeout.count() > 0 ? t0 + req.timeout : std::chrono::steady_clock::time_point::max();
  bool out_open = true, err_open = true;
  bool killed = false;
  int status = 0;
  bool reaped = false;
  auto kill_tree = [&] {
    kill_group(pid, SIGTERM);
    // Give the tree a moment to exit cleanly, then make sure.
    for (int i = 0; i < 20 && !reaped; ++i) {
      if (waitpid(pid, &status, WNOHANG) == pid) reaped = true;
      else ::usleep(25000);
    }
    kill_group(pid, SIGKILL);
  };
  while (out_open || err_open) {
    if (!killed && stop.stop_requested()) {
      r.cancelled = killed = true;
      kill_tree();
    } else if (!killed && std::chrono::steady_clock::now() >= deadline) {
      r.timed_out = killed = true;
      kill_tree();
    }
    pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
    int n = ::poll(fds, 2, 50);
    if (n < 0 && errno != EINTR) break;
    if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
      out_open = drain(out.fd[0], r.out, req.max_output_bytes);
    if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
      err_open = drain(err.fd[0], r.err, req.max_output_bytes);
    // A grandchild may keep the pipes open after the child died: stop
    // waiting for EOF once the child is gone and was killed by us.
    if (killed) {
      if (!reaped && waitpid(pid, &status, WNOHANG) == pid) reaped = true;
      if (reaped) {
        kill_group(pid, SIGKILL);
        break;
      }
    }
  }
  if (!reaped) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace warplens
