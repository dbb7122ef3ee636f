#include "agent/verifier/replay/replay_timer.h"

#include <chrono>

namespace warplens::replay {

namespace {
std::uint64_t choose_flush_bytes(std::uint64_t l2_bytes, std::uint64_t requested) {
  std::uint64_t bytes = requested ? requested : 2 * l2_bytes + (1u << 20);
  if (bytes < (8u << 20)) bytes = 8u << 20;
  return (bytes + 3) / 4 * 4;
}
}  // namespace

Timer::Timer(std::uint64_t l2_bytes, std::uint64_t flush_bytes)
    : flush_bytes_(choose_flush_bytes(l2_bytes, flush_bytes)), flush_(flush_bytes_) {}

TimedRun Timer::time(const std::function<void(CUstream)>& enqueue, double deadline_s) {
  CUstream s = stream_.get();
  // A different value each time, so the writes cannot be elided.
  check(cuMemsetD32Async(flush_.ptr(), 0x5eed0000u + (counter_++ & 0xffffu), flush_bytes_ / 4, s), "L2 flush");
  check(cuCtxSynchronize(), "cuCtxSynchronize (before run)");
  check(cuEventRecord(start_.get(), s), "cuEventRecord(start)");
  const auto enqueued = std::chrono::steady_clock::now();
  enqueue(s);
  check(cuEventRecord(end_.get(), s), "cuEventRecord(end)");
  // Busy polling (no sleeps): the host notices the end as soon as
  // cuCtxSynchronize would, so device_us keeps its meaning.
  if (deadline_s > 0) wait_for_event(end_.get(), enqueued, deadline_s, false);
  check(cuCtxSynchronize(), "cuCtxSynchronize (after run)");
  check(cuEventRecord(device_end_.get(), s), "cuEventRecord(device end)");
  check(cuEventSynchronize(device_end_.get()), "cuEventSynchronize");
  float ms = 0, device_ms = 0;
  check(cuEventElapsedTime(&ms, start_.get(), end_.get()), "cuEventElapsedTime");
  check(cuEventElapsedTime(&device_ms, start_.get(), device_end_.get()), "cuEventElapsedTime");
  return {ms * 1000.0, device_ms * 1000.0};
}

}  // namespace warplens::replay
