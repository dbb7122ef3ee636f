// divergent-barrier and warp-divergence end to end: annotated CUDA snippets
// through the real front end.
#include <doctest/doctest.h>

#include <algorithm>

#include "tests/unit/analysis/static_snippets.h"

using namespace warplens;
using namespace warplens::testing;

namespace {

Severity severity_at(const Snippet& s, const char* code, const Range& r) {
  for (const Finding* f : s.findings(code))
    if (f->location.range == r) return f->severity;
  FAIL("no finding at the range");
  return Severity::Hint;
}

}  // namespace

TEST_CASE("divergent barriers: guarded, after an early exit, in a per-thread loop, in a called function") {
  auto s = analyzed(R"cu(
__device__ void stage(float* tile, const float* in, int i) {
  tile[threadIdx.x] = in[i];
  $called[[__syncthreads()]];
}
__global__ void k(const float* in, float* out, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    tile[threadIdx.x] = in[i];
    $guarded[[__syncthreads()]];
    out[i] = tile[255 - threadIdx.x];
  }
  for (int j = i; j < n; j += blockDim.x * gridDim.x) {
    tile[threadIdx.x] = in[j];
    $loop[[__syncthreads()]];
  }
  if (threadIdx.x < 128) stage(tile, in, i);
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
  if (i >= n) return;
  $early[[__syncthreads()]];
  out[i] = tile[threadIdx.x];
}
int main() { k<<<1024, 256>>>(nullptr, nullptr, 1 << 18); }
)cu",
                         Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  std::vector<Range> want;
  for (const char* name : {"called", "guarded", "loop", "early"}) want.push_back(s.source.range(name));
  std::vector<Range> got;
  for (const Finding* f : s.findings(codes::kDivergentBarrier)) got.push_back(f->location.range);
  auto order = [](const Range& a, const Range& b) { return a.start < b.start; };
  std::sort(got.begin(), got.end(), order);
  std::sort(want.begin(), want.end(), order);
  INFO(s.dump());
  CHECK(got == want);
  CHECK(severity_at(s, codes::kDivergentBarrier, s.source.range("guarded")) == Severity::Error);
  CHECK(severity_at(s, codes::kDivergentBarrier, s.source.range("loop")) == Severity::Error);
  CHECK(severity_at(s, codes::kDivergentBarrier, s.source.range("called")) == Severity::Error);
  CHECK(severity_at(s, codes::kDivergentBarrier, s.source.range("early")) == Severity::Warning);
}

TEST_CASE("cooperative groups: a guarded block.sync() is divergent, an unguarded one is not") {
  auto s = analyzed(R"cu(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(float* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  block.sync();
  if (i < n) {
    out[i] = 1.0f;
    $sync[[block.sync()]];
  }
}
int main() { k<<<64, 256>>>(nullptr, 1 << 14); }
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kDivergentBarrier, "sync");
}

TEST_CASE("warp divergence: lane-splitting branches, not boundary checks, data or single lanes") {
  auto s = analyzed(R"cu(
__global__ void k(const float* in, float* out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  float v = in[i];
  if ($even[[threadIdx.x % 2 == 0]]) {
    for (int k = 0; k < iters; ++k) v = v * 0.5f + 1.0f;
  }
  if ($quarter[[lane < 8]]) {
    for (int k = 0; k < iters; ++k) v = v * 0.5f + 2.0f;
  }
  if ((threadIdx.x / 32) % 2 == 0) v += 1.0f;
  if (i < n) v += 2.0f;
  if (v > 0.5f) v -= 1.0f;
  switch ($switch[[threadIdx.x % 4]]) {
    case 0: v += 1.0f; break;
    case 1: v *= 2.0f; break;
    default: v -= 3.0f; break;
  }
  out[i] = v;
  if (lane == 0) out[i / 32] = v;
  // A halving walk's threshold is uniform: `threadIdx.x < d` splits at most
  // the warp where d lies, a boundary, whatever the iteration.
  for (unsigned d = blockDim.x / 2; d > 0; d >>= 1)
    if (threadIdx.x < d) v += out[threadIdx.x + d];
  out[i] = v;
}
int main() { k<<<1024, 256>>>(nullptr, nullptr, 1 << 18, 8); }
)cu",
                         Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  std::vector<Range> want = {s.source.range("even"), s.source.range("quarter"), s.source.range("switch")};
  std::vector<Range> got;
  for (const Finding* f : s.findings(codes::kWarpDivergence)) got.push_back(f->location.range);
  auto order = [](const Range& a, const Range& b) { return a.start < b.start; };
  std::sort(got.begin(), got.end(), order);
  INFO(s.dump());
  CHECK(got == want);
  for (const Finding* f : s.findings(codes::kWarpDivergence)) {
    CHECK(f->severity == Severity::Hint);
    if (f->location.range == s.source.range("quarter"))
      CHECK(f->message.find("8 of 32 lanes (25%) take it") != std::string::npos);
  }
}
