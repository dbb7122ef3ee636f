// Compiling a kernel source to a cubin for the GPU's own architecture with
// nvcc: `-cubin -arch=sm_XX -O3 -lineinfo`, include directories from the
// source's own directory. Sources that launch kernels from device code
// (dynamic parallelism) need relocatable device code: when nvcc says so, the
// source is compiled with -rdc=true and device-linked with cudadevrt into a
// loadable cubin.
#pragma once

#include <filesystem>
#include <stop_token>
#include <string>
#include <vector>

namespace warplens::verifier {

struct CompileRequest {
  std::filesystem::path source;
  std::filesystem::path output;             // the cubin to write
  std::string arch;                         // "sm_90"
  std::vector<std::string> include_dirs;    // besides the source's directory
  std::vector<std::string> extra_flags;
  std::string nvcc;                         // empty: find_nvcc("")
  double timeout_s = 180;
};

struct CompileResult {
  bool ok = false;
  bool relocatable = false;                 // built with -rdc=true + device link
  std::string command;                      // the (last) nvcc command line
  std::string log;                          // nvcc's diagnostics
  double ms = 0;
  bool cancelled = false;
};

CompileResult compile_to_cubin(const CompileRequest& request, std::stop_token stop = {});

// `configured` if set, else $CUDA_PATH/bin/nvcc, /usr/local/cuda/bin/nvcc,
// nvcc on PATH; empty when none exists.
std::string find_nvcc(const std::string& configured);

// True when nvcc's log asks for relocatable device code.
bool needs_relocatable_device_code(const std::string& nvcc_log);

}  // namespace warplens::verifier
