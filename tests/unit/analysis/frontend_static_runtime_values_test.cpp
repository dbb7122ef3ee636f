// The static memory analyses on values the launch does not give: shared
// scalars every lane reads alike, loop strides that start from a parameter
// used as a shift count, and addresses that depend on loaded data. Annotated
// CUDA snippets through the real front end; the marked ranges are exactly
// where the findings must be.
#include <doctest/doctest.h>

#include "tests/unit/analysis/static_snippets.h"

using namespace warplens;
using namespace warplens::testing;

TEST_CASE("a __shared__ scalar is one value for the whole warp: s[len + tid] is a contiguous run") {
  // mergeSort's tail: thread 0 computes the interval lengths into shared
  // scalars, every thread reads them after the barrier. The H200 measures
  // these loads and stores at exactly 1.0x (cuda-samples mergeSort.cu:404).
  auto s = analyzed(R"cu(
__global__ void tail(unsigned* dst, const unsigned* src, const unsigned* limits) {
  __shared__ unsigned s_key[256];
  __shared__ unsigned lenA, startB;
  if (threadIdx.x == 0) {
    lenA = limits[2 * blockIdx.x];
    startB = limits[2 * blockIdx.x + 1];
  }
  __syncthreads();
  s_key[threadIdx.x] = src[startB + threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 128) dst[startB + threadIdx.x] = s_key[lenA + threadIdx.x];
}
int main() { tail<<<64, 256>>>(nullptr, nullptr, nullptr); }
)cu",
                    Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kSharedBankConflict, "none");
  check_ranges(s, codes::kUncoalescedGlobal, "none");
  // Not a gather either: the address is the same for every lane plus the lane.
  check_ranges(s, codes::kIndirectAccess, "none");
  // `tid < lenA` splits only the warp where lenA falls, like `tid < n`.
  check_ranges(s, codes::kWarpDivergence, "none");
}

TEST_CASE("a radix-4 loop whose stride starts from a shift-count parameter: information naming the strides") {
  // fastWalshTransform's in-shared stages: the stride runs N/4, N/16, ... 1
  // with N = 1 << log2N from the host. Strides of 32 and more are
  // conflict-free, 8 and 2 are 4-way (H200: 2.2x at log2N = 11); which run
  // is log2N's, so the finding is information and says which strides
  // conflict. The radix-2 pair is one 8-byte access: conflict-free.
  auto s = analyzed(R"cu(
__global__ void fwt(float* d_Output, float* d_Input, int log2N) {
  const int N = 1 << log2N;
  extern __shared__ float s_data[];
  for (int pos = threadIdx.x; pos < N; pos += blockDim.x) s_data[pos] = d_Input[blockIdx.x * N + pos];
  const int pos = threadIdx.x;
  for (int stride = N >> 2; stride > 0; stride >>= 2) {
    int lo = pos & (stride - 1);
    int i0 = ((pos - lo) << 2) + lo;
    int i1 = i0 + stride;
    __syncthreads();
    float D0 = $load[[s_data[i0]]];
    float D1 = $load[[s_data[i1]]];
    $store[[s_data[i0]]] = D0 + D1;
    $store[[s_data[i1]]] = D0 - D1;
  }
  if (log2N & 1) {
    __syncthreads();
    for (int pos = threadIdx.x; pos < N / 2; pos += blockDim.x) {
      int i0 = pos << 1;
      int i1 = i0 + 1;
      float D0 = s_data[i0];
      float D1 = s_data[i1];
      s_data[i0] = D0 + D1;
      s_data[i1] = D0 - D1;
    }
  }
  __syncthreads();
  for (int pos = threadIdx.x; pos < N; pos += blockDim.x) d_Output[blockIdx.x * N + pos] = s_data[pos];
}
void run(float* d, int M, int log2N) { fwt<<<M, 512, (1 << log2N) * sizeof(float)>>>(d, d, log2N); }
)cu",
                    Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kSharedBankConflict, "load", "load");
  check_ranges(s, codes::kSharedBankConflict, "store", "store");
  auto fs = s.findings(codes::kSharedBankConflict);
  for (const Finding* f : fs) {
    INFO(f->message);
    CHECK(f->severity == Severity::Information);
    CHECK(f->message.find("in the iterations where `stride` is 16, 4 and 1, not where it is 16384, 4096, 1024, 256 "
                          "and 64 (which iterations run depends on `log2N`)") != std::string::npos);
  }
}

TEST_CASE("accesses the compiler merges into one vector access are judged as one") {
  // BlackScholes' inputs: p[opt].x and p[opt].y of a float2 are one 8-byte
  // load (H200: 1.0x), not two loads 8 bytes apart (2x). A float* pair
  // `in[2*i]`, `in[2*i + 1]` is not merged: the pointer is only known
  // 4-byte aligned. A shared pair at an even word is one 8-byte access,
  // conflict-free; at an unknown offset `k` it cannot be proved aligned.
  auto s = analyzed(R"cu(
__global__ void merged(float* out, const float2* __restrict p, const float* in, int n, int k) {
  __shared__ float t[512];
  const int i = blockDim.x * blockIdx.x + threadIdx.x;
  float a = p[i].x;
  float b = p[i].y;
  float c = $global[[in[2 * i]]];
  float d = $global[[in[2 * i + 1]]];
  t[2 * threadIdx.x] = a;
  t[2 * threadIdx.x + 1] = b;
  __syncthreads();
  float e = t[2 * threadIdx.x];
  float f = t[2 * threadIdx.x + 1];
  float g = $unaligned[[t[2 * threadIdx.x + k]]];
  float h = $unaligned[[t[2 * threadIdx.x + k + 1]]];
  out[i] = a + b + c + d + e + f + g + h;
}
void run(int k) { merged<<<64, 128>>>(nullptr, nullptr, nullptr, 1 << 20, k); }
)cu",
                    Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kUncoalescedGlobal, "global", "load");
  check_ranges(s, codes::kSharedBankConflict, "none", "store");
  check_ranges(s, codes::kSharedBankConflict, "unaligned", "load");
}
