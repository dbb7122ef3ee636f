#include <doctest/doctest.h>

#include "profiler/sass_aggregation.h"

using namespace warplens::profile;
using M = SassMetric;

namespace {

const LineMetrics* find(const std::vector<LineMetrics>& lines, int line, LineKind kind,
                        const std::string& kernel = "k") {
  for (const LineMetrics& l : lines)
    if (l.line == line && l.kind == kind && l.kernel == kernel) return &l;
  return nullptr;
}

// What CUPTI reports for one global memory instruction of the naive
// transpose (reference section 9): one record per metric that applies.
void global_access(SassAggregator& a, std::uint32_t pc, bool store, std::uint64_t sectors,
                   std::uint64_t ideal, std::uint64_t warps = 131072) {
  a.add("k", pc, M::InstExecuted, warps);
  a.add("k", pc, M::ThreadInstExecuted, warps * 32);
  a.add("k", pc, M::SectorsGlobal, sectors);
  a.add("k", pc, M::SectorsGlobalIdeal, ideal);
  a.add("k", pc, store ? M::OpGlobalSt : M::OpGlobalLd, warps);
}

}  // namespace

TEST_CASE("a load and a store on one line are told apart by their opcode counts") {
  SassAggregator a;
  global_access(a, 0xc0, false, 524288, 524288);
  global_access(a, 0xf0, true, 4194304, 524288);
  a.add("k", 0xd0, M::InstExecuted, 131072);  // an address computation on the same line
  a.add("k", 0xd0, M::ThreadInstExecuted, 131072 * 32);
  for (std::uint32_t pc : {0xc0u, 0xd0u, 0xf0u}) a.set_location("k", pc, "/src/t.cu", 79);

  auto lines = a.lines();
  REQUIRE(lines.size() == 3);
  const LineMetrics* load = find(lines, 79, LineKind::GlobalLoad);
  const LineMetrics* store = find(lines, 79, LineKind::GlobalStore);
  const LineMetrics* all = find(lines, 79, LineKind::All);
  REQUIRE(load);
  REQUIRE(store);
  REQUIRE(all);
  CHECK(load->sectors == 524288);
  CHECK(load->executed == 131072);
  CHECK(load->pcs == std::vector<std::uint32_t>{0xc0});
  CHECK(store->sectors == 4194304);
  CHECK(store->sectors_ideal == 524288);
  CHECK(store->pcs == std::vector<std::uint32_t>{0xf0});
  CHECK(all->executed == 3 * 131072);
  CHECK(all->threads_executed == 3 * 131072 * 32);
  CHECK(all->pcs == std::vector<std::uint32_t>{0xc0, 0xd0, 0xf0});
  // Documented order: file, line, kernel, kind.
  CHECK(lines[0].kind == LineKind::All);
  CHECK(lines[1].kind == LineKind::GlobalLoad);
  CHECK(lines[2].kind == LineKind::GlobalStore);

  auto counters = a.kernel_counters().at("k");
  CHECK(counters.global_sectors == 4194304 + 524288);
  CHECK(counters.global_sectors_ideal == 2 * 524288);
  CHECK(counters.global_load_requests == 131072);
  CHECK(counters.global_store_requests == 131072);
  CHECK(counters.inst_executed == 3 * 131072);
  CHECK(counters.unmapped_inst_executed == 0);
}

TEST_CASE("repeated flushes of the same PC accumulate") {
  SassAggregator a;
  global_access(a, 0xf0, true, 4194304, 524288);
  global_access(a, 0xf0, true, 4194304, 524288);  // second measured launch
  a.set_location("k", 0xf0, "/src/t.cu", 79);
  const LineMetrics* store = find(a.lines(), 79, LineKind::GlobalStore);
  REQUIRE(store);
  CHECK(store->executed == 2 * 131072);
  CHECK(store->sectors == 2 * 4194304);
  CHECK(store->sectors_ideal == 2 * 524288);
}

