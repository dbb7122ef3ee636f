// Finding nvcc, what it can compile for, and which of a compile command's
// flags matter when we recompile a file's device code for resource usage.
#pragma once

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace warplens {

struct NvccToolchain {
  std::string root;                        // "/usr/local/cuda"
  std::string nvcc;                        // "/usr/local/cuda/bin/nvcc"
  std::string version;                     // "13.0"
  std::string version_line;                // "Cuda compilation tools, release 13.0, V13.0.88"
  std::vector<std::string> supported_archs;  // "sm_75", ... ; empty if nvcc could not list them
};

struct NvccLookup {
  std::optional<NvccToolchain> toolchain;
  std::vector<std::string> searched;       // where we looked, in order
  std::string error;                       // why none was usable
  bool refused = false;                    // cudaPath's nvcc exists but is not allowed to run
};

// Looks in `cuda_path` (the setting) only, when it is set; otherwise, in
// order, in $CUDA_PATH, $CUDA_HOME, the directory of `nvcc` on $PATH,
// /usr/local/cuda. A `cuda_path` whose bin/nvcc the driver policy does not
// allow (analysis/driver_policy.h: the environment's toolkit, PATH, or
// `allowed_drivers`) is not run: the lookup fails and says why. The result
// per `cuda_path` and allowlist is cached for the process (nvcc --version
// costs ~50 ms).
NvccLookup find_nvcc(const std::string& cuda_path, const std::vector<std::string>& allowed_drivers = {});

// The architecture to compile for: `requested` when nvcc supports it, else
// the nearest supported one (the oldest newer one, e.g. sm_70 -> sm_75 on
// CUDA 13, which dropped Volta; or the newest, for architectures newer than
// the toolkit). `note` explains a substitution. Empty when nothing fits.
std::string choose_compile_arch(const NvccToolchain& toolchain, const std::string& requested,
                                std::string* note);

struct NvccFlags {
  std::vector<std::string> args;     // what to pass on (nvcc syntax)
  bool relocatable = false;          // -rdc=true / -dc: resource usage needs nvlink
  std::vector<std::string> dropped;  // what we left out, for the hover
};

// Keeps the flags that change device code (include paths, macros, language
// standard, -maxrregcount, -Xptxas, fast math, extended lambdas, the host
// compiler for preprocessing, -rdc) from an nvcc or clang command line;
// drops outputs, inputs, architectures, dependency generation, and -G/-g
// (resource usage is reported for optimised device code). argv[0] may be the
// compiler itself; it is skipped when it does not start with '-'.
NvccFlags nvcc_flags_from_command(const std::vector<std::string>& argv);

// Shell-quoted, for showing a command to the user.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace warplens
