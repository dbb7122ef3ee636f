#include "profiler/sass_records.h"

#include <ostream>

namespace warplens::profile {
namespace {

std::string metric_label(const SassMetricIds& ids, std::uint64_t id) {
  auto m = ids.find(id);
  return m ? std::string(kSassMetricPrefix) + std::string(sass_metric_name(*m)) : "?";
}

// Tabs and newlines in a (demangled-looking or garbage) name would break the
// TSV; CUPTI's names are mangled symbols, so this is only a safeguard.
std::string tsv_field(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return out;
}

}  // namespace

std::optional<SassMetric> SassMetricIds::find(std::uint64_t id) const {
  auto it = ids_.find(id);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

void SassFlushStats::merge(const SassFlushStats& o) {
  records += o.records;
  records_without_function += o.records_without_function;
  records_unmapped += o.records_unmapped;
  values += o.values;
  matched_values += o.matched_values;
  nonzero_values += o.nonzero_values;
  unmatched_values += o.unmatched_values;
  for (std::uint64_t id : o.unmatched_ids) {
    if (unmatched_ids.size() >= kMaxIds) break;
    unmatched_ids.insert(id);
  }
}

SassFlushStats ingest_sass_records(const std::vector<SassRecord>& records, const SassMetricIds& ids,
                                   const LineResolver& resolve, SassAggregator& into,
                                   const std::string& fallback_function) {
  SassFlushStats s;
  for (const SassRecord& r : records) {
    ++s.records;
    const std::string& function = r.function.empty() ? fallback_function : r.function;
    if (function.empty()) {
      ++s.records_without_function;
      s.values += r.values.size();
      continue;
    }
    // With SM or SMSP granularity a record holds one value per SM / SM
    // sub-partition: they are summed (the aggregator adds repeated metrics).
    for (const SassInstanceValue& v : r.values) {
      ++s.values;
      std::optional<SassMetric> m = ids.find(v.metric_id);
      if (!m) {
        ++s.unmatched_values;
        if (s.unmatched_ids.size() < SassFlushStats::kMaxIds) s.unmatched_ids.insert(v.metric_id);
        continue;
      }
      ++s.matched_values;
      if (v.value != 0) ++s.nonzero_values;
      into.add(function, r.pc, *m, v.value);
    }
    if (!into.has_location(function, r.pc)) {
      SourceLocation where = resolve ? resolve(function, r.pc) : SourceLocation{};
      if (where.line <= 0) ++s.records_unmapped;
      into.set_location(function, r.pc, std::move(where.file), where.line);
    }
  }
  return s;
}

std::vector<std::pair<std::string, std::string>> sass_stats_warnings(const SassFlushStats& s) {
  std::vector<std::pair<std::string, std::string>> out;
  if (s.unmatched_values > 0) {
    std::string ids;
    for (std::uint64_t id : s.unmatched_ids) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    out.emplace_back("sass-unknown-metric",
                     std::to_string(s.unmatched_values) + " of " + std::to_string(s.values) +
                         " SASS values carried metric ids that were never configured (" + ids +
                         "); they were left out");
  }
  if (s.matched_values > 0 && s.nonzero_values == 0) {
    out.emplace_back("sass-all-zero",
                     "CUPTI returned " + std::to_string(s.records) +
                         " SASS records, but every value was 0: the instrumented kernels ran "
                         "without their counts reaching the flush, so per-line metrics are missing");
  }
  if (s.records_without_function > 0) {
    out.emplace_back("sass-no-function", std::to_string(s.records_without_function) +
                                             " SASS records came without a function name and "
                                             "were left out");
  }
  return out;
}

void write_sass_dump_header(std::ostream& out, const SassMetricIds& ids) {
  out << "# warplens-sass-dump/1\n";
  for (const auto& [id, metric] : ids.all())
    out << "# metric " << id << ' ' << kSassMetricPrefix << sass_metric_name(metric) << '\n';
  out << "flush\trecord\tcubin_crc\tfunction_index\tfunction\tpc\tinstance\tmetric_id\tmetric\tvalue"
         "\tfile\tline\n";
}

void write_sass_dump_flush(std::ostream& out, std::uint64_t flush, const std::string& label,
                           const std::vector<SassRecord>& records, const SassMetricIds& ids,
                           const LineResolver& resolve) {
  std::size_t instances = records.empty() ? 0 : records.front().values.size();
  out << "# flush " << flush << ' ' << tsv_field(label) << " records " << records.size()
      << " instances " << instances << '\n';
  for (std::size_t i = 0; i < records.size(); ++i) {
    const SassRecord& r = records[i];
    SourceLocation where;
    if (resolve && !r.function.empty()) where = resolve(r.function, r.pc);
    auto prefix = [&](std::size_t instance) -> std::ostream& {
      return out << flush << '\t' << i << '\t' << r.cubin_crc << '\t' << r.function_index << '\t'
                 << tsv_field(r.function) << "\t0x" << std::hex << r.pc << std::dec << '\t'
                 << instance << '\t';
    };
    if (r.values.empty()) {
      prefix(0) << "\t\t\t" << tsv_field(where.file) << '\t' << where.line << '\n';
      continue;
    }
    for (std::size_t k = 0; k < r.values.size(); ++k) {
      const SassInstanceValue& v = r.values[k];
      prefix(k) << v.metric_id << '\t' << metric_label(ids, v.metric_id) << '\t' << v.value << '\t'
                << tsv_field(where.file) << '\t' << where.line << '\n';
    }
  }
  out.flush();
}

}  // namespace warplens::profile
