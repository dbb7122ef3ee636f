// Running a child process (nvcc, ptxas, the profiled program, warplens-replay,
// nvidia-smi, python3) that can be timed out and cancelled: the one
// subprocess helper every layer uses.
//
// The child leads its own process group, so a timeout or a cancellation ends
// everything it started (nvcc starts cicc, ptxas, gcc, ...): SIGTERM to the
// group, then SIGKILL after `kill_grace`. Its stdin is /dev/null; its stdout
// and stderr are captured into the result, written to files, or dropped —
// never ours, which may be the LSP channel. Signal dispositions and the
// signal mask are reset to the defaults whatever the server set for itself.
// The call blocks until the child has exited and been reaped. POSIX only.
#pragma once

#include <chrono>
#include <cstddef>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

namespace warplens {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] without '/' is looked up in PATH
  std::vector<std::pair<std::string, std::string>> env_set;  // on top of our environment
  std::vector<std::string> env_unset;
  std::string working_directory;  // empty: ours
  // Output: `capture_output` keeps both streams in the result (each up to
  // `max_captured_bytes`; the rest is read and dropped). Otherwise each
  // goes to its file (created or truncated), or to /dev/null when empty.
  bool capture_output = false;
  std::size_t max_captured_bytes = 8u << 20;
  std::string stdout_path;
  std::string stderr_path;
  std::chrono::milliseconds timeout{0};  // 0: none
  std::chrono::milliseconds kill_grace{2000};
};

struct ProcessResult {
  bool started = false;
  std::string start_error;  // why it could not be started
  int exit_code = -1;       // the exit status, or 128 + N when killed by signal N
  int signal = 0;           // N when killed by a signal
  bool timed_out = false;
  bool cancelled = false;   // stop was requested; the group was ended
  double wall_ms = 0;
  std::string out, err;     // with capture_output
  bool succeeded() const { return started && !cancelled && !timed_out && signal == 0 && exit_code == 0; }
};

ProcessResult run_process(const ProcessSpec& spec, std::stop_token stop = {});

// "exited with code 1", "killed by signal 11 (Segmentation fault)", "timed out after 10 s".
std::string describe_process(const ProcessResult& r, const ProcessSpec& spec);

// The last `max_bytes` of a file (for error messages), "" when unreadable.
std::string tail_of_file(const std::string& path, std::size_t max_bytes = 2000);

}  // namespace warplens
