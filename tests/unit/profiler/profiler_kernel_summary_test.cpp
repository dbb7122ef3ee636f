#include <doctest/doctest.h>

#include "profiler/kernel_summary.h"
#include "profiler/units.h"
#include "test_support.h"

using namespace warplens;
using namespace warplens::profile;

TEST_CASE("kernel summaries: time per launch and bandwidth against the peak") {
  Profile p = test::load_fixture("transpose");
  auto summaries = kernel_summaries(p);
  REQUIRE(summaries.size() == 3);
  const KernelSummary* naive = nullptr;
  for (const KernelSummary& s : summaries)
    if (s.mangled == "_Z15transpose_naivePfPKf") naive = &s;
  REQUIRE(naive);
  const Kernel& k = *p.find_kernel(naive->mangled);
  REQUIRE(naive->mean_ns);
  CHECK(*naive->mean_ns == doctest::Approx(k.timing.mean_ns()));
  REQUIRE(naive->effective_bytes_per_launch);
  CHECK(*naive->effective_bytes_per_launch ==
        doctest::Approx(double(k.counters->global_sectors_ideal) * 32 / double(k.metric_launches)));
  // The naive transpose reads and writes each of its 2048 x 2048 floats once.
  CHECK(*naive->effective_bytes_per_launch == doctest::Approx(2.0 * 2048 * 2048 * 4));
  REQUIRE(naive->requested_bytes_per_launch);
  CHECK(*naive->requested_bytes_per_launch ==
        doctest::Approx(double(k.counters->global_sectors) * 32 / double(k.metric_launches)));
  REQUIRE(naive->effective_gbs);
  CHECK(*naive->effective_gbs == doctest::Approx(*naive->effective_bytes_per_launch / *naive->mean_ns));
  CHECK(*naive->requested_gbs > *naive->effective_gbs);  // its excess sectors
  REQUIRE(naive->fraction_of_peak);
  CHECK(*naive->fraction_of_peak == doctest::Approx(*naive->effective_gbs / p.devices[0].peak_bandwidth_gbs));
  CHECK(naive->title.find("/launch · ") != std::string::npos);
  CHECK(naive->title.find(" effective (") != std::string::npos);
  CHECK(naive->title.find(" of " + format_bandwidth_gbs(p.devices[0].peak_bandwidth_gbs) + " peak)") !=
        std::string::npos);
}

TEST_CASE("a measured kernel without timings (a metrics-only run) says so instead of a wrong time") {
  Profile p;
  Kernel k;
  k.name = "k()";
  k.mangled = "_Z1kv";
  k.launch_count = 1;
  k.metric_launches = 1;
  k.counters = KernelCounters{};
  p.kernels.push_back(k);
  auto s = kernel_summaries(p);
  REQUIRE(s.size() == 1);
  CHECK_FALSE(s[0].mean_ns);
  CHECK_FALSE(s[0].effective_gbs);
  CHECK(s[0].title == "not timed (no timing pass) · 1 launch");
}

TEST_CASE("measured kernels are matched to the model's kernels") {
  KernelModel m;
  auto add = [&](std::string name, std::string key, std::string targs, int params) {
    Function f;
    f.name = std::move(name);
    f.key = std::move(key);
    f.template_args = std::move(targs);
    f.kind = FunctionKind::Kernel;
    f.params.resize(std::size_t(params));
    m.functions.push_back(f);
  };
  add("copy_strided", "copy_strided<1>", "<1>", 3);
  add("copy_strided", "copy_strided<8>", "<8>", 3);
  add("scale", "scale(float*, int)", "", 2);
  add("scale", "scale(float*)", "", 1);
  Function dev;
  dev.name = "helper";
  dev.kind = FunctionKind::Device;
  m.functions.push_back(dev);

  CHECK(find_model_kernel(m, "void copy_strided<8>(float*, float const*, int)")->key == "copy_strided<8>");
  CHECK(find_model_kernel(m, "scale(float*)")->key == "scale(float*)");
  CHECK(find_model_kernel(m, "scale(float*, int)")->key == "scale(float*, int)");
  CHECK(find_model_kernel(m, "helper()") == nullptr);  // not a kernel
  CHECK(find_model_kernel(m, "absent(int)") == nullptr);
}

TEST_CASE("human units") {
  CHECK(format_duration_ns(812) == "812 ns");
  CHECK(format_duration_ns(52100) == "52.1 µs");
  CHECK(format_duration_ns(1234000) == "1.23 ms");
  CHECK(format_count(812) == "812");
  CHECK(format_count(3670016) == "3.7 M");
  CHECK(format_count(14700) == "14.7 k");
  CHECK(format_bandwidth_gbs(644.2) == "644 GB/s");
  CHECK(format_bandwidth_gbs(4916.7) == "4.92 TB/s");
  CHECK(format_ratio(8) == "8.0");
  CHECK(format_ratio(1.25) == "1.25");
  CHECK(format_percent(0.889) == "89%");
  CHECK(format_percent(0.004) == "0.4%");
}
