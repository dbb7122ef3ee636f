// A fake CUDA driver and CUPTI for running the injection library's code
// (profiler/inject/) without a GPU: the entry points the library calls, with
// the headers' exact signatures, backed by a small model of SASS metrics
// collection. The test drives the library's callbacks by hand and calls
// fake_gpu::run() where the driver would run a kernel.
//
// The model follows what the reference probe saw on the H200: with GPU
// granularity one record per (PC, metric) holding one value; a kernel that
// runs between Enable and Disable adds its values to pending records;
// GetDataProperties counts them, FlushData hands them over (function names
// malloc'd, the caller frees them) and clears them, Disable drops what was
// not flushed. Every call is logged in order, so tests can check the
// sequence the library follows.
//
// The Activity API: once CONCURRENT_KERNEL is enabled, each run() becomes a
// CUpti_ActivityKernel10 record (64 x 64 blocks of 32 x 32 threads, 35 us,
// ten times that when SASS metrics are enabled), handed to the library's
// buffer callbacks at cuptiActivityFlushAll, as CUPTI does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fake_gpu {

struct Instruction {
  std::uint32_t pc = 0;
  int line = 0;  // 0: no line information for this PC
  // Per launch: short metric name (without "smsp__sass_") -> value.
  std::vector<std::pair<std::string, std::uint64_t>> metrics;
};

enum class Values {
  Real,         // what the kernel counted
  AllZero,      // records come back, every value 0
  UnknownIds,   // every value carries metric id 0
};

void reset();
// Defines a kernel (mangled name) of the module the test "loads".
void define_kernel(const std::string& function, std::vector<Instruction> instructions);
void set_values(Values v);
// The driver runs `function` now: counted when SASS metrics are enabled,
// traced when the Activity API is; `correlation_id` is the launch call's.
void run(const std::string& function, std::uint32_t correlation_id = 0);
// The calls so far: "cuptiProfilerInitialize", "cuptiSassMetricsSetConfig",
// "cuptiSassMetricsEnable", "cuptiSassMetricsDisable",
// "cuptiSassMetricsGetDataProperties", "cuptiSassMetricsFlushData",
// "cuCtxSynchronize", "cuptiActivityEnable", "run <function>", plus what
// the test adds with note().
const std::vector<std::string>& calls();
void note(const std::string& event);
// Index of the first call equal to `event` (-1: none).
int first(const std::string& event);

}  // namespace fake_gpu
