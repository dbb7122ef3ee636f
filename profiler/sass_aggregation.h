// From per-instruction SASS metric values to per-line and per-kernel records.
//
// CUPTI hands back one record per (PC, metric) holding a total over the
// flushed launches. The injection library feeds those values in here
// together with the PC's source line; this class sums them per PC and then
// classifies each PC:
//   - a PC that touched global memory becomes GlobalLoad or GlobalStore by
//     its opcode counts (inst_executed_op_global_ld / _st), or GlobalOther
//     when it has sectors but neither count (ATOM, RED, LDGSTS);
//   - shared and local likewise (wavefronts / local sectors);
//   - a PC with branch-target records becomes Branch;
//   - every PC also counts towards its line's All record.
// A generic LD that hit global memory in some warps and shared memory in
// others contributes to both spaces, each with its own counts.
//
// Plain C++ (no CUPTI), so the classification is unit-tested without a GPU.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "profiler/profile_data.h"
#include "profiler/sass_metrics.h"

namespace warplens::profile {

struct PcValues {
  std::array<std::uint64_t, kSassMetricCount> value{};
  std::bitset<kSassMetricCount> present;  // CUPTI emitted a record for this metric at this PC
  std::string file;                       // empty when the PC has no line information
  int line = 0;                           // 1-based; 0 = unknown

  std::uint64_t operator[](SassMetric m) const { return value[std::size_t(m)]; }
  bool has(SassMetric m) const { return present[std::size_t(m)]; }
};

class SassAggregator {
 public:
  // Adds `value` to metric `m` of (kernel, pc). Values of repeated flushes
  // (several measured launches) accumulate.
  void add(const std::string& kernel, std::uint32_t pc, SassMetric m, std::uint64_t value);
  // Records where (kernel, pc) is in the source. Line 0 = unknown.
  void set_location(const std::string& kernel, std::uint32_t pc, std::string file, int line);
  bool has_location(const std::string& kernel, std::uint32_t pc) const;

  // Per-line records, sorted by file, line, kernel, kind. PCs without a line
  // are left out (they still count in kernel_counters()).
  std::vector<LineMetrics> lines() const;
  // Per-kernel totals over every PC, keyed by mangled name.
  std::map<std::string, KernelCounters> kernel_counters() const;

  std::size_t pc_count() const { return pcs_.size(); }
  const std::map<std::pair<std::string, std::uint32_t>, PcValues>& pcs() const { return pcs_; }

 private:
  std::map<std::pair<std::string, std::uint32_t>, PcValues> pcs_;
};

}  // namespace warplens::profile
