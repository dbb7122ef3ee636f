#include "agent/verifier/replay/replay_side.h"

#include <cstring>

namespace warplens::replay {

ReplaySide::ReplaySide(CUfunction f, const capture::LaunchRecord& launch, verifier::LaunchGeometry geometry,
                       std::uint64_t guard_bytes)
    : f_(nullptr), launch_(launch), geometry_(geometry), guard_((guard_bytes + 4095) / 4096 * 4096) {
  buffers_.reserve(launch.allocations.size());
  // The band before keeps the kernel's pointer at least 4 KiB-aligned, as
  // good as the allocation it stands for.
  for (const auto& a : launch.allocations) buffers_.emplace_back(a.bytes + 2 * guard_);
  set_function(f);
}

void ReplaySide::set_function(CUfunction f) {
  f_ = f;
  if (geometry_.dynamic_shared_bytes > 48 * 1024)
    check(cuFuncSetAttribute(f_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(geometry_.dynamic_shared_bytes)),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
}

void ReplaySide::set_geometry(const verifier::LaunchGeometry& g) {
  geometry_ = g;
  set_function(f_);
}

void ReplaySide::set_params(const std::vector<std::uint8_t>& param_buffer) {
  params_ = param_buffer;
  for (const auto& p : launch_.pointers) {
    std::uint64_t address = ptr(static_cast<std::size_t>(p.allocation)) + p.offset_in_allocation;
    std::memcpy(params_.data() + p.buffer_offset, &address, sizeof address);
  }
  param_ptrs_.assign(launch_.params.size(), nullptr);
  for (std::size_t i = 0; i < launch_.params.size(); ++i) param_ptrs_[i] = params_.data() + launch_.params[i].offset;
}

void ReplaySide::launch(CUstream stream) {
  void** params = param_ptrs_.empty() ? nullptr : param_ptrs_.data();
  const auto& g = geometry_;
  const bool cluster = launch_.cluster[0] > 0;
  if (cluster || launch_.cooperative) {
    CUlaunchAttribute attrs[2];
    unsigned n = 0;
    if (cluster) {
      attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attrs[n].value.clusterDim.x = launch_.cluster[0];
      attrs[n].value.clusterDim.y = launch_.cluster[1];
      attrs[n].value.clusterDim.z = launch_.cluster[2];
      ++n;
    }
    if (launch_.cooperative) {
      attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      attrs[n].value.cooperative = 1;
      ++n;
    }
    CUlaunchConfig config{};
    config.gridDimX = g.grid[0];
    config.gridDimY = g.grid[1];
    config.gridDimZ = g.grid[2];
    config.blockDimX = g.block[0];
    config.blockDimY = g.block[1];
    config.blockDimZ = g.block[2];
    config.sharedMemBytes = g.dynamic_shared_bytes;
    config.hStream = stream;
    config.attrs = attrs;
    config.numAttrs = n;
    check(cuLaunchKernelEx(&config, f_, params, nullptr), "cuLaunchKernelEx");
  } else {
    check(cuLaunchKernel(f_, g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2],
                         g.dynamic_shared_bytes, stream, params, nullptr),
          "cuLaunchKernel");
  }
  launched_at_ = std::chrono::steady_clock::now();
}

double ReplaySide::wait(CUstream stream, double deadline_s) {
  check(cuEventRecord(done_.get(), stream), "cuEventRecord");
  wait_for_event(done_.get(), launched_at_, deadline_s);
  // Surface errors from work on other streams too (e.g. child grids).
  check(cuCtxSynchronize(), "kernel execution");
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - launched_at_).count();
}

}  // namespace warplens::replay
