// The roofline's inputs (analysis/work_estimate.h): flops counted by the
// front end (FlopSite) and global bytes, weighted by loop trip counts, on
// real parses.
#include <doctest/doctest.h>

#include "analysis/work_estimate.h"
#include "tests/unit/analysis/frontend_snippets.h"

using namespace warplens;
using namespace warplens::testing;

namespace {

const LaunchSite* first_launch(const KernelModel& m, const std::string& kernel) {
  for (const auto& l : m.launches)
    if (l.kernel == kernel) return &l;
  return nullptr;
}

}  // namespace

TEST_CASE("saxpy: 2 flops and 12 bytes per thread, per launch from a constant launch") {
  auto s = parse_snippet(R"cu(
__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;   // integer arithmetic: not flops
  if (i < n) y[i] = a * x[i] + y[i];
}
void run(const float* x, float* y) { saxpy<<<4096, 256>>>(2.0f, x, y, 1 << 20); }
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& k = s.function("saxpy");
  int flops = 0;
  for (const auto& f : k.flops) flops += f.flops;
  CHECK(flops == 2);
  WorkEstimate w = estimate_work(s.result.model, k, first_launch(s.result.model, "saxpy"));
  CHECK(w.modelled);
  CHECK(w.trips_known);
  CHECK(w.flops_per_thread == 2);
  CHECK(w.bytes_per_thread == 12);  // x[i], y[i] loaded, y[i] stored
  CHECK(w.intensity == doctest::Approx(2.0 / 12));
  CHECK_FALSE(w.fp64);
  REQUIRE(w.threads);
  CHECK(*w.threads == 4096.0 * 256);
  CHECK(*w.bytes_per_launch == 4096.0 * 256 * 12);
}

TEST_CASE("loops weight by their trip counts: constant, from a launch argument, or unknown (intensity only)") {
  auto s = parse_snippet(R"cu(
__device__ float fmadd(float a, float b, float c) { return fmaf(a, b, c); }
__global__ void dot_rows(const float* a, const float* b, float* out, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int j = 0; j < 16; ++j) acc += a[row * 16 + j] * b[j];       // 2 flops, 8 bytes, 16 times
  for (int j = 0; j < k; j += 2) acc = fmadd(a[j], b[j], acc);       // 2 flops, 8 bytes, k/2 times
  out[row] = acc;
}
void run(const float* a, const float* b, float* o) {
  dot_rows<<<64, 128>>>(a, b, o, 64);
}
void run_unknown(const float* a, const float* b, float* o, int k) {
  dot_rows<<<64, 128>>>(a, b, o, k);
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& k = s.function("dot_rows");
  CHECK(loop_trip_count(k.loops[0], {}) == 16);
  CHECK(loop_trip_count(k.loops[1], {{"k", 64}}) == 32);
  CHECK_FALSE(loop_trip_count(k.loops[1], {}));

  const auto& launches = s.result.model.launches;
  REQUIRE(launches.size() == 2);
  WorkEstimate known = estimate_work(s.result.model, k, &launches[0]);
  CHECK(known.trips_known);
  CHECK(known.flops_per_thread == 16 * 2 + 32 * 2);
  CHECK(known.bytes_per_thread == 16 * 8 + 32 * 8 + 4);

  WorkEstimate unknown = estimate_work(s.result.model, k, &launches[1]);
  CHECK_FALSE(unknown.trips_known);
  REQUIRE(unknown.unknown_loops.size() == 1);
  CHECK(unknown.unknown_loops[0].find("line 7: `") == 0);
  // As the unknown loop grows its body dominates: 2 flops per 8 bytes.
  CHECK(unknown.intensity == doctest::Approx(0.25).epsilon(0.01));
}

TEST_CASE("a copy has no flops: intensity 0; double precision is noted") {
  auto s = parse_snippet(R"cu(
__global__ void copy(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void dscale(double* x, double a) { x[threadIdx.x] *= a; }
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  WorkEstimate c = estimate_work(s.result.model, s.function("copy"), nullptr);
  CHECK(c.modelled);
  CHECK(c.intensity == 0);
  CHECK(c.bytes_per_thread == 8);
  WorkEstimate d = estimate_work(s.result.model, s.function("dscale"), nullptr);
  CHECK(d.fp64);
  CHECK(d.flops_per_thread == 1);
  CHECK_FALSE(d.threads);  // no launch
}
