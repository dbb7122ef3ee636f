// The timer both sides share (and the GPU timing test exercises directly).
// One timed run:
//
//   L2 flush (write a buffer larger than twice the L2) -> device-wide sync
//   -> start event -> enqueue the work -> end event -> device-wide sync
//   -> "device" event -> wait
//
// The wait for the end event has a deadline (deadline_s > 0): a kernel that
// runs too long throws KernelHang, so a candidate that hangs only once it
// is being timed is stopped like one that hangs while being checked.
//
// `event_us` (start -> end on the launch stream) is the kernel's time;
// `device_us` (start -> the event recorded after the whole device went idle)
// also counts any work the enqueued code left on other streams, plus the
// host's synchronise round trip. The verdict compares the two gaps of the
// original and the candidate to detect work outside the timed stream.
#pragma once

#include <cstdint>
#include <functional>

#include "agent/verifier/replay/cuda_driver.h"

namespace warplens::replay {

struct TimedRun {
  double event_us = 0;
  double device_us = 0;
};

class Timer {
 public:
  // flush_bytes == 0: twice the device's L2 plus 1 MiB.
  Timer(std::uint64_t l2_bytes, std::uint64_t flush_bytes);
  // deadline_s <= 0: wait as long as it takes.
  TimedRun time(const std::function<void(CUstream)>& enqueue, double deadline_s = 0);
  CUstream stream() const { return stream_.get(); }
  std::uint64_t flush_bytes() const { return flush_bytes_; }

 private:
  std::uint64_t flush_bytes_;
  DeviceBuffer flush_;
  Stream stream_;
  Event start_, end_, device_end_;
  unsigned counter_ = 0;
};

}  // namespace warplens::replay
