#include "profiler/inject/profiling_session.h"

#include <unistd.h>

#include <chrono>

#include "profiler/demangle.h"
#include "profiler/inject/activity_trace.h"
#include "profiler/inject/cupti_status.h"
#include "profiler/inject/inject_log.h"
#include "profiler/injection_config.h"

namespace warplens::inject {
namespace {

// The launch being handled on this thread, from its entry to its exit
// callback (the dispatcher delivers one driver launch at a time per thread).
struct PendingLaunch {
  CUcontext ctx = nullptr;    // the context the bracket was opened on
  bool measuring = false;     // per-launch SASS bracket open
  bool instrumented = false;  // whole-run mode: runs patched code
  std::uint64_t index = 0;
  std::chrono::steady_clock::time_point start;
};
thread_local PendingLaunch t_pending;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

ProfilingSession::ProfilingSession(profile::InjectionConfig config)
    : recorder_(std::move(config)), sass_(recorder_, cubins_) {}

void ProfilingSession::attach(CallbackDispatcher& dispatcher) {
  dispatcher.on_launch([this](const LaunchCallback& cb) { on_launch(cb); });
  dispatcher.on_resource(
      [this](CUpti_CallbackId id, const CUpti_ResourceData& data) { on_resource(id, data); });
}

void ProfilingSession::start_activity() {
  const profile::InjectionConfig& config = recorder_.config();
  if (!config.activity) {
    log_detail("Activity API off (%s pass): launch counts from the callbacks, no durations",
               config.pass.c_str());
    return;
  }
  if (config.settings.metrics)
    recorder_.warn("sass-with-activity",
                   std::string(profile::env::kActivity) +
                       "=1 with SASS metrics on: both in one process returned every SASS value as 0 "
                       "on an H200 with CUDA 13.0 (per-line data is then missing); warplens profile "
                       "runs them in separate passes");
  if (CUptiResult r = start_activity_trace(recorder_); r != CUPTI_SUCCESS) {
    recorder_.warn("activity-unavailable",
                   "the CUPTI Activity API could not be enabled (" + describe(r) +
                       "): kernel durations and launch data are missing");
    return;
  }
  activity_started_ = true;
}

void ProfilingSession::on_launch(const LaunchCallback& cb) {
  const std::string name = cb.kernel_name();
  if (name.empty()) return;  // nothing to attribute it to
  const profile::Settings& settings = recorder_.config().settings;
  CUcontext ctx = cb.context();
  PendingLaunch& t = t_pending;

  if (cb.site == CUPTI_API_EXIT) {
    std::vector<std::uint32_t> ids = {cb.data->correlationId, cb.runtime_correlation_id};
    const bool launched = cb.succeeded();
    if (t.measuring) {
      t.measuring = false;
      sass_.end(t.ctx, name, launched);  // disables even when the launch failed
      if (launched) recorder_.mark_instrumented(name, ids, t.index);
      recorder_.policy().add_overhead_ms(ms_since(t.start));
    } else if (t.instrumented && launched) {
      recorder_.mark_instrumented(name, ids, t.index);
    }
    t.instrumented = false;
    return;
  }

  t = {};
  // A runtime-level callback (dispatcher fallback) may come before the
  // context exists; the current one is the launch's once it does.
  if (!ctx) cuCtxGetCurrent(&ctx);
  if (!ctx) {
    recorder_.policy().on_launch(name, false);  // counted, not measurable
    return;
  }
  t.ctx = ctx;
  CUdevice device = 0;
  if (cuCtxGetDevice(&device) == CUDA_SUCCESS) recorder_.note_device(device);

  if (settings.sass_mode == profile::SassMode::WholeRun) {
    auto d = recorder_.policy().on_launch(name, settings.metrics && sass_.available());
    if (d.measure && !sass_.whole_run_enabled()) sass_.enable_whole_run(ctx);
    if (sass_.whole_run_enabled()) {
      t.instrumented = true;
      t.index = d.index;
      sass_.note_whole_run_launch();
    }
    return;
  }

  const bool slot = settings.metrics && sass_.available() && sass_.try_acquire();
  auto d = recorder_.policy().on_launch(name, slot);
  if (d.budget_refused) {
    recorder_.warn("budget-exhausted",
                   "SASS metric collection used its budget of " +
                       std::to_string(static_cast<long long>(settings.budget_ms)) +
                       " ms; later launches were timed only (raise --budget-ms to measure more)");
  }
  if (!d.measure) {
    if (slot) sass_.release();
    return;
  }
  t.start = std::chrono::steady_clock::now();
  if (!sass_.begin(ctx)) {
    sass_.release();
    return;
  }
  t.measuring = true;
  t.index = d.index;
  log_detail("measuring launch %llu of %s", static_cast<unsigned long long>(d.index),
             profile::demangle(name).c_str());
}

void ProfilingSession::on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData& data) {
  if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    const auto* module = static_cast<const CUpti_ModuleResourceData*>(data.resourceDescriptor);
    if (!module) return;
    log_detail("module %u loaded (%zu bytes)", module->moduleId, module->cubinSize);
    if (!cubins_.add(module->moduleId, module->pCubin, module->cubinSize))
      log_detail("module %u not kept: cubin capture limit reached", module->moduleId);
  } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    on_context_created(data.context);
  } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    // Last moment the context's data can be read.
    if (data.context && data.context == sass_.whole_run_context()) sass_.finish_whole_run(data.context);
    if (activity_started_) flush_activity_trace();
  }
}

