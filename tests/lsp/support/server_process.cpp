#include "support/server_process.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <utility>

extern char** environ;

namespace warplens::testing {

std::string warplens_binary() { return std::string(WARPLENS_BINARY_DIR) + "/bin/warplens"; }

namespace {
using Clock = std::chrono::steady_clock;

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }
}  // namespace

ServerProcess::ServerProcess(const std::vector<std::string>& args, bool pipe_stdin) {
  std::string binary = warplens_binary();
  if (::access(binary.c_str(), X_OK) != 0) {
    FAIL_CHECK("the server binary " << binary << " is missing (" << std::strerror(errno) << "): build it first");
    throw std::runtime_error("missing server binary");
  }
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) || ::pipe2(out, O_CLOEXEC) || ::pipe2(err, O_CLOEXEC))
    throw std::runtime_error("pipe2 failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (pipe_stdin)
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  else
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<std::string> argv_storage{binary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  int rc = ::posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  in_fd_ = in[1];
  out_fd_ = out[0];
  err_fd_ = err[0];
  if (!pipe_stdin) close_stdin();
  if (rc != 0) {
    FAIL_CHECK("cannot start " << binary << ": " << std::strerror(rc));
    throw std::runtime_error("spawn failed");
  }
  if (in_fd_ >= 0) set_nonblocking(in_fd_);
  set_nonblocking(out_fd_);
  set_nonblocking(err_fd_);
}

ServerProcess::~ServerProcess() {
  close_stdin();
  if (!exit_status()) {
    ::kill(pid_, SIGTERM);
    auto deadline = Clock::now() + std::chrono::seconds(2);
    while (!exit_status() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!exit_status()) {
      ::kill(pid_, SIGKILL);
      int st;
      ::waitpid(pid_, &st, 0);
    }
  }
  for (int fd : {out_fd_, err_fd_})
    if (fd >= 0) ::close(fd);
}

void ServerProcess::close_stdin() {
  if (in_fd_ >= 0) ::close(in_fd_);
  in_fd_ = -1;
}

void ServerProcess::close_stdout() {
  if (out_fd_ >= 0) ::close(out_fd_);
  out_fd_ = -1;
}

void ServerProcess::read_fd(int& fd, std::string& into) {
  if (fd < 0) return;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      into.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) {  // end of stream
      ::close(fd);
      fd = -1;
    }
    return;  // EAGAIN or closed
  }
}

bool ServerProcess::poll_output(std::chrono::milliseconds wait) {
  std::size_t before = stdout_.size() + stderr_.size();
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  if (out_fd_ < 0 && err_fd_ < 0) {
    std::this_thread::sleep_for(std::min(wait, std::chrono::milliseconds(10)));
    return false;
  }
  ::poll(fds, 2, static_cast<int>(wait.count()));
  read_fd(out_fd_, stdout_);
  read_fd(err_fd_, stderr_);
  return stdout_.size() + stderr_.size() > before;
}

bool ServerProcess::write_stdin(std::string_view bytes, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (!bytes.empty()) {
    if (in_fd_ < 0) return false;
    ssize_t n = ::write(in_fd_, bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno != EAGAIN) return false;  // EPIPE: the server is gone
    if (Clock::now() > deadline) return false;
    // The pipe is full: drain the server's output so it can keep reading.
    pollfd fds[3] = {{in_fd_, POLLOUT, 0}, {out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    ::poll(fds, 3, 50);
    read_fd(out_fd_, stdout_);
    read_fd(err_fd_, stderr_);
    if (!running()) return false;
  }
  return true;
}

std::string ServerProcess::take_stdout() { return std::exchange(stdout_, std::string()); }

std::optional<int> ServerProcess::exit_status() {
  if (status_) return status_;
  int st = 0;
  pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    if (WIFEXITED(st))
      status_ = WEXITSTATUS(st);
    else if (WIFSIGNALED(st))
      status_ = 128 + WTERMSIG(st);
  }
  return status_;
}

int ServerProcess::wait_exit(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (!exit_status()) {
    if (Clock::now() > deadline) {
      FAIL_CHECK("the server did not exit within " << timeout.count() << " ms; " << describe());
      return -1;
    }
    poll_output(std::chrono::milliseconds(10));
  }
  poll_output(std::chrono::milliseconds(0));
  return *status_;
}

std::string ServerProcess::describe() {
  std::string state;
  if (auto s = exit_status())
    state = *s >= 128 ? "killed by signal " + std::to_string(*s - 128) : "exited with status " + std::to_string(*s);
  else
    state = "still running";
  std::string tail = stderr_.size() > 3000 ? "..." + stderr_.substr(stderr_.size() - 3000) : stderr_;
  return "server " + state + "; its stderr:\n" + tail;
}

RunResult run_warplens(const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                       const std::string& input) {
  ServerProcess p(args, true);
  if (!input.empty()) p.write_stdin(input, timeout);
  p.close_stdin();
  RunResult r;
  r.exit_code = p.wait_exit(timeout);
  while (p.poll_output(std::chrono::milliseconds(0))) {
  }
  r.out = p.take_stdout();
  r.err = p.stderr_text();
  return r;
}

}  // namespace warplens::testing
