// Running the verifier's tools (nvcc, warplens-replay, python3, the program
// being captured) through common/subprocess.h (own process group, time
// limit, cancellation, output in files), with their output kept as log files
// in the work directory and read back for messages.
#pragma once

#include <filesystem>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "common/subprocess.h"

namespace warplens::verifier {

struct ToolSpec {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::filesystem::path cwd;             // empty: ours
  double timeout_s = 0;                  // 0: none
  std::filesystem::path log_stem;        // output in <stem>.out and <stem>.err
  std::size_t read_limit = 4u << 20;     // bytes read back from each log
};

struct ToolRun {
  ProcessResult process;
  std::string description;               // "nvcc exited with code 1", "... timed out after 10 s ..."
  std::string out;                       // stdout (up to read_limit)
  std::string err;                       // stderr (up to read_limit)
  bool succeeded() const {
    return process.started && !process.timed_out && !process.cancelled && process.signal == 0 &&
           process.exit_code == 0;
  }
};

ToolRun run_tool(const ToolSpec& spec, std::stop_token stop = {});

// A program name searched on PATH (or a path checked for execute
// permission); empty when not found.
std::string find_on_path(const std::string& name);
// Directory of the running executable (/proc/self/exe).
std::filesystem::path self_executable_dir();

}  // namespace warplens::verifier
