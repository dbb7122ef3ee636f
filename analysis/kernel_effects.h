// What a kernel does to the memory behind its pointer parameters, as the
// host sees it: per parameter, whether it is read, written or atomically
// updated and at which byte offsets (through the __device__ functions the
// kernel calls), and whether the kernel is element-wise. Read by the fusion
// analysis (fusion.h) to follow a buffer from one launch to the next.
#pragma once

#include <string>
#include <vector>

#include "analysis/kernel_model.h"

namespace warplens {

struct ParameterAccess {
  AccessKind kind = AccessKind::Load;
  ExprRef byte_offset;         // kernel terms, loop counters renamed by depth (L0, L1, ...); null: unknown
  int element_bytes = 0;
  bool indirect = false;       // the offset depends on per-thread loaded data
  std::string spelling;        // "out[i]" as written
  Range range;
  std::string function;        // the function it is written in (the kernel or a __device__ callee)
};

struct ParameterEffect {
  bool read = false;
  bool written = false;        // plain stores
  bool atomic = false;
  bool unknown = false;        // the pointer escapes (here or in a callee): not every access is visible
  std::vector<ParameterAccess> accesses;
};

struct KernelEffects {
  const Function* kernel = nullptr;
  std::vector<ParameterEffect> params;  // parallel to kernel->params
  bool shared_memory = false;
  bool barriers = false;
  bool truncated = false;      // device calls too deep or recursive: effects may be missing
  // Element-wise: every global access through a pointer parameter is at
  // the same element of a 1-D global thread id (`blockIdx.x * blockDim.x +
  // threadIdx.x`, possibly grid-stride), no pointer escapes, and the kernel
  // uses no shared memory, barriers or atomics. Each thread then reads and
  // writes only "its" element, so the kernel's value at an element can be
  // recomputed anywhere from that element's index.
  bool elementwise = false;
  std::string not_elementwise;  // why not, for explanations
};

KernelEffects kernel_effects(const KernelModel& model, const Function& kernel);

// Polynomial form of `blockIdx.x * blockDim.x + threadIdx.x` (+ the
// grid-stride term `blockDim.x * gridDim.x * L`) check used for
// `elementwise`: true when `byte_offset` is `element_bytes` times a 1-D global
// thread id.
bool is_global_thread_offset(const ExprRef& byte_offset, int element_bytes);

}  // namespace warplens
