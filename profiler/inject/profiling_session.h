// One profiled process: wires the callbacks to the recorder, the cubin
// store and the SASS collector, decides per launch whether to measure it,
// and writes the profile at exit.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "profiler/inject/callback_dispatch.h"
#include "profiler/inject/cubin_store.h"
#include "profiler/inject/recorder.h"
#include "profiler/inject/sass_collector.h"

namespace warplens::inject {

class ProfilingSession {
 public:
  explicit ProfilingSession(profile::InjectionConfig config);

  Recorder& recorder() { return recorder_; }

  // Registers with the dispatcher. Call from InitializeInjection, before
  // CallbackDispatcher::start().
  void attach(CallbackDispatcher& dispatcher);
  // Starts the Activity API when the configuration asks for it (the timing
  // pass) and leaves it off otherwise (the metrics pass: with both on in one
  // process CUPTI 13.0 returned every SASS value as 0 on an H200). Both on,
  // set by hand, runs with the warning `sass-with-activity`.
  void start_activity();

  void on_launch(const LaunchCallback& cb);
  void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData& data);
  void on_context_created(CUcontext ctx);

  // Flushes everything and writes the profile (once; later calls do nothing).
  void finish();

 private:
  Recorder recorder_;
  CubinStore cubins_;
  SassCollector sass_;
  std::atomic<bool> finished_{false};
  bool activity_started_ = false;
};

}  // namespace warplens::inject
