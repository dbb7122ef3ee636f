// The injection library's flush buffer with CUPTI's own structs, filled the
// way cuptiSassMetricsFlushData fills them (no GPU, no libcupti call): the
// conversion to plain records and the ingestion into per-line data are the
// code the library runs after every flush.
#include <doctest/doctest.h>

#include <cstring>

#include "profiler/inject/sass_flush_buffer.h"

using namespace warplens;
using namespace warplens::profile;
using warplens::inject::SassFlushBuffer;

namespace {

constexpr std::uint64_t kInstExecuted = 8913560818632243504ull;
constexpr std::uint64_t kSectorsGlobal = 6099573112343167309ull;
constexpr std::uint64_t kSectorsGlobalIdeal = 2466409441417340003ull;
constexpr std::uint64_t kOpGlobalSt = 12741742882152328035ull;

// What CUPTI does to record `i`: allocates the name, fills the fields and
// writes the value slots it was given.
void cupti_fills(CUpti_SassMetrics_Data& d, const char* fn, std::uint32_t pc, std::uint64_t id,
                 std::uint64_t value) {
  d.functionName = strdup(fn);
  d.pcOffset = pc;
  d.cubinCrc = 0xabcd;
  d.functionIndex = 3;
  d.pInstanceValues[0].metricId = id;
  d.pInstanceValues[0].value = value;
}

}  // namespace

TEST_CASE("every record gets its own value slots, zeroed, as in the reference probe") {
  SassFlushBuffer b(4, 1, 15);
  CHECK(b.records() == 4);
  CHECK(b.instances() == 1);
  CUpti_SassMetrics_Data* d = b.data();
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(d[i].functionName == nullptr);
    CHECK(d[i].structSize == 0);
    REQUIRE(d[i].pInstanceValues != nullptr);
    CHECK(d[i].pInstanceValues[0].metricId == 0);
    if (i > 0) CHECK(d[i].pInstanceValues - d[i - 1].pInstanceValues == 15);  // K x metrics apart
  }
}

TEST_CASE("what CUPTI wrote becomes plain records and then the store's line record") {
  SassFlushBuffer b(4, 1, 4);
  CUpti_SassMetrics_Data* d = b.data();
  cupti_fills(d[0], "_Z15transpose_naivePfPKf", 0xf0, kInstExecuted, 131072);
  cupti_fills(d[1], "_Z15transpose_naivePfPKf", 0xf0, kSectorsGlobal, 4194304);
  cupti_fills(d[2], "_Z15transpose_naivePfPKf", 0xf0, kSectorsGlobalIdeal, 524288);
  cupti_fills(d[3], "_Z15transpose_naivePfPKf", 0xf0, kOpGlobalSt, 131072);

  std::size_t extra = 99;
  std::vector<SassRecord> records = b.take(&extra);
  CHECK(extra == 0);
  for (std::size_t i = 0; i < 4; ++i) CHECK(d[i].functionName == nullptr);  // freed by take()
  REQUIRE(records.size() == 4);
  CHECK(records[1].function == "_Z15transpose_naivePfPKf");
  CHECK(records[1].pc == 0xf0);
  CHECK(records[1].cubin_crc == 0xabcd);
  CHECK(records[1].function_index == 3);
  REQUIRE(records[1].values.size() == 1);
  CHECK(records[1].values[0].metric_id == kSectorsGlobal);
  CHECK(records[1].values[0].value == 4194304);

  SassMetricIds ids;
  ids.add(kInstExecuted, SassMetric::InstExecuted);
  ids.add(kSectorsGlobal, SassMetric::SectorsGlobal);
  ids.add(kSectorsGlobalIdeal, SassMetric::SectorsGlobalIdeal);
  ids.add(kOpGlobalSt, SassMetric::OpGlobalSt);
  SassAggregator agg;
  auto resolve = [](const std::string&, std::uint32_t) { return SourceLocation{"/t.cu", 25}; };
  SassFlushStats s = ingest_sass_records(records, ids, resolve, agg);
  CHECK(s.nonzero_values == 4);
  auto lines = agg.lines();
  const LineMetrics* store = nullptr;
  for (const LineMetrics& l : lines)
    if (l.kind == LineKind::GlobalStore) store = &l;
  REQUIRE(store);
  CHECK(store->executed == 131072);
  CHECK(double(store->sectors) / double(store->executed) == doctest::Approx(32.0));
  CHECK(store->sectors_ideal == 524288);
}

TEST_CASE("values CUPTI wrote beyond the documented slots are counted, not read") {
  SassFlushBuffer b(2, 1, 3);
  CUpti_SassMetrics_Data* d = b.data();
  cupti_fills(d[0], "k", 0x10, kInstExecuted, 5);
  d[0].pInstanceValues[1] = {kSectorsGlobal, 7};  // a second value in record 0
  cupti_fills(d[1], "k", 0x20, kInstExecuted, 6);
  std::size_t extra = 0;
  std::vector<SassRecord> records = b.take(&extra);
  CHECK(extra == 1);
  REQUIRE(records[0].values.size() == 1);
  CHECK(records[0].values[0].value == 5);
}

TEST_CASE("a record CUPTI pointed at its own value array is read from there") {
  SassFlushBuffer b(1, 2, 1);
  CUpti_SassMetrics_InstanceValue elsewhere[2] = {{kInstExecuted, 3}, {kInstExecuted, 4}};
  b.data()[0].pInstanceValues = elsewhere;
  std::vector<SassRecord> records = b.take();
  REQUIRE(records[0].values.size() == 2);
  CHECK(records[0].values[1].value == 4);
  CHECK(records[0].function.empty());
}

TEST_CASE("names CUPTI allocated are freed even when nobody takes the records") {
  // Run under ASan/valgrind this would show a leak or a double free.
  SassFlushBuffer b(1, 1, 1);
  b.data()[0].functionName = strdup("k");
}