TEST_CASE("shared accesses, atomics, local memory and branches get their own kinds") {
  SassAggregator a;
  // Shared column read with a 32-way conflict.
  a.add("k", 0x1a0, M::InstExecuted, 131072);
  a.add("k", 0x1a0, M::WavefrontsShared, 4194304);
  a.add("k", 0x1a0, M::WavefrontsSharedIdeal, 131072);
  a.add("k", 0x1a0, M::OpSharedLd, 131072);
  // A global atomic: sectors but neither ld nor st.
  a.add("k", 0x200, M::InstExecuted, 100);
  a.add("k", 0x200, M::SectorsGlobal, 400);
  a.add("k", 0x200, M::SectorsGlobalIdeal, 400);
  // A spill store.
  a.add("k", 0x210, M::InstExecuted, 50);
  a.add("k", 0x210, M::OpLocalSt, 50);
  a.add("k", 0x210, M::SectorsLocal, 200);
  // A divergent branch.
  a.add("k", 0x220, M::InstExecuted, 1000);
  a.add("k", 0x220, M::BranchDivergent, 300);
  a.add("k", 0x220, M::BranchUniform, 700);
  a.set_location("k", 0x1a0, "/src/t.cu", 92);
  a.set_location("k", 0x200, "/src/t.cu", 93);
  a.set_location("k", 0x210, "/src/t.cu", 94);
  a.set_location("k", 0x220, "/src/t.cu", 95);

  auto lines = a.lines();
  const LineMetrics* shared = find(lines, 92, LineKind::SharedLoad);
  REQUIRE(shared);
  CHECK(shared->wavefronts == 4194304);
  CHECK(shared->wavefronts_ideal == 131072);
  const LineMetrics* atomic = find(lines, 93, LineKind::GlobalOther);
  REQUIRE(atomic);
  CHECK(atomic->executed == 100);
  CHECK(atomic->sectors == 400);
  const LineMetrics* spill = find(lines, 94, LineKind::LocalStore);
  REQUIRE(spill);
  CHECK(spill->sectors == 200);
  const LineMetrics* branch = find(lines, 95, LineKind::Branch);
  REQUIRE(branch);
  CHECK(branch->divergent == 300);
  CHECK(branch->uniform == 700);
  CHECK(branch->executed == 1000);

  auto c = a.kernel_counters().at("k");
  CHECK(c.shared_wavefronts == 4194304);
  CHECK(c.shared_load_requests == 131072);
  CHECK(c.local_sectors == 200);
  CHECK(c.branch_divergent == 300);
  CHECK(c.global_sectors == 400);
  CHECK(c.global_load_requests == 0);
}

TEST_CASE("a generic load that hit global and shared memory counts in both") {
  SassAggregator a;
  a.add("k", 0x40, M::InstExecuted, 10);
  a.add("k", 0x40, M::OpGlobalLd, 6);
  a.add("k", 0x40, M::OpSharedLd, 4);
  a.add("k", 0x40, M::OpLocalLd, 0);
  a.add("k", 0x40, M::SectorsGlobal, 24);
  a.add("k", 0x40, M::SectorsGlobalIdeal, 24);
  a.add("k", 0x40, M::WavefrontsShared, 4);
  a.add("k", 0x40, M::WavefrontsSharedIdeal, 4);
  a.set_location("k", 0x40, "/src/t.cu", 7);
  auto lines = a.lines();
  REQUIRE(find(lines, 7, LineKind::GlobalLoad));
  CHECK(find(lines, 7, LineKind::GlobalLoad)->executed == 6);
  REQUIRE(find(lines, 7, LineKind::SharedLoad));
  CHECK(find(lines, 7, LineKind::SharedLoad)->executed == 4);
  // The local-space record of a generic load that never hit local memory is empty: no record.
  CHECK_FALSE(find(lines, 7, LineKind::LocalLoad));
}

TEST_CASE("instructions without a source line count in the kernel but not per line") {
  SassAggregator a;
  global_access(a, 0x10, false, 8, 4, 2);
  global_access(a, 0x20, true, 4, 4, 2);
  a.set_location("k", 0x10, "", 0);  // no -lineinfo
  a.set_location("k", 0x20, "/src/t.cu", 3);
  CHECK_FALSE(a.has_location("k", 0x10));
  CHECK(a.has_location("k", 0x20));
  auto lines = a.lines();
  for (const LineMetrics& l : lines) CHECK(l.line == 3);
  auto c = a.kernel_counters().at("k");
  CHECK(c.inst_executed == 4);
  CHECK(c.unmapped_inst_executed == 2);
  CHECK(c.global_sectors == 12);
}

TEST_CASE("kernels stay apart even on a shared source line") {
  SassAggregator a;
  a.add("k1", 0x10, M::InstExecuted, 5);
  a.add("k2", 0x10, M::InstExecuted, 7);
  a.set_location("k1", 0x10, "/src/h.cuh", 12);
  a.set_location("k2", 0x10, "/src/h.cuh", 12);
  auto lines = a.lines();
  REQUIRE(lines.size() == 2);
  CHECK(find(lines, 12, LineKind::All, "k1")->executed == 5);
  CHECK(find(lines, 12, LineKind::All, "k2")->executed == 7);
}

TEST_CASE("metric names map both ways") {
  CHECK(sass_metric_from_name("smsp__sass_sectors_mem_global_ideal") == M::SectorsGlobalIdeal);
  CHECK(sass_metric_from_name("inst_executed_op_global_st") == M::OpGlobalSt);
  CHECK_FALSE(sass_metric_from_name("smsp__sass_bogus").has_value());
  for (const SassMetricInfo& info : kSassMetrics) CHECK(sass_metric_from_name(info.name) == info.metric);
}
