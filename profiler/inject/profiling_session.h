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

  // Registers with the dispatcher and starts the Activity API. Call from
  // InitializeInjection, before CallbackDispatcher::start().
  void attach(CallbackDispatcher& dispatcher);
  void start_activity();

  void on_launch(const LaunchCallback& cb);
  void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData& data);

  // Flushes everything and writes the profile (once; later calls do nothing).
  void finish();

 private:
  Recorder recorder_;
  CubinStore cubins_;
  SassCollector sass_;
  std::atomic<bool> finished_{false};
};

}  // namespace warplens::inject
