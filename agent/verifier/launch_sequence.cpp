#include "agent/verifier/launch_sequence.h"

#include <algorithm>
#include <set>

#include "agent/verifier/kernel_signature.h"

namespace warplens::verifier {

int FusionSpec::consumer_temporary() const {
  std::set<int> passed;
  int highest = -1;
  for (const auto& p : params)
    if (p.part == 1) {
      passed.insert(p.index);
      highest = std::max(highest, p.index);
    }
  // The consumer's parameters are 0..n-1 with exactly one left out; when it
  // is the last one, no higher index shows where the list ends.
  for (int i = 0; i <= highest + 1; ++i)
    if (!passed.count(i)) return i;
  return -1;
}

std::string describe(const FusionSpec& f) {
  std::string s = f.first + " then " + f.second + " fused (params ";
  for (std::size_t i = 0; i < f.params.size(); ++i)
    s += (i ? "," : "") + std::string(f.params[i].part == 0 ? "A" : "B") + std::to_string(f.params[i].index);
  return s + ", elides A" + std::to_string(f.elided) + ")";
}

namespace {

bool names(const capture::LaunchRecord& l, const std::string& kernel) {
  return l.kernel == kernel || demangle_symbol(l.kernel) == kernel || kernel_base_name(l.kernel) == kernel;
}

std::uint64_t align16(std::uint64_t v) { return (v + 15) / 16 * 16; }

// The device address a pointer parameter carries (0 when it is not one).
std::uint64_t pointer_value(const capture::LaunchRecord& l, int param) {
  for (const auto& p : l.pointers)
    if (p.param == param && p.buffer_offset == l.params.at(static_cast<std::size_t>(param)).offset)
      return l.allocations.at(static_cast<std::size_t>(p.allocation)).address + p.offset_in_allocation;
  return 0;
}

}  // namespace

std::optional<MergedLaunch> merge_launches(const std::vector<const capture::LaunchRecord*>& parts, int id,
                                           std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<MergedLaunch> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (parts.empty()) return fail("no launches to merge");
  MergedLaunch m;
  capture::LaunchRecord& r = m.record;
  const capture::LaunchRecord& head = *parts.front();
  r.index = id;
  r.sequence = head.sequence;
  r.api = head.api;
  r.grid = head.grid;
  r.block = head.block;
  r.dynamic_shared_bytes = head.dynamic_shared_bytes;
  r.cluster = head.cluster;
  r.cooperative = head.cooperative;
  r.attributes = head.attributes;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const capture::LaunchRecord& p = *parts[k];
    r.kernel += (k ? " + " : "") + p.kernel;
    r.capture_ms += p.capture_ms;
    // Each part's parameter bytes start 16-aligned in the merged buffer: the
    // merged buffer only feeds the per-step buffers the replay assembles.
    const std::uint64_t base = align16(r.param_buffer.size());
    r.param_buffer.resize(base, 0);
    r.param_buffer.insert(r.param_buffer.end(), p.param_buffer.begin(), p.param_buffer.end());
    m.param_base.push_back(static_cast<int>(r.params.size()));
    m.param_count.push_back(static_cast<int>(p.params.size()));
    m.geometry.push_back(LaunchGeometry{p.grid, p.block, p.dynamic_shared_bytes});
    const int first_param = static_cast<int>(r.params.size());
    for (const auto& s : p.params)
      r.params.push_back({first_param + s.index, base + s.offset, s.size});
    // Allocations, unified by address: the same base and size is the same
    // allocation; any other overlap cannot be replayed as separate buffers.
    std::vector<int> map;
    for (std::size_t a = 0; a < p.allocations.size(); ++a) {
      const capture::AllocationRecord& pa = p.allocations[a];
      int found = -1;
      for (std::size_t b = 0; b < r.allocations.size(); ++b) {
        const capture::AllocationRecord& ma = r.allocations[b];
        const bool overlap = pa.address < ma.address + ma.bytes && ma.address < pa.address + pa.bytes;
        if (!overlap) continue;
        if (pa.address != ma.address || pa.bytes != ma.bytes)
          return fail("allocation " + capture::hex_u64(pa.address) + " (" + std::to_string(pa.bytes) +
                      " bytes) of launch " + std::to_string(p.index) + " overlaps allocation " +
                      capture::hex_u64(ma.address) + " (" + std::to_string(ma.bytes) + " bytes) of an earlier launch "
                      "without being the same allocation");
        found = static_cast<int>(b);
        break;
      }
      if (found < 0) {
        found = static_cast<int>(r.allocations.size());
        r.allocations.push_back(pa);
        m.before_from.push_back({static_cast<int>(k), static_cast<int>(a)});
        m.after_from.push_back({static_cast<int>(k), static_cast<int>(a)});
      } else {
        // Touched before: what the earlier launch left must be what this one found.
        const MergedLaunch::Source last = m.after_from[static_cast<std::size_t>(found)];
        const capture::AllocationRecord& prev =
            parts[static_cast<std::size_t>(last.part)]->allocations[static_cast<std::size_t>(last.allocation)];
        if (prev.after_hash != pa.before_hash)
          return fail("allocation " + capture::hex_u64(pa.address) + " changed between launch " +
                      std::to_string(parts[static_cast<std::size_t>(last.part)]->index) + " and launch " +
                      std::to_string(p.index) + " (something the capture did not record wrote it): the two launches "
                      "cannot be replayed as one sequence");
        auto& merged = r.allocations[static_cast<std::size_t>(found)];
        merged.after_blob = pa.after_blob;
        merged.after_hash = pa.after_hash;
        merged.modified = merged.before_hash != merged.after_hash;
        merged.memory = pa.memory;
        m.after_from[static_cast<std::size_t>(found)] = {static_cast<int>(k), static_cast<int>(a)};
      }
      map.push_back(found);
    }
    for (const auto& ptr : p.pointers)
      r.pointers.push_back({first_param + ptr.param, base + ptr.buffer_offset, map.at(static_cast<std::size_t>(ptr.allocation)),
                            ptr.offset_in_allocation});
    m.allocation_of.push_back(std::move(map));
    // Module variables, unified by name: the first part's contents before,
    // the last writer's after (a sequence whose launches write them is not
    // verified: capture_verifier refuses modified module variables).
    r.globals_recorded = k == 0 ? p.globals_recorded : r.globals_recorded && p.globals_recorded;
    for (const auto& g : p.globals) {
      auto same = std::find_if(r.globals.begin(), r.globals.end(),
                               [&](const capture::ModuleGlobalRecord& x) { return x.name == g.name; });
      if (same == r.globals.end()) {
        r.globals.push_back(g);
      } else {
        same->after_blob = g.after_blob;
        same->after_hash = g.after_hash;
        same->modified = same->before_hash != same->after_hash || g.modified;
      }
    }
  }
  return m;
}

