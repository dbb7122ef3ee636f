#include <doctest/doctest.h>

#include <algorithm>

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
  REQUIRE(merged.find_kernel("_Z15transpose_naivePfPKf"));
  REQUIRE(a.find_kernel("_Z15transpose_naivePfPKf"));
  const Kernel& k = *merged.find_kernel("_Z15transpose_naivePfPKf");
  const Kernel& one = *a.find_kernel("_Z15transpose_naivePfPKf");
  CHECK(k.launch_count == 2 * one.launch_count);
  CHECK(k.metric_launches == 2 * one.metric_launches);
  REQUIRE(k.counters);
  REQUIRE(one.counters);
  CHECK(k.counters->global_sectors == 2 * one.counters->global_sectors);
  CHECK(k.timing.launches == 2 * one.timing.launches);
  CHECK(merged.memcpy.host_to_device.bytes == 2 * a.memcpy.host_to_device.bytes);
  CHECK(merged.has_warning("multiple-processes"));
  // One part comes back unchanged, none gives an empty profile.
  CHECK(merge_processes({a}) == a);
  CHECK(merge_processes({}).kernels.empty());
}

namespace {

// The two passes of a transpose run as the injection library writes them:
// the metrics pass (lines, counters, counts; no Activity API) and the
// timing pass (launches, durations, copies; no SASS metrics, no chip).
struct TwoPasses {
  Profile metrics, timing;
};

TwoPasses split_fixture() {
  const Profile whole = test::load_fixture("transpose");
  TwoPasses t;
  t.metrics = whole;
  t.metrics.memcpy = {};
  t.metrics.passes = {{"metrics", 520, 0, true}};
  for (Kernel& k : t.metrics.kernels) {
    k.launches.clear();
    k.timing = {};
  }
  t.timing = whole;
  t.timing.lines.clear();
  t.timing.collector = {};
  t.timing.passes = {{"timing", 475, 0, false}};
  t.timing.devices[0].chip.clear();
  for (Kernel& k : t.timing.kernels) {
    k.counters.reset();
    k.metric_launches = 0;
  }
  return t;
}

}  // namespace

TEST_CASE("the timing pass brings launches, durations and copies; the metrics pass everything measured") {
  TwoPasses t = split_fixture();
  const Profile whole = test::load_fixture("transpose");
  Profile merged = t.metrics;
  merge_timing_pass(merged, t.timing);
  CHECK(merged.lines == whole.lines);
  REQUIRE(merged.kernels.size() == whole.kernels.size());
  for (const Kernel& k : merged.kernels) {
    CAPTURE(k.name);
    const Kernel* w = whole.find_kernel(k.mangled);
    REQUIRE(w);
    CHECK(k.counters == w->counters);
    CHECK(k.metric_launches == w->metric_launches);
    CHECK(k.launch_count == w->launch_count);
    CHECK(k.launches == w->launches);
    CHECK(k.timing == w->timing);
  }
  CHECK(merged.memcpy == whole.memcpy);
  REQUIRE(merged.devices.size() == 1);
  CHECK(merged.devices[0] == whole.devices[0]);  // the metrics pass's chip kept
  REQUIRE(merged.passes.size() == 2);
  CHECK(merged.passes[0].kind == "metrics");
  CHECK(merged.passes[1].kind == "timing");
  CHECK(merged.collector == whole.collector);
  CHECK_FALSE(merged.has_warning("launches-differ"));
}

TEST_CASE("merging the passes: devices only one pass described, kernels only one pass saw") {
  TwoPasses t = split_fixture();
  // A metrics pass that knew only the chip (as the second H200 run wrote it).
  const Device described = t.timing.devices[0];
  t.metrics.devices[0] = Device{};
  t.metrics.devices[0].chip = "GH100";
  Kernel extra;
  extra.mangled = extra.name = "only_in_timing";
  extra.launch_count = 2;
  extra.timing.add(1000);
  extra.timing.add(1000);
  t.timing.kernels.push_back(extra);
  t.timing.warnings.push_back({"no-kernels", "should not survive"});
  t.timing.warnings.push_back({"activity-dropped", "3 activity records were dropped"});
  t.metrics.kernels[0].launch_count = 5;

  Profile merged = t.metrics;
  merge_timing_pass(merged, t.timing);
  REQUIRE(merged.devices.size() == 1);
  CHECK(merged.devices[0].name == described.name);
  CHECK(merged.devices[0].arch() == "sm_90");
  CHECK(merged.devices[0].peak_bandwidth_gbs == described.peak_bandwidth_gbs);
  CHECK(merged.devices[0].chip == "GH100");
  REQUIRE(merged.find_kernel("only_in_timing"));
  CHECK_FALSE(merged.find_kernel("only_in_timing")->counters.has_value());
  CHECK(merged.find_kernel("only_in_timing")->timing.launches == 2);
  CHECK(merged.has_warning("launches-differ"));
  CHECK_FALSE(merged.has_warning("no-kernels"));
  bool prefixed = false;
  for (const Warning& w : merged.warnings)
    prefixed |= w.code == "activity-dropped" && w.message == "timing pass: 3 activity records were dropped";
  CHECK(prefixed);
  CHECK(std::is_sorted(merged.kernels.begin(), merged.kernels.end(),
                       [](const Kernel& a, const Kernel& b) { return a.name < b.name; }));

  // A kernel the timing pass never saw keeps its metrics and has no durations.
  TwoPasses u = split_fixture();
  u.timing.kernels.erase(u.timing.kernels.begin());
  Profile partial = u.metrics;
  merge_timing_pass(partial, u.timing);
  REQUIRE(partial.kernels.size() == 3);
  CHECK(partial.has_warning("launches-differ"));
  int untimed = 0;
  for (const Kernel& k : partial.kernels) untimed += k.timing.launches == 0 && k.counters.has_value();
  CHECK(untimed == 1);
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
