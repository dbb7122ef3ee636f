#include <doctest/doctest.h>

#include "agent/verifier/source_comparison.h"

using namespace warplens::verifier;

namespace {

KernelSourceFacts facts(const std::string& source, const std::string& kernel = "scale_add") {
  auto src = tokenize_source(source);
  auto kernels = find_kernels(src);
  const KernelDefinition* k = find_kernel(kernels, kernel);
  REQUIRE(k);
  return kernel_source_facts(src, *k);
}

const char* kOriginal = R"(
__global__ void scale_add(const float* x, const float* y, float* out, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = alpha * x[i] + y[i];
}
)";

// scale_add's captured scalars: alpha = 2.5, n = 1048576.
const std::vector<CapturedScalar> kScalars = {{3, false, 2.5}, {4, true, 1048576}};

bool has(const std::vector<SourceFinding>& f, const std::string& rule, bool demotes) {
  for (const auto& x : f)
    if (x.rule == rule && x.demotes == demotes) return true;
  return false;
}

}  // namespace

TEST_CASE("source facts: parameter uses skip comments, strings and member names; macros expand") {
  auto f = facts(R"(
#define AT(p, i) p[(i) * stride]
struct S { int n; };
__global__ void k(const float* in, float* out, int n, int stride, S s) {
  // n in a comment
  const char* msg = "n";
  int i = threadIdx.x;
  if (i < s.n) out[i] = AT(in, i);
}
)", "k");
  CHECK(f.param_names == std::vector<std::string>{"in", "out", "n", "stride", "s"});
  CHECK(f.param_uses[0] == 1);
  CHECK(f.param_uses[1] == 1);
  CHECK(f.param_uses[2] == 0);  // only `s.n`, a member
  CHECK(f.param_uses[3] == 1);  // through the macro
  CHECK(f.param_uses[4] == 1);
}

TEST_CASE("source comparison: an honest rewrite is not demoted") {
  auto original = facts(kOriginal);
  auto candidate = facts(R"(
// warplens: block=(256,1,1)
__global__ void __launch_bounds__(256) scale_add(const float* __restrict__ x, const float* __restrict__ y,
                                                 float* __restrict__ out, float alpha, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = fmaf(alpha, x[i], y[i]);
}
)");
  auto findings = compare_kernel_sources(original, candidate, kScalars);
  for (const auto& f : findings) CHECK_FALSE(f.demotes);
}

TEST_CASE("source comparison: hard-coding a captured scalar is demoted") {
  auto original = facts(kOriginal);
  SUBCASE("literal in the body") {
    auto candidate = facts(R"(
__global__ void scale_add(const float* x, const float* y, float* out, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1048576) out[i] = alpha * x[i] + y[i];
}
)");
    auto findings = compare_kernel_sources(original, candidate, kScalars);
    REQUIRE(has(findings, "hard-coded-argument", true));
    CHECK(has(findings, "ignored-parameter", true));  // n is no longer read at all
    bool names_it = false;
    for (const auto& f : findings)
      if (f.rule == "hard-coded-argument") names_it = f.message.find("1048576") != std::string::npos &&
                                                       f.message.find("`n`") != std::string::npos && f.line == 4;
    CHECK(names_it);
  }
  SUBCASE("through a named constant, still reading n once") {
    auto candidate = facts(R"(
constexpr int kSize = 1 << 20;
#define ALPHA 2.5f
__global__ void scale_add(const float* x, const float* y, float* out, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && alpha != 0) out[i] = ALPHA * x[i] + y[i];
}
)");
    auto findings = compare_kernel_sources(original, candidate, kScalars);
    // alpha: read once instead of twice? The original reads it once too, so
    // only the literal matters: 2.5 appears, uses did not drop -> not demoted.
    CHECK_FALSE(has(findings, "hard-coded-argument", true));
  }
  SUBCASE("through a macro, no longer reading alpha") {
    auto candidate = facts(R"(
#define ALPHA 2.5f
__global__ void scale_add(const float* x, const float* y, float* out, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ALPHA * x[i] + y[i];
}
)");
    auto findings = compare_kernel_sources(original, candidate, kScalars);
    CHECK(has(findings, "hard-coded-argument", true));
    CHECK(has(findings, "ignored-parameter", true));
  }
}

