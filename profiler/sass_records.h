// The records cuptiSassMetricsFlushData hands back, as plain C++, and the
// one step from them to the aggregator: match each value's metric id to a
// configured metric, attribute it to (function, PC), map the PC to a line.
//
// The injection library converts CUPTI's CUpti_SassMetrics_Data into
// SassRecord (SassFlushBuffer, profiler/inject/sass_flush_buffer.h) and calls
// ingest_sass_records(); nothing here needs CUPTI, so the path from flushed
// records to per-line data is unit-tested with synthetic records.
//
// The statistics say what a flush contained even when nothing could be
// attributed (ids that were never configured, values that were all 0):
// the profile reports them, so a broken collection explains itself instead
// of producing an empty profile.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "profiler/sass_aggregation.h"
#include "profiler/sass_metrics.h"

namespace warplens::profile {

// One {metricId, value} slot of a record (CUpti_SassMetrics_InstanceValue).
struct SassInstanceValue {
  std::uint64_t metric_id = 0;
  std::uint64_t value = 0;
};

// One flushed record (CUpti_SassMetrics_Data). With GPU granularity CUPTI
// returns one record per (PC, metric) holding one value.
struct SassRecord {
  std::string function;              // mangled; empty when CUPTI gave no name
  std::uint32_t pc = 0;              // offset within the function
  std::uint32_t cubin_crc = 0;
  std::uint32_t function_index = 0;
  std::vector<SassInstanceValue> values;  // numOfInstances slots
};

// The configured metrics by the id cuptiSassMetricsGetProperties returned.
class SassMetricIds {
 public:
  void add(std::uint64_t id, SassMetric m) { ids_[id] = m; }
  std::optional<SassMetric> find(std::uint64_t id) const;
  bool empty() const { return ids_.empty(); }
  const std::map<std::uint64_t, SassMetric>& all() const { return ids_; }

 private:
  std::map<std::uint64_t, SassMetric> ids_;
};

struct SourceLocation {
  std::string file;  // empty when unknown
  int line = 0;      // 1-based; 0 = unknown
};
// Maps (mangled function, PC offset) to its source line (the cubin store).
using LineResolver = std::function<SourceLocation(const std::string& function, std::uint32_t pc)>;

// What the flushes contained, summed over flushes.
struct SassFlushStats {
  std::uint64_t records = 0;
  std::uint64_t records_without_function = 0;  // no name from CUPTI and no fallback
  std::uint64_t records_unmapped = 0;          // attributed, but no source line
  std::uint64_t values = 0;                    // instance values read
  std::uint64_t matched_values = 0;            // ... whose metric id was configured
  std::uint64_t nonzero_values = 0;            // ... and not 0
  std::uint64_t unmatched_values = 0;          // ... whose id was never configured
  std::set<std::uint64_t> unmatched_ids;       // the first kMaxIds of them
  static constexpr std::size_t kMaxIds = 8;

  void merge(const SassFlushStats& o);
};

// Adds the records' values to `into` and maps each record's PC through
// `resolve` (once per (function, PC)). `fallback_function` names the kernel
// of a record CUPTI returned without a function name (per-launch mode knows
// which kernel the flush holds); empty: such records are counted, not used.
SassFlushStats ingest_sass_records(const std::vector<SassRecord>& records, const SassMetricIds& ids,
                                   const LineResolver& resolve, SassAggregator& into,
                                   const std::string& fallback_function = {});

// Warnings a profile should carry about the flushed data, as (code, message):
// ids CUPTI returned that were never configured, records whose values were
// all 0, records without a function. Empty when the data looks sound.
std::vector<std::pair<std::string, std::string>> sass_stats_warnings(const SassFlushStats& s);

// Raw dump of flushed records (WARPLENS_PROFILE_SASS_DUMP): one TSV line per
// instance value, written before any matching, so what CUPTI returned is on
// record even when attribution fails. Format (docs/profile-format.md):
//   # warplens-sass-dump/1
//   # metric <id> <name>                        (one per configured metric)
//   # flush <n> <label> records <R> instances <K>
//   flush  record  cubin_crc  function_index  function  pc  instance  metric_id  metric  value  file  line
void write_sass_dump_header(std::ostream& out, const SassMetricIds& ids);
void write_sass_dump_flush(std::ostream& out, std::uint64_t flush, const std::string& label,
                           const std::vector<SassRecord>& records, const SassMetricIds& ids,
                           const LineResolver& resolve);

}  // namespace warplens::profile
