// From flushed SASS records to per-line data, without CUPTI: the records
// are shaped as CUPTI returns them (one record per (PC, metric), one value
// each with GPU granularity; reference section 2) and carry the metric ids
// CUPTI 13.0 reports on GH100 (cupti-sass-metrics-by-chip.txt).
#include <doctest/doctest.h>

#include <map>
#include <sstream>

#include "profiler/sass_records.h"

using namespace warplens::profile;
using M = SassMetric;

namespace {

// Ids from cuptiSassMetricsGetMetrics on an H200 (CUDA 13.0).
constexpr std::uint64_t kInstExecuted = 8913560818632243504ull;
constexpr std::uint64_t kThreadInstExecuted = 949220859340395606ull;
constexpr std::uint64_t kSectorsGlobal = 6099573112343167309ull;
constexpr std::uint64_t kSectorsGlobalIdeal = 1001ull;  // any id works; the map decides
constexpr std::uint64_t kOpGlobalLd = 14128611626230268865ull;
constexpr std::uint64_t kOpGlobalSt = 12741742882152328035ull;

SassMetricIds configured() {
  SassMetricIds ids;
  ids.add(kInstExecuted, M::InstExecuted);
  ids.add(kThreadInstExecuted, M::ThreadInstExecuted);
  ids.add(kSectorsGlobal, M::SectorsGlobal);
  ids.add(kSectorsGlobalIdeal, M::SectorsGlobalIdeal);
  ids.add(kOpGlobalLd, M::OpGlobalLd);
  ids.add(kOpGlobalSt, M::OpGlobalSt);
  return ids;
}

SassRecord rec(const std::string& fn, std::uint32_t pc, std::uint64_t id, std::uint64_t value) {
  SassRecord r;
  r.function = fn;
  r.pc = pc;
  r.cubin_crc = 0x1234;
  r.values = {{id, value}};
  return r;
}

const std::string kNaive = "_Z15transpose_naivePfPKf";
constexpr std::uint64_t kWarps = 131072;

// The naive transpose's line 25 as CUPTI reports it: an address computation,
// the coalesced load at 0xc0 and the 8x store at 0xf0, one record per metric.
std::vector<SassRecord> naive_flush() {
  std::vector<SassRecord> r;
  for (std::uint32_t pc : {0x90u, 0xc0u, 0xf0u}) {
    r.push_back(rec(kNaive, pc, kInstExecuted, kWarps));
    r.push_back(rec(kNaive, pc, kThreadInstExecuted, kWarps * 32));
  }
  r.push_back(rec(kNaive, 0xc0, kSectorsGlobal, 524288));
  r.push_back(rec(kNaive, 0xc0, kSectorsGlobalIdeal, 524288));
  r.push_back(rec(kNaive, 0xc0, kOpGlobalLd, kWarps));
  r.push_back(rec(kNaive, 0xf0, kSectorsGlobal, 4194304));
  r.push_back(rec(kNaive, 0xf0, kSectorsGlobalIdeal, 524288));
  r.push_back(rec(kNaive, 0xf0, kOpGlobalSt, kWarps));
  return r;
}

struct CountingResolver {
  std::map<std::pair<std::string, std::uint32_t>, int> calls;
  LineResolver get() {
    return [this](const std::string& fn, std::uint32_t pc) {
      ++calls[{fn, pc}];
      return SourceLocation{"/src/profiler_transpose.cu", 25};
    };
  }
};

const LineMetrics* find(const std::vector<LineMetrics>& lines, LineKind kind) {
  for (const LineMetrics& l : lines)
    if (l.kind == kind) return &l;
  return nullptr;
}

}  // namespace

TEST_CASE("flushed records become the naive transpose's load and store records") {
  SassAggregator agg;
  CountingResolver resolver;
  SassFlushStats s = ingest_sass_records(naive_flush(), configured(), resolver.get(), agg);
  CHECK(s.records == 12);
  CHECK(s.values == 12);
  CHECK(s.matched_values == 12);
  CHECK(s.nonzero_values == 12);
  CHECK(s.unmatched_values == 0);
  CHECK(s.records_unmapped == 0);
  CHECK(sass_stats_warnings(s).empty());
  // One line lookup per PC, however many metrics it has.
  CHECK(resolver.calls.size() == 3);
  for (const auto& [key, n] : resolver.calls) CHECK(n == 1);

  auto lines = agg.lines();
  const LineMetrics* load = find(lines, LineKind::GlobalLoad);
  const LineMetrics* store = find(lines, LineKind::GlobalStore);
  REQUIRE(load);
  REQUIRE(store);
  CHECK(load->kernel == kNaive);
  CHECK(load->line == 25);
  CHECK(load->file == "/src/profiler_transpose.cu");
  CHECK(load->executed == kWarps);
  CHECK(load->sectors == 524288);
  CHECK(store->sectors == 4194304);
  CHECK(store->sectors_ideal == 524288);
  CHECK(store->pcs == std::vector<std::uint32_t>{0xf0});
  auto counters = agg.kernel_counters().at(kNaive);
  CHECK(counters.inst_executed == 3 * kWarps);
  CHECK(counters.unmapped_inst_executed == 0);
  CHECK(counters.global_store_requests == kWarps);
}

