// Our occupancy numbers against the CUDA runtime's on real GPUs, from
// recordings made by tests/gpu/occupancy/run.sh (tests/fixtures/occupancy/
// <name>_measured.txt: the probe's output; <name>_ptxas.txt: ptxas -v of
// the same build). For each recording: the built-in table's per-SM limits
// must equal the device's, and the calculator fed with the table must give
// the runtime's blocks per SM for every kernel x block size x dynamic
// shared memory in it.
#include <doctest/doctest.h>

#include <filesystem>

#include "occupancy_measured.h"
#include "occupancy_test_support.h"
#include "tests/support/analysis_requirements.h"

using warplens::test::needs;

using namespace warplens;
using namespace warplens::test;

TEST_CASE("recorded GPU measurements agree with the table and the calculator" * needs("occupancy-calculator")) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(WARPLENS_SOURCE_DIR) / "tests/fixtures/occupancy";
  int recordings = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    const std::string suffix = "_measured.txt";
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    std::string stem = name.substr(0, name.size() - suffix.size());
    CAPTURE(stem);
    ++recordings;
    MeasuredRun run = parse_measured(read_fixture("occupancy/" + name));
    REQUIRE(run.valid);
    REQUIRE_FALSE(run.kernels.empty());
    REQUIRE_FALSE(run.occupancy.empty());
    ToolOutput ptxas = parse_nvcc_output(read_fixture("occupancy/" + stem + "_ptxas.txt"));
    auto table = catalog_properties(run.device.arch);
    REQUIRE_MESSAGE(table.has_value(), "no table entry for the recorded " << run.device.arch);
    for (const auto& m : compare_limits(*table, run.device)) FAIL_CHECK(m);
    // ptxas' numbers (what warplens reads) must be what the runtime reports.
    for (const auto& k : run.kernels) {
      const FunctionResources* f = ptxas_record(ptxas, k.prefix);
      REQUIRE_MESSAGE(f, "ptxas has no " << k.prefix);
      CHECK_MESSAGE(f->registers == k.regs, k.id);
      CHECK_MESSAGE(f->shared_static_bytes == k.static_smem, k.id);
    }
    Comparison c = compare_occupancy(run, *table, ptxas);
    CHECK(c.compared + c.beyond_launch_bounds == static_cast<int>(run.occupancy.size()));
    CHECK(c.compared > 400);
    for (const auto& m : c.mismatches) FAIL_CHECK(m);
    MESSAGE(stem << ": " << c.compared << " kernel x block x smem cases compared, " << c.beyond_launch_bounds
                 << " beyond __launch_bounds__ (the runtime API ignores it; warplens says 0)");
  }
  if (recordings == 0)
    MESSAGE("no GPU recordings in tests/fixtures/occupancy yet: run tests/gpu/occupancy/run.sh on a GPU");
}

TEST_CASE("the measured-output reader" * needs("occupancy-calculator")) {
  MeasuredRun run = parse_measured(
      "# warplens occupancy probe 1\n"
      "device 9 0 132 2048 32 65536 65536 233472 232448 1024 NVIDIA H200\n"
      "kernel transpose 14 4224 0 1024 transpose(\n"
      "occ transpose 256 0 8\n"
      "occ transpose 1024 100000 -1\n");
  REQUIRE(run.valid);
  CHECK(run.device.arch == "sm_90");
  CHECK(run.device.name == "NVIDIA H200");
  CHECK(run.device.shared_per_block_optin == 232448);
  REQUIRE(run.kernels.size() == 1);
  CHECK(run.kernels[0].prefix == "transpose(");
  REQUIRE(run.occupancy.size() == 2);
  CHECK(run.occupancy[1].blocks == -1);
  CHECK(compare_limits(*catalog_properties("sm_90"), run.device).empty());
  ToolOutput ptxas = parse_nvcc_output(read_fixture("ptxas/cuda13/kernels_sm_90.txt"));
  Comparison c = compare_occupancy(run, *catalog_properties("sm_90"), ptxas);
  CHECK(c.compared == 2);
  // 256 threads: 8 blocks (warps). 1024 threads + 100000 B: 2 blocks (warps, and
  // 233472 / 105344 B for shared memory), where the
  // runtime said "error" (-1 -> 0): reported as a mismatch, as it should be.
  REQUIRE(c.mismatches.size() == 1);
  CHECK(c.mismatches[0] == "transpose block 1024 dyn 100000: predicted 2, measured -1");
}
