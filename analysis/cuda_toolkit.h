// Where the CUDA toolkit is, which version it is, which GPU architecture
// Clang 19 can parse for, and where warplens's own bundled headers live.
//
// Plain C++ (no Clang): the front end turns these facts into clang arguments,
// and the CLI/server can show them (ToolchainStatus) without parsing anything.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace warplens {

struct CudaToolkit {
  bool found = false;
  std::string path;                   // toolkit root, e.g. /usr/local/cuda
  std::string version;                // "13.0"; empty when the headers say nothing
  int version_major = 0;
  int version_minor = 0;
  std::string found_via;              // "setting", "CUDA_PATH", "nvcc on PATH", "default location"
  std::vector<std::string> searched;  // every place looked at, for the "not found" message
  bool has_cccl_dir = false;          // CUDA >= 13 keeps cub/thrust/libcu++ in include/cccl
  bool has_texture_fetch_header = false;  // CUDA 13 removed texture_fetch_functions.h
};

// What locate_cuda_toolkit reads from the environment; injectable for tests.
struct ToolkitSearchEnvironment {
  std::string cuda_path_variable;           // $CUDA_PATH
  std::string path_variable;                // $PATH, searched for nvcc
  std::vector<std::string> default_roots;   // tried last
  static ToolkitSearchEnvironment from_process();
};

// Order: the explicit setting (when non-empty it is the only candidate, so a
// wrong setting is reported rather than silently replaced), $CUDA_PATH, nvcc
// on $PATH (its bin/..), then /usr/local/cuda. A root counts when it has
// include/cuda_runtime.h.
CudaToolkit locate_cuda_toolkit(const std::string& setting);
CudaToolkit locate_cuda_toolkit(const std::string& setting, const ToolkitSearchEnvironment& env);

// Reads CUDA_VERSION from <root>/include/cuda.h (13000 -> {13, 0}).
std::optional<std::pair<int, int>> read_cuda_version(const std::string& root);

// The CUDA SDK version Clang 19's device-side Sema should assume: the
// toolkit's own version, capped at 12.5 (the newest Clang 19 knows). Empty
// when the toolkit's version is unknown and older than 9.2 cannot be ruled out.
std::string clang_target_sdk_version(const CudaToolkit& toolkit);

// ---------------------------------------------------------------- architectures

// "sm_90", "compute_90", "90", "sm_90a", "lto_90" -> "sm_90"/"sm_90a"; empty
// for anything that is not a concrete architecture ("native", "all", junk).
std::string normalize_gpu_arch(const std::string& spelling);

// 90 for "sm_90a"; -1 when not an architecture.
int gpu_arch_number(const std::string& arch);

struct ParseArch {
  std::string requested;  // normalised request (or the raw spelling when invalid)
  std::string parse;      // what Clang 19 is given
  bool clamped = false;   // parse != requested
  std::string reason;     // why, for the cuda-toolkit information finding
};

// Clang 19 knows sm_20 ... sm_90a. Newer architectures parse as sm_90 (the
// device code seen is the same except for `__CUDA_ARCH__` checks); unknown
// in-between numbers round down to the nearest known one; junk falls back to
// sm_90 with a reason.
ParseArch choose_parse_arch(const std::string& requested);

// Picks the architecture a multi-target build should be analysed for: the
// highest one Clang 19 can parse, else the highest one listed.
std::string pick_gpu_arch(const std::vector<std::string>& archs);

// ---------------------------------------------------------------- bundled data

// Directory with warplens's bundled headers (cuda13-shim/, nvcc-compat/, no-toolkit/).
// Order: $WARPLENS_DATA_DIR, <executable dir>/../share/warplens (build tree
// and installs), then the build and source trees this binary was built from.
// Empty when none has the files.
std::string find_data_dir();

// Paths inside the data dir; empty when `data_dir` is empty.
std::string cuda13_shim_dir(const std::string& data_dir);        // texture_fetch_functions.h
std::string nvcc_compat_header(const std::string& data_dir);      // force-included in every parse
std::string openmp_shim_dir(const std::string& data_dir);         // omp.h, for host -fopenmp builds
std::string no_toolkit_include_dir(const std::string& data_dir);  // stub cuda_runtime.h etc.
std::string no_toolkit_prelude(const std::string& data_dir);      // the force-included prelude

}  // namespace warplens