TEST_CASE("ids CUPTI returned that were never configured are counted and reported, not used") {
  // The failure this guards against: every value carries an id the
  // collector does not know (ids from another lookup, or none filled in).
  std::vector<SassRecord> records = naive_flush();
  for (SassRecord& r : records) r.values[0].metric_id = 0;
  SassAggregator agg;
  SassFlushStats s = ingest_sass_records(records, configured(), {}, agg);
  CHECK(s.values == 12);
  CHECK(s.matched_values == 0);
  CHECK(s.unmatched_values == 12);
  CHECK(s.unmatched_ids == std::set<std::uint64_t>{0});
  CHECK(agg.lines().empty());
  auto w = sass_stats_warnings(s);
  REQUIRE(w.size() == 1);
  CHECK(w[0].first == "sass-unknown-metric");
  CHECK(w[0].second.find("12 of 12 SASS values") == 0);
  CHECK(w[0].second.find("(0)") != std::string::npos);
}

TEST_CASE("records whose every value is 0 produce a warning, not silent empty lines") {
  // One explanation of the first H200 run under injection (180 records,
  // every counter 0): CUPTI's values themselves were 0.
  std::vector<SassRecord> records = naive_flush();
  for (SassRecord& r : records) r.values[0].value = 0;
  SassAggregator agg;
  SassFlushStats s = ingest_sass_records(records, configured(), {}, agg);
  CHECK(s.matched_values == 12);
  CHECK(s.nonzero_values == 0);
  CHECK(agg.lines().empty());
  auto w = sass_stats_warnings(s);
  REQUIRE(w.size() == 1);
  CHECK(w[0].first == "sass-all-zero");
  CHECK(w[0].second.find("12 SASS records") != std::string::npos);
}

TEST_CASE("a record without a function name goes to the launch's kernel, or is counted") {
  std::vector<SassRecord> records = naive_flush();
  for (SassRecord& r : records) r.function.clear();
  SassAggregator with_fallback;
  SassFlushStats s = ingest_sass_records(records, configured(), {}, with_fallback, kNaive);
  CHECK(s.records_without_function == 0);
  CHECK(with_fallback.kernel_counters().at(kNaive).inst_executed == 3 * kWarps);

  SassAggregator without;
  s = ingest_sass_records(records, configured(), {}, without);
  CHECK(s.records_without_function == 12);
  CHECK(s.values == 12);
  CHECK(without.pc_count() == 0);
  auto w = sass_stats_warnings(s);
  REQUIRE(w.size() == 1);
  CHECK(w[0].first == "sass-no-function");
}

TEST_CASE("several instances per record (SM granularity) are summed") {
  SassRecord r = rec(kNaive, 0x10, kInstExecuted, 0);
  r.values = {{kInstExecuted, 100}, {kInstExecuted, 0}, {kInstExecuted, 28}};
  SassAggregator agg;
  SassFlushStats s = ingest_sass_records({r}, configured(), {}, agg);
  CHECK(s.values == 3);
  CHECK(s.nonzero_values == 2);
  CHECK(agg.kernel_counters().at(kNaive).inst_executed == 128);
  // No resolver: the PC counts as unmapped.
  CHECK(s.records_unmapped == 1);
  CHECK(agg.kernel_counters().at(kNaive).unmapped_inst_executed == 128);
}

TEST_CASE("repeated flushes accumulate and their statistics merge") {
  SassAggregator agg;
  SassFlushStats total;
  total.merge(ingest_sass_records(naive_flush(), configured(), {}, agg));
  total.merge(ingest_sass_records(naive_flush(), configured(), {}, agg));
  CHECK(total.records == 24);
  CHECK(total.nonzero_values == 24);
  CHECK(agg.kernel_counters().at(kNaive).inst_executed == 6 * kWarps);

  SassFlushStats many;
  for (std::uint64_t id = 1; id <= 20; ++id) {
    SassFlushStats one;
    one.unmatched_values = 1;
    one.unmatched_ids = {id};
    many.merge(one);
  }
  CHECK(many.unmatched_values == 20);
  CHECK(many.unmatched_ids.size() == SassFlushStats::kMaxIds);
}

TEST_CASE("the raw dump lists every value before matching, with its line") {
  SassMetricIds ids = configured();
  std::ostringstream out;
  write_sass_dump_header(out, ids);
  std::vector<SassRecord> records = {rec(kNaive, 0xf0, kSectorsGlobal, 4194304),
                                     rec("", 0x20, 42, 7)};
  CountingResolver resolver;
  write_sass_dump_flush(out, 1, "_Z15transpose_naivePfPKf", records, ids, resolver.get());
  const std::string text = out.str();
  CHECK(text.rfind("# warplens-sass-dump/1\n", 0) == 0);
  CHECK(text.find("# metric 6099573112343167309 smsp__sass_sectors_mem_global\n") != std::string::npos);
  CHECK(text.find("\nflush\trecord\tcubin_crc\tfunction_index\tfunction\tpc\tinstance\tmetric_id\tmetric"
                  "\tvalue\tfile\tline\n") != std::string::npos);
  CHECK(text.find("# flush 1 _Z15transpose_naivePfPKf records 2 instances 1\n") != std::string::npos);
  CHECK(text.find("1\t0\t4660\t0\t_Z15transpose_naivePfPKf\t0xf0\t0\t6099573112343167309\t"
                  "smsp__sass_sectors_mem_global\t4194304\t/src/profiler_transpose.cu\t25\n") !=
        std::string::npos);
  // Unknown id and no function: still dumped, metric "?", no line lookup.
  CHECK(text.find("1\t1\t4660\t0\t\t0x20\t0\t42\t?\t7\t\t0\n") != std::string::npos);
  CHECK(resolver.calls.size() == 1);
}
