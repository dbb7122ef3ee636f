#include "profiler/build_single_file.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/subprocess.h"

namespace warplens::profile {
namespace fs = std::filesystem;

std::string locate_nvcc() {
  std::vector<fs::path> candidates;
  for (const char* var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char* v = std::getenv(var); v && *v) candidates.push_back(fs::path(v) / "bin" / "nvcc");
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (!dir.empty()) candidates.push_back(fs::path(dir) / "nvcc");
  }
  candidates.emplace_back("/usr/local/cuda/bin/nvcc");
  for (const fs::path& c : candidates)
    if (::access(c.c_str(), X_OK) == 0) return c.string();
  return {};
}

BuildResult build_single_file(const BuildOptions& o, std::stop_token stop) {
  BuildResult r;
  std::error_code ec;
  if (!fs::is_regular_file(o.source, ec)) {
    r.message = "cannot read " + o.source + ": no such file";
    return r;
  }
  if (o.arch.empty()) {
    r.message = "no target architecture for nvcc (no GPU detected?)";
    return r;
  }
  std::string nvcc = o.nvcc.empty() ? locate_nvcc() : o.nvcc;
  if (nvcc.empty()) {
    r.message = "nvcc was not found (looked in $CUDA_PATH/bin, $CUDA_HOME/bin, PATH and "
                "/usr/local/cuda/bin): install the CUDA toolkit or set CUDA_PATH";
    return r;
  }
  fs::path source = fs::absolute(o.source, ec);
  fs::path exe = fs::path(o.output_dir) / source.stem();
  r.command = {nvcc, "-lineinfo", "-O3", "-arch=" + o.arch, "-o", exe.string(), source.string()};
  r.command.insert(r.command.end(), o.extra_flags.begin(), o.extra_flags.end());

  ProcessSpec spec;
  spec.argv = r.command;
  spec.stdout_path = (fs::path(o.output_dir) / "nvcc.log").string();
  spec.stderr_path = spec.stdout_path + ".err";
  spec.timeout = o.timeout;
  ProcessResult p = run_process(spec, stop);
  // Both streams, nvcc's own messages and the host compiler's/linker's.
  r.log = tail_of_file(spec.stdout_path, 1 << 20) + tail_of_file(spec.stderr_path, 1 << 20);
  if (!p.started) {
    r.message = p.start_error;
    return r;
  }
  if (p.cancelled || p.timed_out || p.exit_code != 0) {
    if (r.log.find("undefined reference to `main'") != std::string::npos) {
      r.message = source.string() +
                  " has no main(): `warplens profile FILE.cu` builds a self-contained program. "
                  "To profile kernels that a larger program launches, build that program with "
                  "-lineinfo and run `warplens profile -- PROGRAM ARGS...`";
    } else {
      r.message = "nvcc failed to build " + source.string() + " (" + describe_process(p, spec) + ")";
      if (!r.log.empty()) r.message += ":\n" + r.log;
    }
    return r;
  }
  r.ok = true;
  r.executable = exe.string();
  return r;
}

}  // namespace warplens::profile
