#include "profiler/profile_merge.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace warplens::profile {
namespace {

void merge_kernel(Kernel& into, const Kernel& from) {
  into.launch_count += from.launch_count;
  into.metric_launches += from.metric_launches;
  into.launches.insert(into.launches.end(), from.launches.begin(), from.launches.end());
  into.timing.merge(from.timing);
  if (from.counters) {
    if (into.counters) into.counters->merge(*from.counters);
    else into.counters = from.counters;
  }
}

void merge_line(LineMetrics& into, const LineMetrics& from) {
  into.add_counts(from);
  into.pcs.insert(into.pcs.end(), from.pcs.begin(), from.pcs.end());
  std::sort(into.pcs.begin(), into.pcs.end());
  into.pcs.erase(std::unique(into.pcs.begin(), into.pcs.end()), into.pcs.end());
}

}  // namespace

Profile merge_processes(std::vector<Profile> parts) {
  if (parts.empty()) return {};
  if (parts.size() == 1) return std::move(parts.front());
  Profile out = std::move(parts.front());
  std::map<std::tuple<std::string, int, std::string, int>, std::size_t> line_index;
  for (std::size_t i = 0; i < out.lines.size(); ++i) {
    const LineMetrics& l = out.lines[i];
    line_index[{l.file, l.line, l.kernel, int(l.kind)}] = i;
  }
  for (std::size_t p = 1; p < parts.size(); ++p) {
    Profile& part = parts[p];
    for (const Kernel& k : part.kernels) {
      if (Kernel* mine = out.find_kernel(k.mangled)) merge_kernel(*mine, k);
      else out.kernels.push_back(k);
    }
    for (const LineMetrics& l : part.lines) {
      auto [it, inserted] = line_index.try_emplace({l.file, l.line, l.kernel, int(l.kind)}, out.lines.size());
      if (inserted) out.lines.push_back(l);
      else merge_line(out.lines[it->second], l);
    }
    for (const Device& d : part.devices) {
      bool known = std::any_of(out.devices.begin(), out.devices.end(),
                               [&](const Device& o) { return o.index == d.index; });
      if (!known) out.devices.push_back(d);
    }
    out.memcpy.host_to_device.merge(part.memcpy.host_to_device);
    out.memcpy.device_to_host.merge(part.memcpy.device_to_host);
    out.memcpy.device_to_device.merge(part.memcpy.device_to_device);
    out.memcpy.host_to_host.merge(part.memcpy.host_to_host);
    out.memcpy.peer.merge(part.memcpy.peer);
    out.memcpy.other.merge(part.memcpy.other);
    for (const Warning& w : part.warnings) out.add_warning(w.code, w.message);
    out.collector.sass_overhead_ms += part.collector.sass_overhead_ms;
    out.collector.cubins += part.collector.cubins;
    out.collector.sass_records += part.collector.sass_records;
    out.collector.sass_values += part.collector.sass_values;
    out.collector.sass_nonzero_values += part.collector.sass_nonzero_values;
    out.collector.sass_unmatched_values += part.collector.sass_unmatched_values;
    if (out.collector.sass_setup.empty()) out.collector.sass_setup = part.collector.sass_setup;
    out.collector.dropped_activity_records += part.collector.dropped_activity_records;
    out.wall_ms = std::max(out.wall_ms, part.wall_ms);
  }
  std::sort(out.kernels.begin(), out.kernels.end(),
            [](const Kernel& a, const Kernel& b) { return a.name < b.name; });
  std::sort(out.lines.begin(), out.lines.end(), [](const LineMetrics& a, const LineMetrics& b) {
    return std::tie(a.file, a.line, a.kernel, a.kind) < std::tie(b.file, b.line, b.kernel, b.kind);
  });
  out.add_warning("multiple-processes", std::to_string(parts.size()) +
                                            " processes of the program used CUDA; their data is "
                                            "combined in this profile");
  return out;
}

void merge_timing_pass(Profile& metrics, const Profile& timing) {
  for (const Kernel& k : timing.kernels) {
    Kernel* mine = metrics.find_kernel(k.mangled);
    if (!mine) {
      // Launched only in the timing pass (the program does not repeat itself).
      Kernel copy = k;
      copy.counters.reset();
      copy.metric_launches = 0;
      metrics.kernels.push_back(std::move(copy));
      metrics.add_warning("launches-differ",
                          k.name + " was launched " + std::to_string(k.launch_count) +
                              " times in the timing pass and never in the metrics pass");
      continue;
    }
    if (mine->launch_count != k.launch_count)
      metrics.add_warning("launches-differ",
                          k.name + " was launched " + std::to_string(mine->launch_count) +
                              " times in the metrics pass and " + std::to_string(k.launch_count) +
                              " times in the timing pass (the program does not repeat itself "
                              "exactly): its metrics are from the metrics pass's first " +
                              std::to_string(mine->metric_launches) +
                              " launch(es), its durations from the timing pass's launches");
    mine->launches.insert(mine->launches.end(), k.launches.begin(), k.launches.end());
    mine->timing.merge(k.timing);
  }
  for (const Kernel& k : metrics.kernels) {
    if (timing.find_kernel(k.mangled) || k.launch_count == 0) continue;
    metrics.add_warning("launches-differ", k.name + " was launched " + std::to_string(k.launch_count) +
                                               " times in the metrics pass and never in the timing pass; "
                                               "it has no durations");
  }
  std::sort(metrics.kernels.begin(), metrics.kernels.end(),
            [](const Kernel& a, const Kernel& b) { return a.name < b.name; });

  // Devices: the driver describes them in both passes; fill what one lacks.
  for (const Device& d : timing.devices) {
    auto it = std::find_if(metrics.devices.begin(), metrics.devices.end(),
                           [&](const Device& o) { return o.index == d.index; });
    if (it == metrics.devices.end()) {
      metrics.devices.push_back(d);
      continue;
    }
    std::string chip = it->chip.empty() ? d.chip : it->chip;
    if (it->name.empty() || it->cc_major == 0) *it = d;
    it->chip = chip;
  }

  // Copies are traced by the Activity API, which only the timing pass runs.
  metrics.memcpy = timing.memcpy;
  metrics.collector.dropped_activity_records += timing.collector.dropped_activity_records;

  for (const Warning& w : timing.warnings) {
    if (w.code == "no-kernels" && !metrics.kernels.empty()) continue;
    if (!metrics.has_warning(w.code)) metrics.add_warning(w.code, "timing pass: " + w.message);
  }
  for (const Pass& p : timing.passes) metrics.passes.push_back(p);
}

}  // namespace warplens::profile
