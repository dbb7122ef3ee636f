#include "agent/verifier/replay/replay_side.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace warplens::replay {

std::string step_param_mismatch(const LaunchStep& step, const capture::LaunchRecord& record) {
  const auto layout = param_layout(step.function);
  if (layout.size() != step.params.size())
    return "the kernel takes " + std::to_string(layout.size()) + " parameter(s), the declaration passes " +
           std::to_string(step.params.size());
  for (std::size_t k = 0; k < layout.size(); ++k) {
    const int src = step.params[k];
    if (src < 0 || static_cast<std::size_t>(src) >= record.params.size())
      return "parameter " + std::to_string(k) + " comes from a parameter the captured launches do not have";
    if (record.params[static_cast<std::size_t>(src)].size != layout[k].size)
      return "parameter " + std::to_string(k) + " is " + std::to_string(layout[k].size) + " bytes, its source (" +
             std::to_string(src) + " of the captured launches) is " +
             std::to_string(record.params[static_cast<std::size_t>(src)].size);
  }
  return "";
}

ReplaySide::ReplaySide(CUfunction f, const capture::LaunchRecord& launch, verifier::LaunchGeometry geometry,
                       std::uint64_t guard_bytes)
    : f_(nullptr), launch_(launch), geometry_(geometry), guard_((guard_bytes + 4095) / 4096 * 4096) {
  buffers_.reserve(launch.allocations.size());
  // The band before keeps the kernel's pointer at least 4 KiB-aligned, as
  // good as the allocation it stands for.
  for (const auto& a : launch.allocations) buffers_.emplace_back(a.bytes + 2 * guard_);
  set_function(f);
}

void ReplaySide::bind_module_globals() {
  globals_.clear();
  if (launch_.globals.empty()) return;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> functions;
  if (steps_.empty()) functions.push_back(f_);
  for (const auto& st : steps_) functions.push_back(st.function);
  for (CUfunction f : functions) {
    CUmodule m = nullptr;
    if (!f) continue;
    check(cuFuncGetModule(&m, f), "cuFuncGetModule");
    if (std::find(modules.begin(), modules.end(), m) == modules.end()) modules.push_back(m);
  }
  for (std::size_t g = 0; g < launch_.globals.size(); ++g) {
    const capture::ModuleGlobalRecord& rec = launch_.globals[g];
    for (CUmodule m : modules) {
      CUdeviceptr p = 0;
      std::size_t bytes = 0;
      if (cuModuleGetGlobal(&p, &bytes, m, rec.name.c_str()) != CUDA_SUCCESS) continue;
      if (bytes != rec.bytes)
        throw std::runtime_error("module variable `" + rec.name + "` has " + std::to_string(bytes) +
                                 " bytes in the compiled module, " + std::to_string(rec.bytes) + " in the capture");
      globals_.push_back({g, p, rec.bytes});
    }
  }
}

void ReplaySide::set_function(CUfunction f) {
  f_ = f;
  if (steps_.size() == 1) steps_[0].function = f;  // a candidate with its own parameters (a fused kernel)
  bind_module_globals();
  if (geometry_.dynamic_shared_bytes > 48 * 1024)
    check(cuFuncSetAttribute(f_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(geometry_.dynamic_shared_bytes)),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
}

// A side of several steps (a launch sequence's original) keeps each step's
// own shape: sequences have no shape variations.
void ReplaySide::set_geometry(const verifier::LaunchGeometry& g) {
  geometry_ = g;
  if (steps_.size() == 1) steps_[0].geometry = g;
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
  map_step_params();
}

void ReplaySide::set_steps(std::vector<LaunchStep> steps) {
  steps_ = std::move(steps);
  step_params_.assign(steps_.size(), {});
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    const LaunchStep& st = steps_[i];
    if (std::string why = step_param_mismatch(st, launch_); !why.empty())
      throw std::runtime_error("launch step " + std::to_string(i) + ": " + why);
    step_params_[i].layout = param_layout(st.function);
    if (st.geometry.dynamic_shared_bytes > 48 * 1024)
      check(cuFuncSetAttribute(st.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               static_cast<int>(st.geometry.dynamic_shared_bytes)),
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  }
  bind_module_globals();
  if (!params_.empty()) map_step_params();
}

// Each step's own buffer: its parameters' bytes copied from their source
// parameters of the (relocated) record buffer; sizes were checked in set_steps.
void ReplaySide::map_step_params() {
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    StepParams& sp = step_params_[i];
    std::uint64_t end = 0;
    for (const auto& e : sp.layout) end = std::max(end, e.offset + e.size);
    sp.bytes.assign(end, 0);
    sp.ptrs.assign(sp.layout.size(), nullptr);
    for (std::size_t k = 0; k < sp.layout.size(); ++k) {
      const auto& src = launch_.params[static_cast<std::size_t>(steps_[i].params[k])];
      std::memcpy(sp.bytes.data() + sp.layout[k].offset, params_.data() + src.offset, sp.layout[k].size);
      sp.ptrs[k] = sp.bytes.data() + sp.layout[k].offset;
    }
  }
}

std::vector<verifier::LaunchGeometry> ReplaySide::geometries() const {
  if (steps_.empty()) return {geometry_};
  std::vector<verifier::LaunchGeometry> out;
  for (const auto& s : steps_) out.push_back(s.geometry);
  return out;
}

void ReplaySide::launch(CUstream stream) {
  if (steps_.empty()) {
    launch_one(f_, geometry_, param_ptrs_.empty() ? nullptr : param_ptrs_.data(), stream);
  } else {
    for (std::size_t i = 0; i < steps_.size(); ++i)
      launch_one(steps_[i].function, steps_[i].geometry,
                 step_params_[i].ptrs.empty() ? nullptr : step_params_[i].ptrs.data(), stream);
  }
  launched_at_ = std::chrono::steady_clock::now();
}

void ReplaySide::launch_one(CUfunction fn, const verifier::LaunchGeometry& g, void** params, CUstream stream) {
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
    check(cuLaunchKernelEx(&config, fn, params, nullptr), "cuLaunchKernelEx");
  } else {
    check(cuLaunchKernel(fn, g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2],
                         g.dynamic_shared_bytes, stream, params, nullptr),
          "cuLaunchKernel");
  }
}

double ReplaySide::wait(CUstream stream, double deadline_s) {
  check(cuEventRecord(done_.get(), stream), "cuEventRecord");
  wait_for_event(done_.get(), launched_at_, deadline_s);
  // Surface errors from work on other streams too (e.g. child grids).
  check(cuCtxSynchronize(), "kernel execution");
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - launched_at_).count();
}

}  // namespace warplens::replay
