// `warplens profile FILE.cu`: builds a self-contained CUDA program (a .cu
// file with main) so it can be profiled, with the flags per-line metrics
// need: -lineinfo (the cubin's line table maps instructions to lines), -O3
// (profile the code that would really run) and -arch for the GPU at hand
// (native SASS, no JIT from PTX).
#pragma once

#include <chrono>
#include <stop_token>
#include <string>
#include <vector>

namespace warplens::profile {

struct BuildOptions {
  std::string source;                     // the .cu file
  std::string arch;                       // "sm_90"; required (see probe_gpus)
  std::string output_dir;                 // where the executable goes (must exist)
  std::vector<std::string> extra_flags;   // appended to nvcc's command line (-I, -l, -D, ...)
  std::string nvcc;                       // empty: locate_nvcc()
  std::chrono::seconds timeout{300};
};

struct BuildResult {
  bool ok = false;
  std::string executable;                 // when ok
  std::vector<std::string> command;       // the nvcc command line that ran
  std::string message;                    // why it failed, for the user
  std::string log;                        // nvcc's output (stdout and stderr)
};

BuildResult build_single_file(const BuildOptions& options, std::stop_token stop = {});

// nvcc from $CUDA_PATH/bin, $CUDA_HOME/bin, PATH, then /usr/local/cuda/bin.
// Returns "" when none is found.
std::string locate_nvcc();

}  // namespace warplens::profile
