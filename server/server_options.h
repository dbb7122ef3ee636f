// How the process was started (command-line flags and injected engines),
// fixed for the server's lifetime. The features that depend on one of these
// take it at registration; none of them may change it.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "server/occupancy_service.h"
#include "workflows/optimize.h"
#include "workflows/profile.h"

namespace warplens::server {

struct ServerOptions {
  std::chrono::milliseconds debounce{300};  // overridden by the debounceMs setting
  unsigned workers = 0;                     // analysis threads (at most the cores); 0: min(cores, 4)
  bool test_commands = false;               // enables warplens.debug.* (tests only)
  std::string docs_dir;                     // docs/diagnostics, for codeDescription links
  std::string version = "0.0.0";
  // --allow-driver GLOB: programs compile commands and cudaPath may run,
  // whatever the settings say (analysis/driver_policy.h).
  std::vector<std::string> allowed_drivers;
  // Resource usage and occupancy (nvcc; ~0.4-1.5 s on a cache miss), run in
  // the background after each parse: workflows/resources.h's
  // analyze_resources, or a test double. Empty: none (in-process tests that
  // do not exercise it).
  OccupancyFn occupancy;
  // Asked once at startup, off the main thread, for warplens/status's `gpu`,
  // and before each profile. Empty: no probe at startup (`gpu` stays null)
  // and profile::probe_gpus before a profile.
  workflows::GpuProbe gpu_probe;  // profile::probe_gpus, or a test double
  // Runs warplens.optimize jobs. Empty: gpu_optimize_backend(gpu_probe)
  // (the built-in search, verified on the local GPU); tests inject fakes.
  workflows::OptimizeBackend optimize;
};

}  // namespace warplens::server
