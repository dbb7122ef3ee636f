#include <doctest/doctest.h>

#include "profiler/demangle.h"
#include "profiler/launch_policy.h"
#include "profiler/launch_table.h"

using namespace warplens::profile;

TEST_CASE("the kernel filter searches demangled and mangled names") {
  Settings s;
  s.kernel_regex = "naive|copy_strided<8>";
  LaunchPolicy p(s);
  CHECK(p.selected("_Z15transpose_naivePfPKf"));
  CHECK(p.selected("_Z12copy_stridedILi8EEvPfPKfi"));
  CHECK_FALSE(p.selected("_Z12copy_stridedILi2EEvPfPKfi"));
  CHECK_FALSE(p.selected("_Z15transpose_tiledPfPKf"));
  Settings mangled;
  mangled.kernel_regex = "^_Z15";
  LaunchPolicy q(mangled);
  CHECK(q.selected("_Z15transpose_tiledPfPKf"));
  CHECK_FALSE(q.selected("_Z5naivePfS_"));
}

TEST_CASE("an invalid filter selects everything and says why") {
  Settings s;
  s.kernel_regex = "naive(";
  std::string error;
  LaunchPolicy p(s, &error);
  CHECK(error.find("invalid kernel filter \"naive(\"") == 0);
  CHECK(p.selected("_Z5naivePfS_"));
}

TEST_CASE("only the first N launches of a selected kernel are measured") {
  Settings s;
  s.metric_launches = 2;
  s.kernel_regex = "naive";
  LaunchPolicy p(s);
  auto d0 = p.on_launch("_Z5naivePfS_", true);
  auto d1 = p.on_launch("_Z5naivePfS_", true);
  auto d2 = p.on_launch("_Z5naivePfS_", true);
  CHECK(d0.measure);
  CHECK(d0.index == 0);
  CHECK(d1.measure);
  CHECK(d1.index == 1);
  CHECK_FALSE(d2.measure);
  CHECK(d2.index == 2);
  CHECK(d2.selected);
  auto other = p.on_launch("_Z5tiledPfS_", true);
  CHECK_FALSE(other.selected);
  CHECK_FALSE(other.measure);
  CHECK(p.launches("_Z5naivePfS_") == 3);
  CHECK(p.measured("_Z5naivePfS_") == 2);
}

TEST_CASE("nothing is measured when metrics are off or unavailable") {
  Settings s;
  LaunchPolicy unavailable(s);
  CHECK_FALSE(unavailable.on_launch("_Z1kv", false).measure);
  CHECK(unavailable.measured("_Z1kv") == 0);
  // A launch that could not get the measurement slot does not use up the kernel's quota.
  CHECK(unavailable.on_launch("_Z1kv", true).measure);
  s.metrics = false;
  LaunchPolicy off(s);
  CHECK_FALSE(off.on_launch("_Z1kv", true).measure);
}

TEST_CASE("the time budget stops measuring and is reported") {
  Settings s;
  s.metric_launches = 100;
  s.budget_ms = 50;
  LaunchPolicy p(s);
  CHECK(p.on_launch("_Z1kv", true).measure);
  p.add_overhead_ms(30);
  CHECK(p.on_launch("_Z1kv", true).measure);
  p.add_overhead_ms(30);
  CHECK(p.budget_exhausted());
  auto d = p.on_launch("_Z1kv", true);
  CHECK_FALSE(d.measure);
  CHECK(d.budget_refused);
  CHECK(p.overhead_ms() == doctest::Approx(60));
}

TEST_CASE("demangling and base names") {
  CHECK(demangle("_Z5naivePfS_") == "naive(float*, float*)");
  CHECK(demangle("extern_c_kernel") == "extern_c_kernel");
  CHECK(demangle("_Zbroken") == "_Zbroken");
  CHECK(base_name("naive(float*, float*)") == "naive");
  CHECK(base_name("void copy_strided<8>(float*, float const*, int)") == "copy_strided");
  CHECK(base_name("void ns::Foo<int, 2>::bar<float>(float*)") == "bar");
  CHECK(base_name("ns::k(int)") == "k");
  CHECK(base_name("plain") == "plain");
}

namespace {
Launch launch(std::uint64_t ns) {
  Launch l;
  l.duration_ns = ns;
  l.grid = {64, 64, 1};
  return l;
}
}  // namespace

TEST_CASE("launches are numbered by correlation id, whatever order the records arrive in") {
  LaunchTable t;
  t.add("_Z1kv", 30, launch(300));
  t.add("_Z1kv", 10, launch(100));
  t.add("_Z1kv", 20, launch(200));
  t.mark_instrumented("_Z1kv", {10, 9}, 0);
  std::vector<Warning> warnings;
  auto kernels = t.kernels(100, "metrics", &warnings);
  REQUIRE(kernels.size() == 1);
  const Kernel& k = kernels[0];
  CHECK(k.name == "k()");
  CHECK(k.launch_count == 3);
  REQUIRE(k.launches.size() == 3);
  CHECK(k.launches[0].duration_ns == 100);
  CHECK(k.launches[0].instrumented);
  CHECK(k.launches[1].index == 1);
  CHECK(k.launches[2].duration_ns == 300);
  CHECK_FALSE(k.launches[2].instrumented);
  // Timing covers the uninstrumented launches only.
  CHECK(k.timing.launches == 2);
  CHECK(k.timing.total_ns == 500);
  CHECK(k.timing.min_ns == 200);
  CHECK(k.timing.max_ns == 300);
  CHECK(warnings.empty());
}

TEST_CASE("the runtime call's correlation id also identifies an instrumented launch") {
  LaunchTable t;
  t.add("_Z1kv", 41, launch(900));  // the activity record carries the runtime id
  t.add("_Z1kv", 52, launch(100));
  t.mark_instrumented("_Z1kv", {42, 41}, 0);
  auto kernels = t.kernels(100, "metrics", nullptr);
  CHECK(kernels[0].launches[0].instrumented);
  CHECK(kernels[0].timing.launches == 1);
}

TEST_CASE("unmatched correlation ids fall back to launch numbers, with a warning") {
  LaunchTable t;
  t.add("_Z1kv", 5, launch(900));
  t.add("_Z1kv", 6, launch(100));
  t.mark_instrumented("_Z1kv", {77, 0}, 0);  // ids the activity records never carry
  std::vector<Warning> warnings;
  auto kernels = t.kernels(100, "metrics", &warnings);
  CHECK(kernels[0].launches[0].instrumented);
  CHECK_FALSE(kernels[0].launches[1].instrumented);
  CHECK(kernels[0].timing.total_ns == 100);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].code == "launch-correlation");
}

TEST_CASE("launch lists and stored records are capped") {
  LaunchTable t(/*max_records=*/3);
  for (std::uint32_t i = 1; i <= 5; ++i) t.add("_Z1kv", i, launch(i * 10));
  std::vector<Warning> warnings;
  auto kernels = t.kernels(/*launch_records=*/2, "timing", &warnings);
  const Kernel& k = kernels[0];
  CHECK(k.launch_count == 5);
  CHECK(k.launches.size() == 2);
  CHECK(k.launches[0].pass == "timing");
  CHECK(k.timing.launches == 5);
  CHECK(k.timing.total_ns == 150);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].code == "launch-records-capped");
}
