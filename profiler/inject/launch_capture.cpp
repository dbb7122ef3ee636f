#include "profiler/inject/launch_capture.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "profiler/demangle.h"
#include "profiler/inject/capture_launch_params.h"
#include "profiler/inject/capture_memory.h"
#include "profiler/inject/inject_log.h"
#include "profiler/inject/capture_errors.h"

namespace warplens::inject {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxRefusalsRecorded = 32;

std::vector<std::string> program_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  return args;
}

// Makes the launch's context current for the duration of a scope.
class ContextScope {
 public:
  explicit ContextScope(CUcontext ctx) {
    CUcontext current = nullptr;
    cuCtxGetCurrent(&current);
    if (ctx && ctx != current && cuCtxPushCurrent(ctx) == CUDA_SUCCESS) pushed_ = true;
  }
  ~ContextScope() {
    if (pushed_) {
      CUcontext popped = nullptr;
      cuCtxPopCurrent(&popped);
    }
  }

 private:
  bool pushed_ = false;
};

}  // namespace

// A launch between its API entry and exit (per thread: a thread is inside
// one launch call at a time).
struct LaunchCapture::FoundGlobal {
  capture::ModuleVariable variable;
  CUdeviceptr ptr = 0;
  std::uint64_t bytes = 0;
};

struct LaunchCapture::Pending {
  capture::LaunchRecord record;
  std::vector<FoundAllocation> allocations;
  std::vector<FoundGlobal> globals;
  std::string blob_dir;
  std::chrono::steady_clock::time_point started;
  double enter_ms = 0;
};

namespace {
thread_local std::unique_ptr<LaunchCapture::Pending> t_pending;
LaunchCapture* g_capture = nullptr;  // never destroyed: CUPTI may call back during teardown
}  // namespace

LaunchCaptureSettings capture_settings_from_environment(const std::function<const char*(const char*)>& get,
                                                        std::vector<std::string>* problems) {
  LaunchCaptureSettings s;
  auto problem = [&](const char* name, const char* value, const char* expected) {
    if (problems)
      problems->push_back(std::string(name) + "='" + value + "' is not " + expected + "; using the default");
  };
  if (const char* v = get(capture::env::kDir)) s.dir = v;
  if (const char* v = get(capture::env::kKernel); v && *v) s.kernel_regex = v;
  if (const char* v = get(capture::env::kLaunches); v && *v) {
    char* end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (*end == '\0' && n >= 1 && n <= 1000000) s.max_launches = static_cast<int>(n);
    else problem(capture::env::kLaunches, v, "a launch count >= 1");
  }
  if (const char* v = get(capture::env::kLaunchesPerKernel); v && *v) {
    char* end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (*end == '\0' && n >= 0 && n <= 1000000) s.max_launches_per_kernel = static_cast<int>(n);
    else problem(capture::env::kLaunchesPerKernel, v, "a launch count >= 0");
  }
  if (const char* v = get(capture::env::kMaxBytes); v && *v) {
    char* end = nullptr;
    unsigned long long n = std::strtoull(v, &end, 10);
    if (*end == '\0' && n > 0) s.max_bytes = n;
    else problem(capture::env::kMaxBytes, v, "a byte count > 0");
  }
  return s;
}

