// Per-function resource usage (registers, shared memory, stack, spills,
// barriers) of a translation unit's device code, by compiling it with nvcc.
//
// Threading: compute_resource_usage() is synchronous and takes ~0.4-1.5 s
// on a cache miss (nvcc). It never touches shared state except the cache
// (thread-safe), so the server runs it on a worker thread, after the parse,
// and passes a std::stop_token: a request for stop kills nvcc's whole
// process tree and returns promptly with status Cancelled. Never call it on
// the thread that handles typing.
//
// How the file is compiled (tested in core_resource_nvcc_test.cpp):
// - The current text (possibly an unsaved buffer) is written to a private
//   temporary directory under the original file name, prefixed with
//   `#line 1 "<original path>"`, and compiled with `-I<directory of the
//   original>` first, so `#include "x.h"` resolves as it would next to the
//   original and nvcc's messages name the original path. (nvcc cannot read
//   source from stdin usefully: it copies stdin to /tmp, which breaks quoted
//   includes.) The user's file and directory are never written.
// - `nvcc -cubin -arch=<arch> -Xptxas -v <flags> -MD -MF deps.d`: device
//   code only (0.4 s instead of 1.4 s for -c), the compile command's flags
//   filtered by nvcc_flags_from_command(), run in the compile command's
//   directory so relative -I paths work.
// - With -rdc: the same with -rdc=true (ptxas per function: spills), then
//   `nvcc --resource-usage -dlink` on the cubin for nvlink's final register,
//   stack and shared-memory numbers. If linking needs symbols from other
//   translation units, the ptxas numbers are kept with a warning.
// - Cached by command + text + headers read (resource_cache.h).
#pragma once

#include <chrono>
#include <stop_token>
#include <string>
#include <vector>

#include "analysis/ptxas_report.h"
#include "analysis/resource_cache.h"

namespace warplens {

struct ResourceUsageRequest {
  std::string path;                       // absolute path of the file
  std::string text;                       // its current contents
  std::string arch = "sm_90";             // AnalysisOptions::arch ("sm_90", "sm_90a", ...)
  std::string cuda_path;                  // AnalysisOptions::cuda_path; empty = search
  std::vector<std::string> compile_args;  // the file's compile command (nvcc or clang), or
                                          // just extra flags; filtered by nvcc_flags_from_command
  std::string working_directory;          // the compile command's directory; empty = the file's
  std::chrono::seconds timeout{120};
  // AnalysisOptions::allowed_drivers: which nvcc (cudaPath) and -ccbin may
  // run (analysis/driver_policy.h). Flags naming other programs are dropped.
  std::vector<std::string> allowed_drivers;
};

enum class ResourceUsageStatus : std::uint8_t {
  Ok,              // functions filled (diagnostics may hold warnings)
  BuildFailed,     // nvcc reported errors: see diagnostics, command
  NvccNotFound,    // no CUDA toolkit: see message
  NotAllowed,      // cudaPath's nvcc is not allowed to run (driver_policy.h): see message
  ArchUnsupported, // neither the arch nor a substitute can be compiled
  Cancelled,
  TimedOut,
  Failed,          // could not run nvcc at all (temp files, spawn): see message
};
const char* to_string(ResourceUsageStatus s);

struct ResourceUsageResult {
  ResourceUsageStatus status = ResourceUsageStatus::Failed;
  std::string message;                 // one line for non-Ok statuses
  std::string requested_arch;
  std::string compiled_arch;           // may differ: see arch_note
  std::string arch_note;               // why compiled_arch differs
  std::string nvcc_path;
  std::string cuda_version;            // "13.0"
  // One record per function of this translation unit (kernels and non-inlined
  // device functions). With -rdc, registers/stack/shared memory are nvlink's
  // final numbers with the per-block reservation removed, and spills ptxas'.
  std::vector<FunctionResources> functions;
  std::vector<ToolDiagnostic> diagnostics;  // errors first is not guaranteed: printed order
  std::string command;                 // what ran, shell-quoted, showing the original path
  std::string raw_output;              // the tools' output, verbatim
  bool relocatable = false;            // compiled with -rdc
  // Flags of the compile command that were not passed on because they would
  // run a program nobody allowed (-ccbin ./tools/cc, -Xcompiler -B...): one
  // line each, for the user.
  std::vector<std::string> refused_flags;
  bool from_cache = false;
  double wall_ms = 0;                  // this call, cache lookup included
};

ResourceUsageResult compute_resource_usage(const ResourceUsageRequest& request, std::stop_token stop = {},
                                           ResourceCache* cache = &default_resource_cache());

}  // namespace warplens
