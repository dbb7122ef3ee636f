#include "profiler/profile_data.h"

#include <algorithm>

namespace warplens::profile {

const char* tool_version() { return WARPLENS_PROFILER_VERSION; }

std::string Device::arch() const {
  if (cc_major <= 0) return {};
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

void Timing::add(std::uint64_t ns) {
  min_ns = launches ? std::min(min_ns, ns) : ns;
  max_ns = launches ? std::max(max_ns, ns) : ns;
  ++launches;
  total_ns += ns;
}

void Timing::merge(const Timing& o) {
  if (!o.launches) return;
  min_ns = launches ? std::min(min_ns, o.min_ns) : o.min_ns;
  max_ns = launches ? std::max(max_ns, o.max_ns) : o.max_ns;
  launches += o.launches;
  total_ns += o.total_ns;
}

void KernelCounters::merge(const KernelCounters& o) {
  inst_executed += o.inst_executed;
  thread_inst_executed += o.thread_inst_executed;
  global_load_requests += o.global_load_requests;
  global_store_requests += o.global_store_requests;
  global_sectors += o.global_sectors;
  global_sectors_ideal += o.global_sectors_ideal;
  shared_load_requests += o.shared_load_requests;
  shared_store_requests += o.shared_store_requests;
  shared_wavefronts += o.shared_wavefronts;
  shared_wavefronts_ideal += o.shared_wavefronts_ideal;
  local_sectors += o.local_sectors;
  branch_divergent += o.branch_divergent;
  branch_uniform += o.branch_uniform;
  unmapped_inst_executed += o.unmapped_inst_executed;
}

void LineMetrics::add_counts(const LineMetrics& o) {
  executed += o.executed;
  threads_executed += o.threads_executed;
  sectors += o.sectors;
  sectors_ideal += o.sectors_ideal;
  wavefronts += o.wavefronts;
  wavefronts_ideal += o.wavefronts_ideal;
  divergent += o.divergent;
  uniform += o.uniform;
}

bool LineMetrics::empty() const {
  return executed == 0 && threads_executed == 0 && sectors == 0 && sectors_ideal == 0 &&
         wavefronts == 0 && wavefronts_ideal == 0 && divergent == 0 && uniform == 0;
}

const char* to_string(LineKind k) {
  switch (k) {
    case LineKind::All: return "all";
    case LineKind::GlobalLoad: return "global_load";
    case LineKind::GlobalStore: return "global_store";
    case LineKind::GlobalOther: return "global_other";
    case LineKind::SharedLoad: return "shared_load";
    case LineKind::SharedStore: return "shared_store";
    case LineKind::SharedOther: return "shared_other";
    case LineKind::LocalLoad: return "local_load";
    case LineKind::LocalStore: return "local_store";
    case LineKind::Branch: return "branch";
  }
  return "all";
}

std::optional<LineKind> line_kind_from_string(std::string_view s) {
  for (LineKind k : kAllLineKinds)
    if (s == to_string(k)) return k;
  return std::nullopt;
}

bool is_global(LineKind k) {
  return k == LineKind::GlobalLoad || k == LineKind::GlobalStore || k == LineKind::GlobalOther;
}
bool is_shared(LineKind k) {
  return k == LineKind::SharedLoad || k == LineKind::SharedStore || k == LineKind::SharedOther;
}
bool is_local(LineKind k) { return k == LineKind::LocalLoad || k == LineKind::LocalStore; }
bool is_store(LineKind k) {
  return k == LineKind::GlobalStore || k == LineKind::SharedStore || k == LineKind::LocalStore;
}

const char* to_string(SassMode m) {
  return m == SassMode::WholeRun ? "whole-run" : "per-launch";
}

std::optional<SassMode> sass_mode_from_string(std::string_view s) {
  if (s == "per-launch") return SassMode::PerLaunch;
  if (s == "whole-run") return SassMode::WholeRun;
  return std::nullopt;
}

const Kernel* Profile::find_kernel(std::string_view mangled) const {
  for (const Kernel& k : kernels)
    if (k.mangled == mangled) return &k;
  return nullptr;
}

Kernel* Profile::find_kernel(std::string_view mangled) {
  for (Kernel& k : kernels)
    if (k.mangled == mangled) return &k;
  return nullptr;
}

void Profile::add_warning(std::string code, std::string message) {
  for (const Warning& w : warnings)
    if (w.code == code && w.message == message) return;
  warnings.push_back({std::move(code), std::move(message)});
}

bool Profile::has_warning(std::string_view code) const {
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const Warning& w) { return w.code == code; });
}

}  // namespace warplens::profile