LaunchCapture::LaunchCapture(LaunchCaptureSettings settings) : settings_(std::move(settings)) {
  manifest_.producer = "libwarplens_inject launch_capture";
  manifest_.program = program_arguments();
  manifest_.kernel_regex = settings_.kernel_regex;
  manifest_.max_launches = settings_.max_launches;
  manifest_.max_launches_per_kernel = settings_.max_launches_per_kernel;
  manifest_.max_bytes = settings_.max_bytes;
  try {
    regex_ = std::regex(settings_.kernel_regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    enabled_ = false;
    manifest_.notes.push_back("WARPLENS_CAPTURE_KERNEL '" + settings_.kernel_regex +
                              "' is not a valid regular expression (" + e.what() + "): nothing captured");
    log_problem("capture: invalid kernel regex '%s': %s", settings_.kernel_regex.c_str(), e.what());
  }
  std::error_code ec;
  fs::create_directories(settings_.dir, ec);
  if (ec) {
    enabled_ = false;
    write_failed_ = true;
    log_problem("capture: cannot create %s: %s; nothing is captured", settings_.dir.c_str(), ec.message().c_str());
    return;
  }
  save();  // an empty manifest first: even a program that dies early leaves one
}

void LaunchCapture::attach(CallbackDispatcher& dispatcher) {
  dispatcher.on_launch([this](const LaunchCallback& cb) { on_launch(cb); });
  dispatcher.on_resource([this](CUpti_CallbackId cbid, const CUpti_ResourceData& data) {
    if (cbid != CUPTI_CBID_RESOURCE_MODULE_LOADED || !enabled_) return;
    const auto* module = static_cast<const CUpti_ModuleResourceData*>(data.resourceDescriptor);
    if (module && module->pCubin) module_variables_.add(module->pCubin, module->cubinSize);
  });
}

std::string LaunchCapture::find_globals(const std::string& symbol, CUfunction function, int /*device*/,
                                        std::vector<FoundGlobal>* found, std::string* note) {
  bool seen = false;
  const std::vector<capture::ModuleVariable> variables = module_variables_.for_kernel(symbol, &seen);
  if (!seen) {
    *note = "no module image was readable, so module variables (__constant__, __device__) were not looked for";
    return "";
  }
  if (variables.empty()) return "";
  CUmodule module = nullptr;
  CUresult r = cuFuncGetModule(&module, function);
  if (r != CUDA_SUCCESS)
    return "the kernel's module defines variables (" + variables.front().name +
           ", ...) but the driver does not give the kernel's module (cuFuncGetModule: " + cu_error_name(r) +
           "), so they cannot be captured";
  for (const auto& v : variables) {
    CUdeviceptr ptr = 0;
    std::size_t bytes = 0;
    // A variable another module of the same kernel name defines is not in
    // this one: skipped.
    if (cuModuleGetGlobal(&ptr, &bytes, module, v.name.c_str()) != CUDA_SUCCESS || bytes == 0) continue;
    found->push_back({v, ptr, bytes});
  }
  return "";
}

void LaunchCapture::save() {
  if (write_failed_) return;
  try {
    capture::save_manifest(settings_.dir, manifest_);
  } catch (const std::exception& e) {
    write_failed_ = true;
    log_problem("capture: %s", e.what());
  }
}

bool LaunchCapture::selected(const std::string& symbol) {
  auto it = selection_.find(symbol);
  if (it != selection_.end()) return it->second;
  bool match = std::regex_search(symbol, regex_) || std::regex_search(profile::demangle(symbol), regex_);
  selection_[symbol] = match;
  return match;
}

void LaunchCapture::refuse(const std::string& kernel, std::uint64_t sequence, const std::string& reason) {
  std::lock_guard lock(mutex_);
  --captured_;
  --captured_per_kernel_[kernel];
  if (manifest_.refusals.size() < kMaxRefusalsRecorded) manifest_.refusals.push_back({kernel, sequence, reason});
  log_problem("capture: %s launch %llu not captured: %s", profile::demangle(kernel).c_str(),
              static_cast<unsigned long long>(sequence), reason.c_str());
  save();
}

void LaunchCapture::fill_device_info() {
  if (manifest_.device.cc_major) return;
  CUdevice dev = 0;
  if (cuCtxGetDevice(&dev) != CUDA_SUCCESS) return;
  char name[256] = {};
  cuDeviceGetName(name, sizeof name - 1, dev);
  manifest_.device.ordinal = static_cast<int>(dev);
  manifest_.device.name = name;
  cuDeviceGetAttribute(&manifest_.device.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&manifest_.device.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  int l2 = 0;
  cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
  manifest_.device.l2_bytes = static_cast<std::uint64_t>(l2);
  cuDriverGetVersion(&manifest_.device.driver_version);
}

void LaunchCapture::on_launch(const LaunchCallback& cb) {
  try {
    if (cb.site == CUPTI_API_ENTER) enter(cb);
    else leave(cb);
  } catch (const std::exception& e) {
    t_pending.reset();
    log_problem("capture: %s", e.what());
  } catch (...) {
    t_pending.reset();
  }
}

void LaunchCapture::enter(const LaunchCallback& cb) {
  std::string symbol = cb.kernel_name();
  std::uint64_t sequence = 0;
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    ++manifest_.counters.driver_launches;
    if (cb.runtime_correlation_id) ++manifest_.counters.runtime_launches;
    if (!enabled_) return;
    if (symbol.empty() && cb.domain == CUPTI_CB_DOMAIN_DRIVER_API) {
      // No name from CUPTI: ask the driver.
      LaunchParams lp = read_launch_params(cb);
      const char* n = nullptr;
      if (lp.function && cuFuncGetName(&n, lp.function) == CUDA_SUCCESS && n) symbol = n;
    }
    if (!selected(symbol)) return;
    ++manifest_.counters.matched_launches;
    sequence = sequence_[symbol]++;
    if (captured_ >= settings_.max_launches) return;
    // Several kernels (a producer and its consumer, for a fused candidate)
    // each keep their first launches, in program order.
    int& mine = captured_per_kernel_[symbol];
    if (settings_.max_launches_per_kernel > 0 && mine >= settings_.max_launches_per_kernel) return;
    ++captured_;  // reserve the slot; refuse() gives it back
    ++mine;
  }
  const auto started = std::chrono::steady_clock::now();
  if (cb.domain != CUPTI_CB_DOMAIN_DRIVER_API)
    return refuse(symbol, sequence,
                  "this runtime launched the kernel without a driver launch callback; capture needs the driver "
                  "launch (function handle and parameter layout)");
  LaunchParams lp = read_launch_params(cb);
  if (!lp.ok) return refuse(symbol, sequence, lp.error);
  if (lp.stream) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (cuStreamIsCapturing(lp.stream, &status) == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE)
      return refuse(symbol, sequence,
                    "the launch is being recorded into a CUDA graph (stream capture); synchronising would break it");
  }
  ContextScope scope(cb.context());
  CUdevice device = 0;
  cuCtxGetDevice(&device);
  PointerScan scan = scan_pointers(lp.params, lp.buffer, static_cast<int>(device));
  if (!scan.ok) return refuse(symbol, sequence, scan.refusal);
  std::vector<FoundGlobal> globals;
  std::string globals_note;
  std::string globals_refusal = find_globals(symbol, lp.function, static_cast<int>(device), &globals, &globals_note);
  if (!globals_refusal.empty()) return refuse(symbol, sequence, globals_refusal);
  std::uint64_t needed = 0;
  for (const auto& a : scan.allocations) needed += 2 * a.bytes;
  for (const auto& g : globals) needed += 2 * g.bytes;
  std::uint64_t attempt = 0;
  std::string over_cap;
  {
    std::lock_guard lock(mutex_);
    // Even a capture refused for its size names the GPU it was refused on.
    fill_device_info();
    if (manifest_.total_bytes + needed > settings_.max_bytes) {
      over_cap = "needs " + std::to_string(needed) + " bytes (each allocation before and after), over the cap of " +
                 std::to_string(settings_.max_bytes) + " bytes with " + std::to_string(manifest_.total_bytes) +
                 " already captured; raise " + capture::env::kMaxBytes + " to capture it";
    } else {
      manifest_.total_bytes += needed;  // reserved
      attempt = attempts_++;
    }
  }
  if (!over_cap.empty()) return refuse(symbol, sequence, over_cap);
  auto release = [&](const std::string& reason) {
    {
      std::lock_guard lock(mutex_);
      manifest_.total_bytes -= needed;
    }
    refuse(symbol, sequence, reason);
  };
  // Everything queued before this launch, on every stream, must be done
  // before its inputs are read.
  CUresult r = cuCtxSynchronize();
  if (r != CUDA_SUCCESS)
    return release("the context reported " + cu_error_name(r) + " before the launch (an earlier kernel failed)");

  auto pending = std::make_unique<Pending>();
  pending->started = started;
  pending->blob_dir = "launch" + std::to_string(attempt);
  pending->allocations = scan.allocations;
  pending->globals = globals;
  capture::LaunchRecord& rec = pending->record;
  rec.sequence = sequence;
  rec.kernel = symbol;
  rec.api = lp.api;
  rec.grid = lp.grid;
  rec.block = lp.block;
  rec.dynamic_shared_bytes = lp.dynamic_shared_bytes;
  rec.cluster = lp.cluster;
  rec.cooperative = lp.cooperative;
  rec.attributes = function_attributes(lp.function);
  rec.params = lp.params;
  rec.param_buffer = lp.buffer;
  rec.pointers = scan.pointers;
  for (std::size_t a = 0; a < scan.allocations.size(); ++a) {
    std::string error;
    auto bytes = copy_allocation(scan.allocations[a], &error);
    if (!error.empty()) return release("allocation " + std::to_string(a) + ": " + error);
    capture::AllocationRecord ar;
    ar.address = scan.allocations[a].base;
    ar.bytes = scan.allocations[a].bytes;
    ar.memory = scan.allocations[a].memory;
    ar.before_blob = pending->blob_dir + "/alloc" + std::to_string(a) + ".before.bin";
    ar.after_blob = pending->blob_dir + "/alloc" + std::to_string(a) + ".after.bin";
    ar.before_hash = capture::content_hash(bytes.data(), bytes.size());
    try {
      capture::write_blob(settings_.dir, ar.before_blob, bytes.data(), bytes.size());
    } catch (const std::exception& e) {
      return release(e.what());
    }
    rec.allocations.push_back(std::move(ar));
  }
  rec.globals_recorded = globals_note.empty();
  if (!globals_note.empty()) {
    std::lock_guard lock(mutex_);
    if (std::find(manifest_.notes.begin(), manifest_.notes.end(), globals_note) == manifest_.notes.end())
      manifest_.notes.push_back(globals_note);
  }
  for (std::size_t g = 0; g < globals.size(); ++g) {
    std::vector<std::uint8_t> bytes(globals[g].bytes);
    CUresult copied = cuMemcpyDtoH(bytes.data(), globals[g].ptr, bytes.size());
    if (copied != CUDA_SUCCESS)
      return release("module variable " + globals[g].variable.name + ": copying it failed: " + cu_error_name(copied));
    // The replay runs in another process: a device address stored in a
    // variable (`__device__ float* table`, set with cudaMemcpyToSymbol)
    // would point nowhere there.
    std::string holds_pointer = device_pointer_inside(bytes, static_cast<int>(device));
    if (!holds_pointer.empty())
      return release("module variable " + globals[g].variable.name + " holds a device pointer (" + holds_pointer +
                     "); warplens cannot relocate pointers stored in module variables, so the launch is not "
                     "captured");
    capture::ModuleGlobalRecord gr;
    gr.name = globals[g].variable.name;
    gr.address = globals[g].ptr;
    gr.bytes = globals[g].bytes;
    gr.constant = globals[g].variable.constant();
    gr.before_blob = pending->blob_dir + "/global" + std::to_string(g) + ".before.bin";
    gr.after_blob = pending->blob_dir + "/global" + std::to_string(g) + ".after.bin";
    gr.before_hash = capture::content_hash(bytes.data(), bytes.size());
    try {
      capture::write_blob(settings_.dir, gr.before_blob, bytes.data(), bytes.size());
    } catch (const std::exception& e) {
      return release(e.what());
    }
    rec.globals.push_back(std::move(gr));
  }
  pending->enter_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  t_pending = std::move(pending);
}

