// Running a child process (nvcc, warplens-replay, python3, the user's
// program under the injection library) with a time limit, cancellation and
// captured output. The child gets its own process group, so a timeout or a
// cancel kills it and everything it started (nvcc's cicc/ptxas).
//
// Safe to call from a multi-threaded process: everything the child needs
// (argv, envp, resolved path) is built before fork; the child only calls
// async-signal-safe functions before execve.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

namespace warplens::verifier {

struct ProcessSpec {
  std::vector<std::string> argv;                              // argv[0]: a path or a name on PATH
  std::vector<std::pair<std::string, std::string>> env;       // added or overridden
  std::vector<std::string> unset_env;
  std::filesystem::path cwd;                                  // empty: inherit
  double timeout_s = 0;                                       // 0: none
  std::size_t output_limit = 256 * 1024;                      // bytes kept of stdout and of stderr
  bool stdout_to_stderr = false;  // forward the child's stdout to our stderr (never our stdout: it may be LSP)
};

struct ProcessResult {
  bool started = false;       // false: could not run at all (see start_error)
  std::string start_error;
  int exit_code = -1;         // when it exited
  int signal = 0;             // when a signal ended it
  bool timed_out = false;     // we killed it at the time limit
  bool cancelled = false;     // we killed it because stop was requested
  std::string out;            // captured stdout (first output_limit bytes)
  std::string err;            // captured stderr
  double wall_ms = 0;

  bool succeeded() const { return started && !timed_out && !cancelled && signal == 0 && exit_code == 0; }
  std::string describe() const;  // "exit code 2", "killed by signal 11 (SIGSEGV)", "timed out after 10 s"
};

ProcessResult run_process(const ProcessSpec& spec, std::stop_token stop = {});

// A program name searched on PATH; empty when not found.
std::string find_on_path(const std::string& name);
// Directory of the running executable (/proc/self/exe).
std::filesystem::path self_executable_dir();

}  // namespace warplens::verifier
