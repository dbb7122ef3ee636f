#include <doctest/doctest.h>

#include "profiler/profile_merge.h"
#include "profiler/profile_tsv.h"
#include "test_support.h"

using namespace warplens;
using namespace warplens::profile;

TEST_CASE("profiles of several processes add up") {
  Profile a = test::load_fixture("transpose");
  Profile b = a;
  Profile merged = merge_processes({a, b});
  REQUIRE(merged.kernels.size() == a.kernels.size());
  REQUIRE(merged.lines.size() == a.lines.size());
  for (std::size_t i = 0; i < a.lines.size(); ++i) {
    CHECK(merged.lines[i].executed == 2 * a.lines[i].executed);
    CHECK(merged.lines[i].sectors == 2 * a.lines[i].sectors);
    CHECK(merged.lines[i].pcs == a.lines[i].pcs);
  }
  const Kernel& k = *merged.find_kernel("_Z15transpose_naivePfPKf");
  const Kernel& one = *a.find_kernel("_Z15transpose_naivePfPKf");
  CHECK(k.launch_count == 2 * one.launch_count);
  CHECK(k.metric_launches == 2 * one.metric_launches);
  CHECK(k.counters->global_sectors == 2 * one.counters->global_sectors);
  CHECK(k.timing.launches == 2 * one.timing.launches);
  CHECK(merged.memcpy.host_to_device.bytes == 2 * a.memcpy.host_to_device.bytes);
  CHECK(merged.has_warning("multiple-processes"));
  // One part comes back unchanged, none gives an empty profile.
  CHECK(merge_processes({a}) == a);
  CHECK(merge_processes({}).kernels.empty());
}

TEST_CASE("the timing pass adds durations, never metrics") {
  Profile metrics = test::load_fixture("transpose");
  for (Kernel& k : metrics.kernels) {
    std::erase_if(k.launches, [](const Launch& l) { return l.pass == "timing"; });
    k.timing = {};
  }
  Profile timing;
  Kernel t;
  t.mangled = "_Z15transpose_naivePfPKf";
  t.name = "transpose_naive(float*, float const*)";
  t.launch_count = 1;
  Launch l;
  l.pass = "timing";
  l.duration_ns = 35000;
  t.launches.push_back(l);
  t.timing.add(35000);
  timing.kernels.push_back(t);
  Kernel extra;
  extra.mangled = extra.name = "only_in_timing";
  extra.launch_count = 2;
  timing.kernels.push_back(extra);
  timing.passes.push_back({"timing", 400, 0, false});
  timing.warnings.push_back({"no-kernels", "should not survive"});

  const auto lines_before = metrics.lines;
  merge_timing_pass(metrics, timing);
  const Kernel& k = *metrics.find_kernel("_Z15transpose_naivePfPKf");
  CHECK(k.timing.launches == 1);
  CHECK(k.timing.total_ns == 35000);
  CHECK(k.launches.back().pass == "timing");
  CHECK(k.counters.has_value());
  CHECK(metrics.lines == lines_before);
  REQUIRE(metrics.find_kernel("only_in_timing"));
  CHECK_FALSE(metrics.find_kernel("only_in_timing")->counters.has_value());
  CHECK(metrics.passes.back().kind == "timing");
  CHECK_FALSE(metrics.has_warning("no-kernels"));
  CHECK_FALSE(metrics.has_warning("launches-differ"));

  timing.kernels[0].launch_count = 5;
  merge_timing_pass(metrics, timing);
  CHECK(metrics.has_warning("launches-differ"));
}

TEST_CASE("the TSV ground truth has one row per line record with its ratios") {
  Profile p = test::load_fixture("transpose");
  std::string tsv = to_tsv(p);
  std::istringstream in(tsv);
  std::string header;
  std::getline(in, header);
  CHECK(header == "file\tline\tkernel\tkind\texecuted\tactual\tideal\tper_request\tideal_per_request\tratio\texcess\tshare");
  std::size_t rows = 0;
  bool naive_store = false, tiled_read = false;
  for (std::string row; std::getline(in, row);) {
    ++rows;
    std::vector<std::string> cols;
    std::istringstream fields(row);
    for (std::string c; std::getline(fields, c, '\t');) cols.push_back(c);
    if (cols.size() == 11) cols.push_back("");  // trailing empty column
    REQUIRE(cols.size() == 12);
    if (cols[2] == "transpose_naive(float*, float const*)" && cols[3] == "global_store") {
      naive_store = true;
      CHECK(cols[7] == "32");   // sectors per request
      CHECK(cols[8] == "4");    // ideal per request
      CHECK(cols[9] == "8");    // ratio
      CHECK(cols[10] == "3670016");
      CHECK(cols[11] == "0.8889");
    }
    if (cols[2] == "transpose_tiled(float*, float const*)" && cols[3] == "shared_load") {
      tiled_read = true;
      CHECK(cols[9] == "32");
    }
    if (cols[3] == "all") CHECK(std::stod(cols[9]) <= 1.0);  // SIMT efficiency
  }
  CHECK(rows == p.lines.size());
  CHECK(naive_store);
  CHECK(tiled_read);
}