void LaunchCapture::leave(const LaunchCallback& cb) {
  if (!t_pending) return;
  std::unique_ptr<Pending> pending = std::move(t_pending);
  capture::LaunchRecord& rec = pending->record;
  std::uint64_t needed = 0;
  for (const auto& a : pending->allocations) needed += 2 * a.bytes;
  for (const auto& g : pending->globals) needed += 2 * g.bytes;
  auto release = [&](const std::string& reason) {
    std::error_code ec;
    fs::remove_all(fs::path(settings_.dir) / pending->blob_dir, ec);
    {
      std::lock_guard lock(mutex_);
      manifest_.total_bytes -= needed;
    }
    refuse(rec.kernel, rec.sequence, reason);
  };
  if (!cb.succeeded()) {
    // Name the driver's error: it is the only trace of why (the program
    // may not print it).
    std::string code;
    if (cb.domain == CUPTI_CB_DOMAIN_DRIVER_API && cb.data && cb.data->functionReturnValue)
      code = " with " + cu_error_name(*static_cast<const CUresult*>(cb.data->functionReturnValue));
    return release("the launch call itself failed" + code + " (the program sees the error)");
  }
  ContextScope scope(cb.context());
  auto exit_started = std::chrono::steady_clock::now();
  CUresult r = cuCtxSynchronize();
  if (r != CUDA_SUCCESS) return release("the kernel failed: " + cu_error_name(r) + " (the program will see it too)");
  for (std::size_t a = 0; a < pending->allocations.size(); ++a) {
    std::string error;
    auto bytes = copy_allocation(pending->allocations[a], &error);
    if (!error.empty()) return release("allocation " + std::to_string(a) + " after the launch: " + error);
    auto& ar = rec.allocations[a];
    ar.after_hash = capture::content_hash(bytes.data(), bytes.size());
    ar.modified = ar.after_hash != ar.before_hash;
    try {
      capture::write_blob(settings_.dir, ar.after_blob, bytes.data(), bytes.size());
    } catch (const std::exception& e) {
      return release(e.what());
    }
  }
  for (std::size_t g = 0; g < pending->globals.size(); ++g) {
    std::vector<std::uint8_t> bytes(pending->globals[g].bytes);
    CUresult copied = cuMemcpyDtoH(bytes.data(), pending->globals[g].ptr, bytes.size());
    if (copied != CUDA_SUCCESS)
      return release("module variable " + rec.globals[g].name + " after the launch: copying it failed: " +
                     cu_error_name(copied));
    auto& gr = rec.globals[g];
    gr.after_hash = capture::content_hash(bytes.data(), bytes.size());
    gr.modified = gr.after_hash != gr.before_hash;
    try {
      capture::write_blob(settings_.dir, gr.after_blob, bytes.data(), bytes.size());
    } catch (const std::exception& e) {
      return release(e.what());
    }
  }
  rec.capture_ms =
      pending->enter_ms +
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - exit_started).count();
  std::lock_guard lock(mutex_);
  rec.index = static_cast<int>(manifest_.launches.size());
  log_detail("capture: %s launch %llu captured (%zu allocations, %.1f ms)", profile::demangle(rec.kernel).c_str(),
             static_cast<unsigned long long>(rec.sequence), rec.allocations.size(), rec.capture_ms);
  manifest_.launches.push_back(std::move(rec));
  save();
}

void LaunchCapture::finish() {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  manifest_.counters.runtime_without_driver_callback =
      CallbackDispatcher::instance().runtime_launches_without_driver_callback();
  manifest_.complete = true;
  save();
}

void attach_launch_capture_from_environment(CallbackDispatcher& dispatcher) {
  std::vector<std::string> problems;
  LaunchCaptureSettings settings =
      capture_settings_from_environment([](const char* n) { return std::getenv(n); }, &problems);
  for (const auto& p : problems) log_problem("capture: %s", p.c_str());
  if (settings.dir.empty() || g_capture) return;
  g_capture = new LaunchCapture(std::move(settings));
  g_capture->attach(dispatcher);
  std::atexit([] { g_capture->finish(); });
}

}  // namespace warplens::inject
