#include "agent/verifier/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>

extern char** environ;

namespace warplens::verifier {

namespace fs = std::filesystem;

std::string ProcessResult::describe() const {
  if (!started) return "could not start: " + start_error;
  if (timed_out) return "timed out (killed)";
  if (cancelled) return "cancelled (killed)";
  if (signal) {
    const char* name = strsignal(signal);
    return "killed by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
  }
  return "exit code " + std::to_string(exit_code);
}

std::string find_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t colon = p.find(':', start);
    std::string dir = p.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

fs::path self_executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

namespace {

void set_cloexec(int fd) { fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC); }

struct Pipe {
  int r = -1, w = -1;
  bool open() {
    int fds[2];
    if (pipe(fds) != 0) return false;
    r = fds[0];
    w = fds[1];
    set_cloexec(r);
    set_cloexec(w);
    return true;
  }
  void close_r() {
    if (r >= 0) close(r);
    r = -1;
  }
  void close_w() {
    if (w >= 0) close(w);
    w = -1;
  }
  ~Pipe() {
    close_r();
    close_w();
  }
};

void append_limited(std::string& dst, const char* data, std::size_t n, std::size_t limit) {
  if (dst.size() >= limit) return;
  dst.append(data, std::min(n, limit - dst.size()));
  if (dst.size() >= limit) dst += "\n[... output truncated ...]\n";
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec, std::stop_token stop) {
  ProcessResult result;
  const auto t0 = std::chrono::steady_clock::now();
  if (spec.argv.empty()) {
    result.start_error = "empty command";
    return result;
  }
  std::string exe = find_on_path(spec.argv[0]);
  if (exe.empty()) {
    result.start_error = spec.argv[0] + ": not found" +
                         (spec.argv[0].find('/') == std::string::npos ? " on PATH" : "");
    return result;
  }
  // Everything the child needs, prepared before fork.
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& u : spec.unset_env) env.erase(u);
  for (const auto& [k, v] : spec.env) env[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string cwd = spec.cwd.string();

  Pipe out, err, exec_status;
  if (!out.open() || !err.open() || !exec_status.open()) {
    result.start_error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  pid_t pid = fork();
  if (pid < 0) {
    result.start_error = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0);
    dup2(out.w, STDOUT_FILENO);
    dup2(err.w, STDERR_FILENO);
    if (spec.stdout_to_stderr) dup2(err.w, STDOUT_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) {
      int e = errno;
      (void)!write(exec_status.w, &e, sizeof e);
      _exit(127);
    }
    execve(exe.c_str(), argv.data(), envp.data());
    int e = errno;
    (void)!write(exec_status.w, &e, sizeof e);
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent: no race with the kill below
  out.close_w();
  err.close_w();
  exec_status.close_w();
  int exec_errno = 0;
  if (read(exec_status.r, &exec_errno, sizeof exec_errno) == static_cast<ssize_t>(sizeof exec_errno)) {
    waitpid(pid, nullptr, 0);
    result.start_error = exe + ": " + std::strerror(exec_errno);
    return result;
  }
  result.started = true;

  const auto deadline = t0 + std::chrono::duration<double>(spec.timeout_s > 0 ? spec.timeout_s : 1e9);
  bool killed = false;
  std::chrono::steady_clock::time_point killed_at;
  int status = 0;
  bool exited = false;
  std::chrono::steady_clock::time_point exited_at;
  char buf[65536];
  while (true) {
    pollfd fds[2];
    int n = 0;
    if (out.r >= 0) fds[n++] = {out.r, POLLIN, 0};
    if (err.r >= 0) fds[n++] = {err.r, POLLIN, 0};
    if (n > 0) poll(fds, static_cast<nfds_t>(n), 20);
    else std::this_thread::sleep_for(std::chrono::milliseconds(5));
    for (int i = 0; i < n; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      bool is_out = out.r >= 0 && fds[i].fd == out.r;
      if (got > 0) {
        append_limited(is_out ? result.out : result.err, buf, static_cast<std::size_t>(got), spec.output_limit);
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        if (is_out) out.close_r();
        else err.close_r();
      }
    }
    if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      exited_at = std::chrono::steady_clock::now();
    }
    auto now = std::chrono::steady_clock::now();
    // Done when the child has exited and its output is drained (or a
    // grandchild keeps the pipes open for more than a second).
    if (exited && ((out.r < 0 && err.r < 0) || now - exited_at > std::chrono::seconds(1))) break;
    if (!killed && !exited && (now > deadline || stop.stop_requested())) {
      result.timed_out = now > deadline;
      result.cancelled = !result.timed_out;
      kill(-pid, SIGKILL);
      killed = true;
      killed_at = now;
    }
    // A process stuck in the kernel driver may take a while to die; do not
    // wait for it forever.
    if (killed && !exited && now - killed_at > std::chrono::seconds(30)) {
      result.err += "\n[warplens: the process did not exit 30 s after SIGKILL; abandoned]\n";
      break;
    }
  }
  if (exited) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }
  if (killed) kill(-pid, SIGKILL);  // grandchildren still in the group
  result.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace warplens::verifier
