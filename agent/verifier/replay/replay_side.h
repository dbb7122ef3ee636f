// One side of a replay: a kernel (original or candidate) with its own device
// allocations shaped like one captured launch, each inside guard bands
// (poisoned bytes before and after it, checked after every run: a write past
// the end of an allocation lands there instead of in memory nobody checks).
// Launching, and waiting with a deadline.
//
// Each side owns separate allocations, so a candidate can never find the
// original's results in memory it did not write.
//
// A side may launch several steps on its allocations (set_steps): the
// original of a fused candidate launches the producer then the consumer,
// each with its part of the merged record's parameters; the fused candidate
// launches one kernel whose parameters its declaration picks from both parts
// (launch_sequence.h). Without steps, the side launches its function with the
// record's own parameters.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "agent/verifier/launch_geometry.h"
#include "agent/verifier/replay/cuda_driver.h"
#include "profiler/capture_format.h"

namespace warplens::replay {

struct LaunchStep {
  CUfunction function = nullptr;
  verifier::LaunchGeometry geometry;
  // The record's parameter for each of the function's parameters, in order.
  std::vector<int> params;
};

// "" when `step.function`'s parameters (cuFuncGetParamInfo) take
// `step.params` of `record` (same sizes, in order); otherwise what differs.
std::string step_param_mismatch(const LaunchStep& step, const capture::LaunchRecord& record);

class ReplaySide {
 public:
  // guard_bytes 0: exact-size allocations (under compute-sanitizer, which
  // must see every access past an allocation as one).
  ReplaySide(CUfunction f, const capture::LaunchRecord& launch, verifier::LaunchGeometry geometry,
             std::uint64_t guard_bytes);

  void set_function(CUfunction f);  // after the module was loaded anew
  void set_geometry(const verifier::LaunchGeometry& g);
  // The set's raw parameter bytes; pointer words are relocated to this
  // side's allocations.
  void set_params(const std::vector<std::uint8_t>& param_buffer);

  // Enqueues the kernel on `stream` (non-blocking); throws CudaError when
  // the launch is refused.
  void launch(CUstream stream);
  // Waits for everything on `stream` with a deadline; throws KernelHang or
  // CudaError (a fault in the kernel). Returns the wall time in ms.
  double wait(CUstream stream, double deadline_s);

  std::size_t allocations() const { return buffers_.size(); }
  CUdeviceptr ptr(std::size_t a) const { return buffers_.at(a).ptr() + guard_; }  // what the kernel sees
  std::uint64_t bytes(std::size_t a) const { return launch_.allocations.at(a).bytes; }
  std::uint64_t guard_bytes() const { return guard_; }
  CUdeviceptr guard_before(std::size_t a) const { return buffers_.at(a).ptr(); }
  CUdeviceptr guard_after(std::size_t a) const { return ptr(a) + bytes(a); }
  const verifier::LaunchGeometry& geometry() const { return geometry_; }
  const capture::LaunchRecord& launch_record() const { return launch_; }

  // The captured launch's module variables as this side's module defines
  // them (cuFuncGetModule + cuModuleGetGlobal by name): where prepare()
  // writes their captured contents. A variable the module lacks (the
  // compiler dropped it as unused) is not bound; one of another size throws.
  struct ModuleGlobal {
    std::size_t global = 0;  // index into launch_record().globals
    CUdeviceptr ptr = 0;
    std::uint64_t bytes = 0;
  };
  const std::vector<ModuleGlobal>& module_globals() const { return globals_; }

  // Launches `steps` (in order) instead of the constructor's function; throws
  // std::runtime_error when a step's parameters do not fit its function.
  void set_steps(std::vector<LaunchStep> steps);
  // What one launch() enqueues.
  std::vector<verifier::LaunchGeometry> geometries() const;

 private:
  struct StepParams {
    std::vector<std::uint8_t> bytes;  // the step function's own parameter buffer
    std::vector<void*> ptrs;
    std::vector<ParamLayoutEntry> layout;
  };
  void launch_one(CUfunction f, const verifier::LaunchGeometry& g, void** params, CUstream stream);
  void map_step_params();
  void bind_module_globals();

  std::vector<LaunchStep> steps_;
  std::vector<StepParams> step_params_;
  CUfunction f_;
  const capture::LaunchRecord& launch_;
  verifier::LaunchGeometry geometry_;
  std::uint64_t guard_;
  std::vector<DeviceBuffer> buffers_;
  std::vector<ModuleGlobal> globals_;
  std::vector<std::uint8_t> params_;
  std::vector<void*> param_ptrs_;
  Event done_;
  std::chrono::steady_clock::time_point launched_at_;
};

}  // namespace warplens::replay
