// Runs the real warplens binary for end-to-end tests: spawns it with
// pipes, writes to its stdin, reads its stdout and stderr without ever
// blocking (every wait has a deadline), and reports clearly when it is
// missing, crashed or exited.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace warplens::testing {

// build/bin/warplens of this build tree.
std::string warplens_binary();

class ServerProcess {
 public:
  // Spawns `warplens args...`. Fails the test (and throws) if it cannot.
  explicit ServerProcess(const std::vector<std::string>& args, bool pipe_stdin = true);
  ~ServerProcess();  // kills the process if it still runs
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Writes all of `bytes` to stdin, draining the outputs meanwhile.
  // False when the process stopped reading (closed its stdin or died).
  bool write_stdin(std::string_view bytes, std::chrono::milliseconds timeout);
  void close_stdin();
  // Closes our end of the server's stdout: the client stops listening.
  void close_stdout();

  // Reads whatever is available on stdout/stderr, waiting at most `wait`
  // for something to arrive. Returns false when nothing came.
  bool poll_output(std::chrono::milliseconds wait);

  // New stdout bytes since the last call.
  std::string take_stdout();
  const std::string& stderr_text() const { return stderr_; }
  bool stdout_closed() const { return out_fd_ < 0; }

  // The exit code (or 128+signal) once the process has exited.
  std::optional<int> exit_status();
  int wait_exit(std::chrono::milliseconds timeout);  // fails the test on timeout
  bool running() { return !exit_status().has_value(); }
  pid_t pid() const { return pid_; }

  // "exited with 1" / "killed by signal 11" / "still running", and the
  // last lines of stderr: for failure messages.
  std::string describe();

 private:
  void read_fd(int& fd, std::string& into);
  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  std::string stdout_, stderr_;
  std::optional<int> status_;
};

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs `warplens args...` to completion (stdin: `input`), with a timeout.
RunResult run_warplens(const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                       const std::string& input = {});

}  // namespace warplens::testing
