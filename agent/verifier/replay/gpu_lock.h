// Who may use the GPU at the same time. Correctness checks of independent
// candidates may run concurrently (several replay processes), but a timed
// phase must have the GPU to itself: correctness work holds the lock shared,
// timing holds it exclusively. A reader-writer lock between processes on a
// file per GPU (flock), with a turnstile so that a waiting timer is not
// starved by a stream of new correctness phases. Locks die with the process,
// so a killed replay never leaves the GPU locked.
//
// The file: $WARPLENS_GPU_LOCK_DIR (default: the temporary directory)
// /warplens-gpu-<uid>-<PCI bus id>.lock.
#pragma once

#include <cuda.h>

#include <string>

namespace warplens::replay {

class GpuLock {
 public:
  enum class Mode { Shared, Exclusive };
  GpuLock(CUdevice device, Mode mode);
  ~GpuLock();
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;
  double waited_ms() const { return waited_ms_; }
  static std::string path_for(CUdevice device, const char* suffix);

 private:
  int fd_ = -1;
  double waited_ms_ = 0;
};

}  // namespace warplens::replay
