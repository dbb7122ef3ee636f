// Running a child process with its output in files, a timeout and
// cancellation. Used for the profiled program, nvcc and nvidia-smi.
//
// The child gets its own process group, so a timeout or a cancellation ends
// everything it started (SIGTERM, then SIGKILL after a grace period). Its
// stdin is /dev/null and its stdout/stderr go to files, never to ours:
// our stdout may be the LSP channel.
#pragma once

#include <chrono>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

namespace warplens::profile {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] without '/' is looked up in PATH
  std::vector<std::pair<std::string, std::string>> env_set;  // on top of our environment
  std::vector<std::string> env_unset;
  std::string working_directory;  // empty: ours
  std::string stdout_path;        // empty: /dev/null
  std::string stderr_path;        // empty: /dev/null
  std::chrono::milliseconds timeout{0};  // 0: none
  std::chrono::milliseconds kill_grace{2000};
};

struct ProcessResult {
  bool started = false;
  std::string start_error;  // why it could not be started
  int exit_code = -1;       // the exit status, or 128 + N when killed by signal N
  int signal = 0;           // N when killed by a signal
  bool timed_out = false;
  bool cancelled = false;
  double wall_ms = 0;
};

ProcessResult run_process(const ProcessSpec& spec, std::stop_token stop = {});

// "exited with code 1", "killed by signal 11 (Segmentation fault)", "timed out after 10 s".
std::string describe(const ProcessResult& r, const ProcessSpec& spec);

// The last `max_bytes` of a file (for error messages), "" when unreadable.
std::string tail_of_file(const std::string& path, std::size_t max_bytes = 2000);

}  // namespace warplens::profile
