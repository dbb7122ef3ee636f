// The replay's buffer work: poison, fresh inputs, comparison, guard checks,
// hashes, on buffers in device memory, each enqueued on the caller's stream.
// Two implementations with the same results (element_ops.h):
//   device  GPU kernels built at build time and embedded in warplens-replay
//           (replay_kernels.cu); only a few bytes come back to the host
//   host    downloads the buffers and loops over them on the host: the
//           pre-change method, kept for comparison (bench/) and as the
//           fallback when the kernels cannot be loaded
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>

#include "agent/verifier/compare.h"
#include "agent/verifier/replay_protocol.h"

namespace warplens::replay {

class BufferOps {
 public:
  virtual ~BufferOps() = default;
  virtual std::string name() const = 0;  // "device" or "host"
  // Poison `which` (0: A, 1: B) over [dst, dst + bytes).
  virtual void poison(CUdeviceptr dst, std::uint64_t bytes, verifier::BufferLayout layout, int which, CUstream s) = 0;
  // dst = a fresh re-draw of src (same size; bytes outside whole elements copied).
  virtual void redraw(CUdeviceptr dst, CUdeviceptr src, std::uint64_t bytes, verifier::BufferLayout layout,
                      std::uint64_t seed, CUstream s) = 0;
  // verifier::compare_buffers on device buffers (pref may be 0).
  virtual verifier::BufferComparison compare(CUdeviceptr expected, CUdeviceptr got, CUdeviceptr pref,
                                             std::uint64_t bytes, verifier::BufferLayout layout,
                                             const verifier::Tolerance& tol, const verifier::CompareOptions& options,
                                             CUstream s) = 0;
  // Bytes of [p, p + bytes) that are not `value`, and the first one's offset.
  virtual std::uint64_t count_not(CUdeviceptr p, std::uint64_t bytes, std::uint8_t value, std::uint64_t* first,
                                  CUstream s) = 0;
  virtual std::uint64_t hash(CUdeviceptr p, std::uint64_t bytes, CUstream s) = 0;
};

// `pipeline` "device" (the kernels; the host loops with `note` set when they
// cannot be loaded) or "host".
std::unique_ptr<BufferOps> make_buffer_ops(const std::string& pipeline, const verifier::DeviceSummary& device,
                                           std::string* note);

}  // namespace warplens::replay
