#include "profiler/sass_aggregation.h"

#include <algorithm>

namespace warplens::profile {
namespace {

// What one PC adds to one per-line record: its kind and counts (no key).
using Contribution = LineMetrics;

// Load, store or neither, from the per-PC opcode counts. Values first (a
// generic LD has records for several spaces; the executed count says which
// it really was), then the mere presence of a record (a PC that never ran).
enum class Direction { Load, Store, Neither };
Direction direction(const PcValues& v, SassMetric ld, SassMetric st) {
  if (v[ld] > 0 && v[ld] >= v[st]) return Direction::Load;
  if (v[st] > 0) return Direction::Store;
  if (v.has(ld)) return Direction::Load;
  if (v.has(st)) return Direction::Store;
  return Direction::Neither;
}

std::vector<Contribution> classify(const PcValues& v) {
  using M = SassMetric;
  std::vector<Contribution> out;
  auto push = [&](const Contribution& c) {
    if (!c.empty()) out.push_back(c);
  };

  Contribution all;
  all.kind = LineKind::All;
  all.executed = v[M::InstExecuted];
  all.threads_executed = v[M::ThreadInstExecuted];
  push(all);

  if (v.has(M::SectorsGlobal) || v.has(M::SectorsGlobalIdeal) || v.has(M::OpGlobalLd) ||
      v.has(M::OpGlobalSt)) {
    Contribution c;
    switch (direction(v, M::OpGlobalLd, M::OpGlobalSt)) {
      case Direction::Load: c.kind = LineKind::GlobalLoad; c.executed = v[M::OpGlobalLd]; break;
      case Direction::Store: c.kind = LineKind::GlobalStore; c.executed = v[M::OpGlobalSt]; break;
      case Direction::Neither: c.kind = LineKind::GlobalOther; c.executed = v[M::InstExecuted]; break;
    }
    c.sectors = v[M::SectorsGlobal];
    c.sectors_ideal = v[M::SectorsGlobalIdeal];
    push(c);
  }
  if (v.has(M::WavefrontsShared) || v.has(M::WavefrontsSharedIdeal) || v.has(M::OpSharedLd) ||
      v.has(M::OpSharedSt)) {
    Contribution c;
    switch (direction(v, M::OpSharedLd, M::OpSharedSt)) {
      case Direction::Load: c.kind = LineKind::SharedLoad; c.executed = v[M::OpSharedLd]; break;
      case Direction::Store: c.kind = LineKind::SharedStore; c.executed = v[M::OpSharedSt]; break;
      case Direction::Neither: c.kind = LineKind::SharedOther; c.executed = v[M::InstExecuted]; break;
    }
    c.wavefronts = v[M::WavefrontsShared];
    c.wavefronts_ideal = v[M::WavefrontsSharedIdeal];
    push(c);
  }
  if (v.has(M::SectorsLocal) || v.has(M::OpLocalLd) || v.has(M::OpLocalSt)) {
    Contribution c;
    Direction d = direction(v, M::OpLocalLd, M::OpLocalSt);
    // Local memory has no "other" instructions worth a record of their own.
    if (d != Direction::Neither) {
      c.kind = d == Direction::Load ? LineKind::LocalLoad : LineKind::LocalStore;
      c.executed = d == Direction::Load ? v[M::OpLocalLd] : v[M::OpLocalSt];
      c.sectors = v[M::SectorsLocal];
      push(c);
    }
  }
  if (v.has(M::BranchDivergent) || v.has(M::BranchUniform)) {
    Contribution c;
    c.kind = LineKind::Branch;
    c.executed = v[M::InstExecuted];
    c.divergent = v[M::BranchDivergent];
    c.uniform = v[M::BranchUniform];
    push(c);
  }
  return out;
}

}  // namespace

void SassAggregator::add(const std::string& kernel, std::uint32_t pc, SassMetric m,
                         std::uint64_t value) {
  if (m == SassMetric::Count) return;
  PcValues& v = pcs_[{kernel, pc}];
  v.value[std::size_t(m)] += value;
  v.present.set(std::size_t(m));
}

void SassAggregator::set_location(const std::string& kernel, std::uint32_t pc, std::string file,
                                  int line) {
  PcValues& v = pcs_[{kernel, pc}];
  v.file = std::move(file);
  v.line = line;
}

bool SassAggregator::has_location(const std::string& kernel, std::uint32_t pc) const {
  auto it = pcs_.find({kernel, pc});
  return it != pcs_.end() && it->second.line > 0;
}

std::vector<LineMetrics> SassAggregator::lines() const {
  // Key: file, line, kernel, kind (the documented sort order).
  std::map<std::tuple<std::string, int, std::string, int>, LineMetrics> by_key;
  for (const auto& [key, v] : pcs_) {
    if (v.line <= 0) continue;
    const auto& [kernel, pc] = key;
    for (const Contribution& c : classify(v)) {
      LineMetrics& l = by_key[{v.file, v.line, kernel, int(c.kind)}];
      l.file = v.file;
      l.line = v.line;
      l.kernel = kernel;
      l.kind = c.kind;
      l.add_counts(c);
      l.pcs.push_back(pc);  // pcs_ is ordered, so each list is ascending
    }
  }
  std::vector<LineMetrics> out;
  out.reserve(by_key.size());
  for (auto& [key, l] : by_key) out.push_back(std::move(l));
  return out;
}

std::map<std::string, KernelCounters> SassAggregator::kernel_counters() const {
  std::map<std::string, KernelCounters> out;
  for (const auto& [key, v] : pcs_) {
    KernelCounters& k = out[key.first];
    for (const Contribution& c : classify(v)) {
      switch (c.kind) {
        case LineKind::All:
          k.inst_executed += c.executed;
          k.thread_inst_executed += c.threads_executed;
          if (v.line <= 0) k.unmapped_inst_executed += c.executed;
          break;
        case LineKind::GlobalLoad: k.global_load_requests += c.executed; break;
        case LineKind::GlobalStore: k.global_store_requests += c.executed; break;
        case LineKind::SharedLoad: k.shared_load_requests += c.executed; break;
        case LineKind::SharedStore: k.shared_store_requests += c.executed; break;
        case LineKind::Branch:
          k.branch_divergent += c.divergent;
          k.branch_uniform += c.uniform;
          break;
        default: break;
      }
      if (is_global(c.kind)) {
        k.global_sectors += c.sectors;
        k.global_sectors_ideal += c.sectors_ideal;
      }
      if (is_shared(c.kind)) {
        k.shared_wavefronts += c.wavefronts;
        k.shared_wavefronts_ideal += c.wavefronts_ideal;
      }
      if (is_local(c.kind)) k.local_sectors += c.sectors;
    }
  }
  return out;
}

}  // namespace warplens::profile
