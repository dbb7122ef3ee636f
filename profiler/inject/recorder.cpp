#include "profiler/inject/recorder.h"

#include <cupti.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>

#include "profiler/demangle.h"
#include "profiler/inject/device_query.h"
#include "profiler/inject/inject_log.h"

namespace warplens::inject {
namespace {

std::string utc_now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// argv of this process: the runner knows it too, but a program started by
// hand under CUDA_INJECTION64_PATH should still produce a complete profile.
std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> argv;
  std::string arg;
  while (std::getline(in, arg, '\0')) argv.push_back(arg);
  return argv;
}

std::string current_directory() {
  char buf[4096];
  return getcwd(buf, sizeof buf) ? std::string(buf) : std::string();
}

}  // namespace

Recorder::Recorder(profile::InjectionConfig config)
    : config_(std::move(config)),
      policy_(config_.settings),
      start_(std::chrono::steady_clock::now()),
      started_at_(utc_now_iso8601()) {
  std::string regex_error;
  profile::LaunchPolicy checked(config_.settings, &regex_error);
  if (!regex_error.empty()) warn("bad-kernel-filter", regex_error);
}

void Recorder::warn(const std::string& code, const std::string& message) {
  {
    std::lock_guard lock(mu_);
    for (const auto& w : warnings_)
      if (w.code == code && w.message == message) return;
    warnings_.push_back({code, message});
  }
  log_problem("%s: %s", code.c_str(), message.c_str());
}

void Recorder::note_device(CUdevice device) {
  {
    std::lock_guard lock(mu_);
    if (devices_.count(int(device))) return;
  }
  profile::Device d = query_device(device);  // outside the lock: driver calls
  std::lock_guard lock(mu_);
  devices_.try_emplace(int(device), std::move(d));
}

void Recorder::set_chip(int device, const std::string& chip) {
  // Described first: the chip is known at context creation, before any
  // launch would have described the device (the second H200 run wrote a
  // device with a chip and nothing else).
  note_device(CUdevice(device));
  std::lock_guard lock(mu_);
  devices_[device].chip = chip;
}

void Recorder::add_kernel(const std::string& mangled, std::uint32_t correlation_id,
                          const profile::Launch& launch) {
  if (!policy_.selected(mangled)) return;
  std::lock_guard lock(mu_);
  launches_.add(mangled, correlation_id, launch);
}

void Recorder::add_memcpy(int copy_kind, std::uint64_t bytes, std::uint64_t duration_ns) {
  std::lock_guard lock(mu_);
  profile::Transfers* t = &memcpy_.other;
  switch (copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: t = &memcpy_.host_to_device; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: t = &memcpy_.device_to_host; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: t = &memcpy_.device_to_device; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: t = &memcpy_.host_to_host; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: t = &memcpy_.peer; break;
    default: break;
  }
  t->merge({1, bytes, duration_ns});
}

void Recorder::add_dropped_activity(std::size_t n) {
  std::lock_guard lock(mu_);
  dropped_activity_ += n;
}

void Recorder::mark_instrumented(const std::string& mangled, const std::vector<std::uint32_t>& ids,
                                 std::uint64_t launch_index) {
  std::lock_guard lock(mu_);
  launches_.mark_instrumented(mangled, ids, launch_index);
  ++instrumented_[mangled];
}

std::uint64_t Recorder::instrumented_launches(const std::string& mangled) {
  std::lock_guard lock(mu_);
  auto it = instrumented_.find(mangled);
  return it == instrumented_.end() ? 0 : it->second;
}

profile::Profile Recorder::build() {
  profile::Profile p;
  p.tool_version = profile::tool_version();
  p.command = own_command_line();
  p.working_directory = current_directory();
  p.started_at = started_at_;
  p.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  p.settings = config_.settings;
  p.passes.push_back({config_.pass, p.wall_ms, 0, config_.settings.metrics});
  p.collector.cupti_version = CUPTI_API_VERSION;
  p.collector.pid = ::getpid();
  p.collector.sass_overhead_ms = policy_.overhead_ms();

  std::lock_guard lock(mu_);
  for (const auto& [index, d] : devices_) p.devices.push_back(d);
  std::vector<profile::Warning> table_warnings;
  p.kernels = launches_.kernels(config_.settings.launch_records, config_.pass, &table_warnings);
  // Kernels the launch callbacks saw but the Activity API did not report:
  // all of them in the metrics pass, where it is off (its records would
  // come with durations; these are counts only).
  for (const profile::LaunchPolicy::Seen& seen : policy_.selected_kernels()) {
    if (p.find_kernel(seen.mangled)) continue;
    profile::Kernel k;
    k.mangled = seen.mangled;
    k.name = profile::demangle(seen.mangled);
    k.launch_count = seen.launches;
    p.kernels.push_back(std::move(k));
  }
  std::sort(p.kernels.begin(), p.kernels.end(),
            [](const profile::Kernel& a, const profile::Kernel& b) { return a.name < b.name; });
  for (profile::Kernel& k : p.kernels) {
    auto it = instrumented_.find(k.mangled);
    k.metric_launches = it == instrumented_.end() ? 0 : it->second;
  }
  p.memcpy = memcpy_;
  p.warnings = warnings_;
  for (auto& w : table_warnings) p.add_warning(w.code, w.message);
  p.collector.dropped_activity_records = dropped_activity_;
  if (dropped_activity_ > 0)
    p.add_warning("activity-dropped", std::to_string(dropped_activity_) +
                                          " activity records were dropped by CUPTI: some "
                                          "launches or copies are missing from the totals");
  return p;
}

}  // namespace warplens::inject
