// Launch capture, a module of the injection library: records the first K
// launches of the kernels a regex selects, with everything needed to replay
// them elsewhere (profiler/capture_format.h, docs/capture-format.md).
//
// For a selected launch, at the launch's API entry: read the geometry and the
// parameter buffer, find every device pointer in it, synchronise the
// context (all streams), copy each allocation the pointers point into
// ("before"); at the API exit: synchronise again and copy them once more
// ("after"). The manifest is rewritten after every captured launch, so a
// program that dies later still leaves a usable capture; at exit it is
// marked complete with the launch counters.
//
// Enabled by WARPLENS_CAPTURE_DIR (see capture::env); registered with the
// library's CallbackDispatcher from InitializeInjection. Thread-safe: one
// launch is captured at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include "profiler/capture_format.h"
#include "profiler/inject/callback_dispatch.h"
#include "profiler/inject/module_variables.h"

namespace warplens::inject {

struct LaunchCaptureSettings {
  std::string dir;                         // empty: capture disabled
  std::string kernel_regex = ".*";
  int max_launches = 1;
  int max_launches_per_kernel = 0;         // 0: no per-kernel limit
  std::uint64_t max_bytes = capture::kDefaultMaxBytes;
};

// `get` is getenv or a fake. Bad values keep their defaults and are
// reported in `problems`.
LaunchCaptureSettings capture_settings_from_environment(const std::function<const char*(const char*)>& get,
                                                        std::vector<std::string>* problems);

class LaunchCapture {
 public:
  explicit LaunchCapture(LaunchCaptureSettings settings);

  void attach(CallbackDispatcher& dispatcher);
  void on_launch(const LaunchCallback& cb);
  // Writes the final manifest (complete = true). Later calls do nothing.
  void finish();

  struct Pending;  // a launch between its entry and exit (one per thread)

 private:
  bool selected(const std::string& symbol);
  void refuse(const std::string& kernel, std::uint64_t sequence, const std::string& reason);
  void enter(const LaunchCallback& cb);
  void leave(const LaunchCallback& cb);
  void fill_device_info();
  // The kernel module's variables for a launch entering (contents copied
  // "before"); "" or the reason the launch cannot be captured.
  struct FoundGlobal;
  std::string find_globals(const std::string& symbol, CUfunction function, int device,
                           std::vector<FoundGlobal>* found, std::string* note);
  void save();

  LaunchCaptureSettings settings_;
  std::regex regex_;
  std::mutex mutex_;
  capture::CaptureManifest manifest_;
  std::map<std::string, std::uint64_t> sequence_;   // launches seen per kernel symbol
  std::map<std::string, bool> selection_;            // regex decision per symbol
  int captured_ = 0;                                 // launches captured or in flight
  std::map<std::string, int> captured_per_kernel_;   // ... per kernel symbol
  std::uint64_t attempts_ = 0;                       // names the blob directories
  bool enabled_ = true;
  bool finished_ = false;
  bool write_failed_ = false;
  ModuleVariableIndex module_variables_;
};

// From InitializeInjection: when WARPLENS_CAPTURE_DIR is set, creates the
// module, attaches it to `dispatcher` and arranges for finish() at exit.
void attach_launch_capture_from_environment(CallbackDispatcher& dispatcher);

}  // namespace warplens::inject
