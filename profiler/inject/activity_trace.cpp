#include "profiler/inject/activity_trace.h"

#include <cstdlib>
#include <string>

#include "profiler/inject/recorder.h"

namespace warplens::inject {
namespace {

Recorder* g_recorder = nullptr;
constexpr std::size_t kBufferBytes = 8 << 20;
constexpr std::size_t kAlignment = 8;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kAlignment, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void record_kernel(const CUpti_ActivityKernel10& k) {
  profile::Launch l;
  l.grid = {k.gridX, k.gridY, k.gridZ};
  l.block = {k.blockX, k.blockY, k.blockZ};
  l.registers_per_thread = k.registersPerThread;
  l.static_shared_bytes = k.staticSharedMemory;
  l.dynamic_shared_bytes = k.dynamicSharedMemory;
  l.local_bytes_per_thread = int(k.localMemoryPerThread);
  l.duration_ns = k.end > k.start ? k.end - k.start : 0;
  l.stream = k.streamId;
  l.device = int(k.deviceId);
  g_recorder->add_kernel(k.name ? k.name : "", k.correlationId, l);
}

void CUPTIAPI buffer_completed(CUcontext ctx, std::uint32_t stream_id, std::uint8_t* buffer,
                               std::size_t /*size*/, std::size_t valid_size) {
  if (g_recorder && buffer && valid_size > 0) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
      try {
        switch (record->kind) {
          case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
          case CUPTI_ACTIVITY_KIND_KERNEL:
            record_kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record));
            break;
          case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const auto& m = *reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
            g_recorder->add_memcpy(m.copyKind, m.bytes, m.end > m.start ? m.end - m.start : 0);
            break;
          }
          default: break;
        }
      } catch (...) {
        // Never unwind into CUPTI's thread.
      }
    }
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS && dropped)
      g_recorder->add_dropped_activity(dropped);
  }
  std::free(buffer);
}

}  // namespace

CUptiResult start_activity_trace(Recorder& recorder) {
  g_recorder = &recorder;
  CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS) return r;
  r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (r != CUPTI_SUCCESS) return r;
  return cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
}

void flush_activity_trace() {
  if (g_recorder) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // never started: nothing to flush
}

}  // namespace warplens::inject