void ProfilingSession::on_context_created(CUcontext ctx) {
  log_detail("context %p created", static_cast<void*>(ctx));
  const profile::InjectionConfig& config = recorder_.config();
  if (!ctx || !config.settings.metrics || config.sass_setup != profile::SassSetup::Context) return;
  // Configure before any module is loaded into the context (the probe's
  // order). Whole-run mode enables here too, so every module is loaded and
  // every kernel patched inside the enabled range. The probe made these
  // calls with the context current; a primary context may not be yet.
  // Without SASS metrics nothing is done here: each launch describes its
  // device (on_launch), as the timing pass always has.
  CUcontext current = nullptr;
  const bool push = cuCtxGetCurrent(&current) == CUDA_SUCCESS && current != ctx &&
                    cuCtxPushCurrent(ctx) == CUDA_SUCCESS;
  // The device is described from the driver, never from activity records
  // (off in this pass), even should the configuration below fail.
  CUdevice device = 0;
  if (cuCtxGetDevice(&device) == CUDA_SUCCESS) recorder_.note_device(device);
  if (sass_.prepare(ctx) && config.settings.sass_mode == profile::SassMode::WholeRun)
    sass_.enable_whole_run(ctx, /*soft=*/true);
  if (push) {
    CUcontext popped = nullptr;
    cuCtxPopCurrent(&popped);
  }
}

void ProfilingSession::finish() {
  if (finished_.exchange(true)) return;
  if (CUcontext ctx = sass_.whole_run_context()) sass_.finish_whole_run(ctx);
  if (activity_started_) flush_activity_trace();

  profile::Profile p = recorder_.build();
  sass_.contribute(p);
  if (auto n = CallbackDispatcher::instance().runtime_launches_without_driver_callback())
    p.add_warning("runtime-launch-untracked",
                  std::to_string(n) + " runtime launch(es) reached no driver launch callback; "
                                      "launches were then followed at the runtime level (the "
                                      "first was timed but not measured)");
  if (p.kernels.empty())
    p.add_warning("no-kernels", recorder_.config().settings.kernel_regex.empty()
                                    ? "the program launched no CUDA kernels"
                                    : "no kernel matched the filter \"" +
                                          recorder_.config().settings.kernel_regex + "\"");

  const std::string& pattern = recorder_.config().output_path;
  if (pattern.empty()) {
    log_detail("no %s set: profile not written", profile::env::kOutput);
    return;
  }
  std::string path = profile::expand_output_path(pattern, long(::getpid()));
  std::string error;
  if (!profile::save_profile(p, path, &error))
    log_problem("could not write the profile: %s", error.c_str());
  else
    log_detail("profile written to %s (%zu kernels, %zu lines; SASS %llu records, %llu values, "
               "%llu non-zero, %llu with unknown ids, setup at %s)",
               path.c_str(), p.kernels.size(), p.lines.size(),
               static_cast<unsigned long long>(p.collector.sass_records),
               static_cast<unsigned long long>(p.collector.sass_values),
               static_cast<unsigned long long>(p.collector.sass_nonzero_values),
               static_cast<unsigned long long>(p.collector.sass_unmatched_values),
               p.collector.sass_setup.empty() ? "-" : p.collector.sass_setup.c_str());
}

}  // namespace warplens::inject