int allocation_of_param(const capture::LaunchRecord& record, int merged_param) {
  if (merged_param < 0 || static_cast<std::size_t>(merged_param) >= record.params.size()) return -1;
  for (const auto& p : record.pointers)
    if (p.param == merged_param && p.buffer_offset == record.params[static_cast<std::size_t>(merged_param)].offset)
      return p.allocation;
  return -1;
}

std::vector<std::pair<int, int>> select_launch_pairs(const capture::CaptureManifest& manifest, const FusionSpec& fusion,
                                                     std::string* error) {
  std::vector<std::pair<int, int>> pairs;
  const int consumer_tmp = fusion.consumer_temporary();
  int firsts = 0, seconds = 0;
  std::set<int> used;
  for (const auto& b : manifest.launches) {
    if (!names(b, fusion.second)) continue;
    ++seconds;
    if (consumer_tmp < 0 || static_cast<std::size_t>(consumer_tmp) >= b.params.size()) continue;
    const std::uint64_t wanted = pointer_value(b, consumer_tmp);
    for (auto it = manifest.launches.rbegin(); it != manifest.launches.rend(); ++it) {
      const auto& a = *it;
      if (a.index >= b.index || used.count(a.index) || !names(a, fusion.first)) continue;
      if (fusion.elided < 0 || static_cast<std::size_t>(fusion.elided) >= a.params.size()) break;
      if (wanted != 0 && pointer_value(a, fusion.elided) == wanted) {
        pairs.push_back({a.index, b.index});
        used.insert(a.index);
      }
      break;  // only the closest earlier producer can have fed this launch
    }
  }
  for (const auto& a : manifest.launches) firsts += names(a, fusion.first) ? 1 : 0;
  if (pairs.empty() && error) {
    *error = "the capture holds no launch of `" + fusion.first + "` followed by a launch of `" + fusion.second +
             "` that reads what it wrote (" + std::to_string(firsts) + " launch(es) of `" + fusion.first + "`, " +
             std::to_string(seconds) + " of `" + fusion.second + "`): capture both kernels (e.g. `warplens capture "
             "--kernel '" + fusion.first + "|" + fusion.second + "'`) to verify the fused candidate";
    if (!manifest.refusals.empty()) *error += "; refused: " + manifest.refusals.front().reason;
  }
  return pairs;
}

}  // namespace warplens::verifier