TEST_CASE("source comparison: small and common literals do not count as hard-coding") {
  auto original = facts(kOriginal);
  auto candidate = facts(R"(
__global__ void scale_add(const float* x, const float* y, float* out, float alpha, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
  if (i + 1 < n) { out[i] = alpha * x[i] + y[i]; out[i + 1] = alpha * x[i + 1] + y[i + 1]; }
  else if (i < n) out[i] = alpha * x[i] + y[i];
}
)");
  std::vector<CapturedScalar> small = {{3, false, 2.0}, {4, true, 2}};
  auto findings = compare_kernel_sources(original, candidate, small);
  for (const auto& f : findings) CHECK_FALSE(f.demotes);
}

TEST_CASE("source comparison: notes for dynamic parallelism and half precision, without demotion") {
  auto original = facts(kOriginal);
  auto candidate = facts(R"(
#include <cuda_fp16.h>
__global__ void child(const float* x, const float* y, float* out, float alpha, int n);
__global__ void scale_add(const float* x, const float* y, float* out, float alpha, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    child<<<(n + 255) / 256, 256, 0, cudaStreamFireAndForget>>>(x, y, out, __half2float(__float2half(alpha)), n);
}
)");
  auto findings = compare_kernel_sources(original, candidate, kScalars);
  CHECK(has(findings, "device-side-launch", false));
  CHECK(has(findings, "half-precision", false));
  for (const auto& f : findings) CHECK_FALSE(f.demotes);
}

TEST_CASE("source comparison: a candidate without the kernel is reported, not demoted") {
  auto original = facts(kOriginal);
  KernelSourceFacts missing;
  missing.kernel = "scale_add";
  auto findings = compare_kernel_sources(original, missing, kScalars);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule == "not-compared");
  CHECK_FALSE(findings[0].demotes);
}

namespace {

// A record of scalar parameters, each a little-endian integer of `sizes[i]` bytes.
warplens::capture::LaunchRecord scalar_record(const std::vector<std::uint64_t>& sizes,
                                              const std::vector<std::int64_t>& values) {
  warplens::capture::LaunchRecord r;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    warplens::capture::ParamSlot s;
    s.index = static_cast<int>(i);
    s.offset = r.param_buffer.size();
    s.size = sizes[i];
    const auto bits = static_cast<std::uint64_t>(values[i]);
    for (std::uint64_t b = 0; b < sizes[i]; ++b) r.param_buffer.push_back(static_cast<std::uint8_t>(bits >> (8 * b)));
    r.params.push_back(s);
  }
  return r;
}

}  // namespace

TEST_CASE("source comparison: a fused pair's bounds of different integer widths are the same value") {
  // held-out set 8's gain_softplus_chain: the producer's `unsigned int n` and
  // the consumer's `long long n` are passed the same count. The fused kernel
  // reads the consumer's; the producer's is read through it, not ignored
  // (the byte comparison alone demoted a correct, 2.1x faster fusion).
  KernelSignature sig;
  sig.params.resize(3);
  sig.params[0].element = ElementType::U32;
  sig.params[1].element = ElementType::I64;
  sig.params[2].element = ElementType::F32;
  const std::vector<warplens::capture::LaunchRecord> same = {scalar_record({4, 8, 4}, {4194304, 4194304, 0}),
                                                              scalar_record({4, 8, 4}, {1024, 1024, 0})};
  CHECK(same_scalar_in_every_record(same, sig, 0, 1));
  CHECK(same_scalar_in_every_record(same, sig, 1, 0));
  // One pair differs: not the same parameter.
  const std::vector<warplens::capture::LaunchRecord> differ = {scalar_record({4, 8, 4}, {4194304, 4194304, 0}),
                                                                scalar_record({4, 8, 4}, {1024, 1023, 0})};
  CHECK_FALSE(same_scalar_in_every_record(differ, sig, 0, 1));
  // A float is compared by its bytes only, never as an integer value:
  // 1024.0f (0x44800000) is not the integer 1024.
  const std::vector<warplens::capture::LaunchRecord> as_float = {scalar_record({4, 8, 4}, {1024, 1024, 0x44800000})};
  CHECK(same_scalar_in_every_record(as_float, sig, 0, 1));
  CHECK_FALSE(same_scalar_in_every_record(as_float, sig, 2, 0));
  CHECK_FALSE(same_scalar_in_every_record({}, sig, 0, 1));
}
