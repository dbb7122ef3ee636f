// Per-instruction metrics through CUPTI's SASS Metrics API, attributed to
// source lines through the captured cubins.
//
// The call order is the one measured to work on an H200 (see
// docs/profile-format.md, "How the data is collected"): a context must exist
// before cuptiProfilerInitialize / cuptiSassMetricsSetConfig, Enable takes
// the context and lazy patching, and data is flushed only after the work
// was synchronised. Under injection the first moment with a context is the
// first launch callback, so configuration happens there.
//
// Two modes (settings.sass_mode):
//   per-launch (default): Enable at the launch's entry, and at its exit
//     synchronise, flush and Disable. Each flush holds exactly one launch,
//     so repeated launches are attributed exactly, and launches outside a
//     bracket run unpatched code (their durations are usable).
//   whole-run: Enable at the first selected launch and flush once when the
//     context is destroyed or the program exits. Every later launch runs
//     instrumented (timings then come from a separate timing pass). A
//     fallback should bracketing misbehave on some driver.
//
// When CUPTI refuses (permissions, unsupported device, ...) the collector
// records a warning and becomes unavailable; the run continues with the
// Activity API only.
#pragma once

#include <cuda.h>
#include <cupti.h>
#include <cupti_sass_metrics.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "profiler/sass_aggregation.h"

namespace warplens::inject {

class CubinStore;
class Recorder;

class SassCollector {
 public:
  SassCollector(Recorder& recorder, CubinStore& cubins);

  bool available() const;

  // Per-launch mode. try_acquire() reserves the single measurement slot
  // without blocking (a launch on another thread while one is being
  // measured simply runs unmeasured); begin() configures on first use and
  // enables; end() synchronises, flushes, disables and releases the slot.
  bool try_acquire();
  void release();
  bool begin(CUcontext ctx);
  // `launched` is false when the launch call itself failed (no data expected).
  void end(CUcontext ctx, const std::string& kernel, bool launched);

  // Whole-run mode.
  bool enable_whole_run(CUcontext ctx);
  bool whole_run_enabled() const;
  // Synchronises `ctx`, flushes and disables (idempotent). Called when the
  // context is about to be destroyed and at exit.
  void finish_whole_run(CUcontext ctx);
  CUcontext whole_run_context() const;

  std::size_t records_flushed() const;
  std::vector<std::string> configured_metrics() const;

  // Adds per-line records and per-kernel counters (kernels selected by the
  // policy only), and warnings about unmapped instructions.
  void contribute(profile::Profile& p) const;

 private:
  bool configure(CUcontext ctx, std::uint32_t* device_index);  // requires mu_
  bool enable(CUcontext ctx);                                   // requires mu_
  void flush(CUcontext ctx, const std::string& kernel, bool expect_records);  // requires mu_
  void disable(CUcontext ctx);                                  // requires mu_
  void refuse(CUptiResult r, const std::string& step, std::uint32_t device);  // requires mu_

  Recorder& recorder_;
  CubinStore& cubins_;

  std::mutex slot_;                 // held from try_acquire() to end()/release()
  mutable std::mutex mu_;           // everything below
  bool refused_ = false;
  bool profiler_initialized_ = false;
  std::set<std::uint32_t> configured_devices_;
  std::map<std::uint64_t, profile::SassMetric> metric_of_id_;
  std::vector<std::string> metric_names_;
  profile::SassAggregator aggregator_;
  std::size_t records_ = 0;
  bool whole_run_enabled_ = false;
  CUcontext whole_run_ctx_ = nullptr;
  std::set<std::string> empty_flush_kernels_;  // kernels whose flush held no records
};

}  // namespace warplens::inject
