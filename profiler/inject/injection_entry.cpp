// The entry point the CUDA driver calls after loading this library through
// CUDA_INJECTION64_PATH (during cuInit, before the program's first kernel).
//
// It reads the configuration the runner put in the environment, subscribes
// to CUPTI once (through the dispatcher, which other modules such as launch
// capture share), starts the Activity API when this pass uses it (the timing
// pass, never together with SASS metrics) and registers the exit handler
// that writes the profile. It never fails the program: whatever CUPTI
// refuses becomes a warning in the profile.
#include <cstdlib>
#include <string>

#include "profiler/inject/callback_dispatch.h"
#include "profiler/inject/cupti_status.h"
#include "profiler/inject/inject_log.h"
#include "profiler/inject/launch_capture.h"
#include "profiler/inject/profiling_session.h"
#include "profiler/injection_config.h"

namespace {

warplens::inject::ProfilingSession* g_session = nullptr;  // never destroyed (see finish_at_exit)

// Runs before the CUDA runtime's own teardown: the runtime registered its
// handler before cuInit loaded us, and atexit handlers run in reverse order.
void finish_at_exit() {
  if (g_session) g_session->finish();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  using namespace warplens;
  static bool initialized = false;
  if (initialized) return 1;
  initialized = true;
  try {
    std::vector<std::string> problems;
    profile::InjectionConfig config =
        profile::config_from_environment([](const char* n) { return std::getenv(n); }, &problems);
    inject::set_verbose(config.verbose);
    g_session = new inject::ProfilingSession(config);
    for (const std::string& p : problems) g_session->recorder().warn("bad-setting", p);

    inject::CallbackDispatcher& dispatcher = inject::CallbackDispatcher::instance();
    g_session->attach(dispatcher);
    // Further modules register with the dispatcher here.
    inject::attach_launch_capture_from_environment(dispatcher);

    std::string other;
    CUptiResult r = dispatcher.start(&other);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      g_session->recorder().warn(
          "another-profiler",
          "another CUPTI tool" + (other.empty() ? std::string() : " (" + other + ")") +
              " is already attached to this program (Nsight Systems, Nsight Compute or another "
              "injection library); warplens cannot collect per-launch data alongside it");
    } else if (r != CUPTI_SUCCESS) {
      g_session->recorder().warn("callbacks-unavailable",
                                 "cuptiSubscribe failed: " + inject::describe(r) +
                                     "; per-line metrics and cubins are unavailable");
    }
    g_session->start_activity();  // only where the configuration asks for it
    std::atexit(finish_at_exit);
    inject::log_detail("injection initialised (pass %s, metrics %s, activity %s, SASS setup at %s, "
                       "sass mode %s)",
                       config.pass.c_str(), config.settings.metrics ? "on" : "off",
                       config.activity ? "on" : "off",
                       profile::to_string(config.sass_setup),
                       profile::to_string(config.settings.sass_mode));
  } catch (...) {
    inject::log_problem("initialisation failed; the program runs unprofiled");
  }
  return 1;  // non-zero: success, as the driver expects
}
