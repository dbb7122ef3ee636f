// One side of a replay: a kernel (original or candidate) with its own device
// allocations shaped like one captured launch. Uploading an input set,
// launching, waiting with a deadline and reading everything back.
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

#include "agent/verifier/input_generation.h"
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
  ReplaySide(CUfunction f, const capture::LaunchRecord& launch, verifier::LaunchGeometry geometry);

  // Copies `contents[a]` into allocation a; `param_buffer` is the set's raw
  // parameter bytes (pointer words are relocated to this side's buffers).
  void upload(const std::vector<std::vector<std::uint8_t>>& contents, const std::vector<std::uint8_t>& param_buffer);
  void upload_one(std::size_t allocation, const std::vector<std::uint8_t>& contents);
  // Enqueues the kernel on `stream` (non-blocking); throws CudaError when
  // the launch is refused.
  void launch(CUstream stream);
  // Waits for everything on `stream` with a deadline; throws KernelHang or
  // CudaError (a fault in the kernel). Returns the wall time in ms.
  double wait(CUstream stream, double deadline_s);
  void download(std::vector<std::vector<std::uint8_t>>& out) const;
  void download_one(std::size_t allocation, std::vector<std::uint8_t>& out) const;

  std::size_t allocations() const { return buffers_.size(); }
  const verifier::LaunchGeometry& geometry() const { return geometry_; }

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

  std::vector<LaunchStep> steps_;
  std::vector<StepParams> step_params_;
  CUfunction f_;
  const capture::LaunchRecord& launch_;
  verifier::LaunchGeometry geometry_;
  std::vector<DeviceBuffer> buffers_;
  std::vector<std::uint8_t> params_;
  std::vector<void*> param_ptrs_;
  Event done_;
  std::chrono::steady_clock::time_point launched_at_;
};

}  // namespace warplens::replay
