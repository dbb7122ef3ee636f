// Running a tool (nvcc) as a child process that can be cancelled.
//
// The child runs in its own process group, so cancelling kills the whole
// tree (nvcc starts cicc, ptxas, gcc, ...), not just the driver. Output is
// collected from pipes while waiting; the call blocks until the child has
// exited and been reaped. POSIX only.
#pragma once

#include <chrono>
#include <stop_token>
#include <string>
#include <vector>

namespace warplens {

struct ProcessRequest {
  std::vector<std::string> argv;        // argv[0] is the program (absolute path or on PATH)
  std::string working_directory;        // empty = inherit
  std::chrono::milliseconds timeout{0}; // 0 = none
  std::size_t max_output_bytes = 8u << 20;  // per stream; the rest is dropped
};

struct ProcessResult {
  bool started = false;     // false: could not spawn (see error)
  int exit_code = -1;       // valid when exited normally
  int term_signal = 0;      // non-zero when killed by a signal
  bool cancelled = false;   // stop was requested; the tree was killed
  bool timed_out = false;   // the timeout passed; the tree was killed
  std::string out;          // stdout
  std::string err;          // stderr
  std::string error;        // spawn failure
  double wall_ms = 0;

  bool succeeded() const { return started && !cancelled && !timed_out && term_signal == 0 && exit_code == 0; }
};

ProcessResult run_process(const ProcessRequest& request, std::stop_token stop = {});

}  // namespace warplens
