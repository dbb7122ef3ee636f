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
// When (config.sass_setup): by default the configuration (profiler
// initialisation, metric ids, SetConfig) is made when a context is created,
// before any module is loaded into it, as in the probe that worked; in
// whole-run mode collection is enabled there too. A failure at that point is
// only logged and the first launch tries again (the `launch` setup, which
// the first H200 run used: records came back, every value 0).
//
// Every flush is converted to plain records (SassFlushBuffer), optionally
// written raw to the dump file (WARPLENS_PROFILE_SASS_DUMP), and ingested
// by profile::ingest_sass_records, whose statistics become the collector's
// counters and warnings.
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
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "profiler/sass_aggregation.h"
#include "profiler/sass_records.h"

namespace warplens::inject {

class CubinStore;
class Recorder;

class SassCollector {
 public:
  SassCollector(Recorder& recorder, CubinStore& cubins);

  bool available() const;

  // Configures SASS metrics for the context's device when the context is
  // created (SassSetup::Context). Failures are logged, not refusals: the
  // first launch tries again. Returns true when configured.
  bool prepare(CUcontext ctx);

  // Per-launch mode. try_acquire() reserves the single measurement slot
  // without blocking (a launch on another thread while one is being
  // measured simply runs unmeasured); begin() configures on first use and
  // enables; end() synchronises, flushes, disables and releases the slot.
  bool try_acquire();
  void release();
  bool begin(CUcontext ctx);
  // `launched` is false when the launch call itself failed (no data expected).
  void end(CUcontext ctx, const std::string& kernel, bool launched);

  // Whole-run mode. `soft`: a failure is logged, not a refusal (used at
  // context creation, retried at the first launch).
  bool enable_whole_run(CUcontext ctx, bool soft = false);
  bool whole_run_enabled() const;
  // A launch ran instrumented in whole-run mode (so the final flush should
  // hold records).
  void note_whole_run_launch();
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
  // All require mu_. `soft`: failures are logged instead of refused.
  bool configure(CUcontext ctx, std::uint32_t* device_index, bool soft);
  bool enable(CUcontext ctx, bool soft);
  // `label` names the flush in logs and the dump; `kernel` (mangled, may be
  // empty) is the launch a per-launch flush holds.
  void flush(CUcontext ctx, const std::string& label, const std::string& kernel, bool expect_records);
  void disable(CUcontext ctx);
  void fail(CUptiResult r, const std::string& step, std::uint32_t device, bool soft);
  void open_dump();

  Recorder& recorder_;
  CubinStore& cubins_;

  std::mutex slot_;                 // held from try_acquire() to end()/release()
  mutable std::mutex mu_;           // everything below
  bool refused_ = false;
  bool profiler_initialized_ = false;
  std::set<std::uint32_t> configured_devices_;
  profile::SassMetricIds metric_ids_;
  std::vector<std::string> metric_names_;
  std::string setup_where_;         // "context" or "launch": where configure() first succeeded
  profile::SassAggregator aggregator_;
  profile::SassFlushStats stats_;
  std::uint64_t flushes_ = 0;
  std::unique_ptr<std::ofstream> dump_;
  bool dump_tried_ = false;
  bool whole_run_enabled_ = false;
  std::uint64_t whole_run_launches_ = 0;
  CUcontext whole_run_ctx_ = nullptr;
  std::set<std::string> empty_flush_kernels_;  // kernels whose flush held no records
};

}  // namespace warplens::inject
