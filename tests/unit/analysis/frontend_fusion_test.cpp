// fusable-intermediate end to end: annotated CUDA snippets through the real
// front end (host code included). The warning sits on the consumer launch;
// related information points at the producer launch, the allocation and
// the point after which the buffer is dead; the message carries the bytes
// and the time at the catalogue's DRAM bandwidth.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "analysis/analyzer.h"

#include "tests/unit/analysis/static_snippets.h"

using namespace warplens;
using namespace warplens::testing;

namespace {

const char* kKernels = R"cu(
__global__ void mul(const float* x, const float* y, float* tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = x[i] * y[i];
}
__global__ void bias_relu(const float* t, float bias, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = t[i] + bias;
    out[i] = v > 0.0f ? v : 0.0f;
  }
}
)cu";

std::string with_kernels(const std::string& host) { return std::string(kKernels) + host; }

const Finding& only(const Snippet& s) {
  auto fs = s.findings(codes::kFusableIntermediate);
  INFO(s.dump());
  REQUIRE(fs.size() == 1);
  return *fs.front();
}

const Range* related_at(const Finding& f, const std::string& text_part) {
  for (const auto& r : f.related)
    if (r.message.find(text_part) != std::string::npos) return &r.location.range;
  return nullptr;
}

}  // namespace

TEST_CASE("the issue's example: 256 MiB written by mul and read once by bias_relu") {
  auto s = analyzed(with_kernels(R"cu(
int main() {
  const int n = 64 << 20;
  float *x, *y, *out, *tmp;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  $alloc[[cudaMalloc(&tmp, n * sizeof(float))]];
  $producer[[mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n)]];
  $consumer[[bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n)]];
  $free[[cudaFree(tmp)]];
  cudaFree(out);
  cudaFree(y);
  cudaFree(x);
}
)cu"),
                    Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kFusableIntermediate, "consumer");
  const Finding& f = only(s);
  CHECK(f.severity == Severity::Warning);
  // sm_90's catalogue entry: 4.8 TB/s; 2 x 256 MiB / 4.8e12 B/s = 0.112 ms.
  CHECK(f.message ==
        "`tmp` (256 MiB) is written by `mul` and read once by `bias_relu`: fusing saves 512 MiB of traffic per call, "
        "~0.11 ms at 4.8 TB/s");
  const Range* producer = related_at(f, "written here by `mul`");
  const Range* alloc = related_at(f, "allocated here (256 MiB)");
  const Range* dead = related_at(f, "not used after this");
  REQUIRE(producer);
  REQUIRE(alloc);
  REQUIRE(dead);
  CHECK(*producer == s.source.range("producer"));
  CHECK(*alloc == s.source.range("alloc"));
  CHECK(*dead == s.source.range("free"));
  // Evidence the agent's fuse-elementwise rewrite and the editor read.
  auto number = [&](const char* key) -> std::int64_t {
    const EvidenceValue* v = f.data.get(key);
    REQUIRE_MESSAGE(v, key);
    return std::get<std::int64_t>(*v);
  };
  CHECK(number("bytes") == std::int64_t(256) << 20);
  CHECK(number("saved_bytes") == std::int64_t(512) << 20);
  CHECK(number("producer_line") == s.source.range("producer").start.line);
  CHECK(std::get<double>(*f.data.get("saved_ms")) == doctest::Approx(2.0 * (256 << 20) / 4.8e12 * 1e3));
  CHECK(std::get<std::string>(*f.data.get("producer_kernel")) == "mul");
  CHECK(std::get<std::string>(*f.data.get("consumer_kernel")) == "bias_relu");
  CHECK(std::get<bool>(*f.data.get("proven")));
  // The hover walks the data flow line by line.
  const std::string alloc_row =
      "| " + std::to_string(s.source.range("alloc").start.line + 1) + " | allocated (`cudaMalloc`, `n * sizeof(float)` bytes)";
  CHECK_MESSAGE(f.explanation_markdown.find(alloc_row) != std::string::npos, f.explanation_markdown);
  CHECK(f.explanation_markdown.find("writes it as `tmp`: `tmp[i]`") != std::string::npos);
  CHECK(f.explanation_markdown.find("reads it as `t`: `t[i]`") != std::string::npos);
  CHECK(f.explanation_markdown.find("`cudaFree`: nothing reads it afterwards") != std::string::npos);
}

TEST_CASE("a buffer that escapes is information, with the escape as related information") {
  auto s = analyzed(with_kernels(R"cu(
void keep(const void* p);
void run(const float* x, const float* y, float* out, int n) {
  float* tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  $escape[[keep(tmp)]];
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  $consumer[[bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n)]];
  cudaFree(tmp);
}
)cu"),
                    Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kFusableIntermediate, "consumer");
  const Finding& f = only(s);
  CHECK(f.severity == Severity::Information);
  CHECK(f.message.find("cannot be proven safe: `tmp` is passed to a function the analysis does not follow") !=
        std::string::npos);
  // The size is not constant: it is quoted as written.
  CHECK(f.message.find("(`n * sizeof(float)` bytes)") != std::string::npos);
  CHECK_FALSE(std::get<bool>(*f.data.get("proven")));
  bool escape_related = false;
  for (const auto& r : f.related)
    escape_related |= r.location.range.start.line == s.source.range("escape").start.line &&
                      r.message.find("passed to a function") != std::string::npos;
  CHECK(escape_related);
  CHECK(f.explanation_markdown.find("Not reported as a warning") != std::string::npos);
}

TEST_CASE("nothing is reported when the host copies the intermediate back, or a second kernel reads it") {
  auto s = analyzed(with_kernels(R"cu(
void copy_back(const float* x, const float* y, float* out, float* host, int n) {
  float* tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n);
  cudaMemcpy(host, tmp, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(tmp);
}
void two_readers(const float* x, const float* y, float* out, float* out2, int n) {
  float* tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n);
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.2f, out2, n);
  cudaFree(tmp);
}
)cu"),
                    Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  INFO(s.dump());
  CHECK(s.findings(codes::kFusableIntermediate).empty());
}

TEST_CASE("carried state in a loop is information on the reader at the top of the loop") {
  auto s = analyzed(with_kernels(R"cu(
void step(const float* x, float* out, int n, int steps) {
  float* state;
  cudaMalloc(&state, n * sizeof(float));
  cudaMemset(state, 0, n * sizeof(float));
  for (int k = 0; k < steps; ++k) {
    $consumer[[bias_relu<<<(n + 255) / 256, 256>>>(state, 1.0f, out, n)]];
    mul<<<(n + 255) / 256, 256>>>(x, x, state, n);
  }
  cudaFree(state);
}
)cu"),
                    Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kFusableIntermediate, "consumer");
  const Finding& f = only(s);
  CHECK(f.severity == Severity::Information);
  CHECK(f.message.find("reads the value written in the previous iteration") != std::string::npos);
}

// The agent's fuse-elementwise rewrite (agent/rewrites/fuse_elementwise.cpp)
// fuses consecutive launch statements of two element-wise kernels with
// identical configurations through a local temporary used only by its
// allocation, cudaFree and the pair. Every pair it fuses must be a warning
// here (the warning may cover more).
TEST_CASE("the rewrite's example: both launch pairs of elementwise_chain.cu are warnings, the lambda's included") {
  const std::string path = std::string(WARPLENS_SOURCE_DIR) + "/examples/optimize/elementwise_chain.cu";
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  AnalysisResult r = analyze({path, text.str()}, AnalysisOptions{});
  REQUIRE(r.parsed);
  std::vector<int> lines;
  for (const auto& f : r.findings)
    if (f.code == codes::kFusableIntermediate) {
      CHECK_MESSAGE(f.severity == Severity::Warning, f.message);
      lines.push_back(f.location.range.start.line + 1);
    }
  // `bias_relu<<<blocks, threads>>>(d_tmp, ...)` in the checked sets and
  // `bias_relu<<<blocks, threads>>>(tmp, ...)` in the timed lambda.
  CHECK(lines == std::vector<int>{36, 59});
}

TEST_CASE("the rewrite's other shapes (a pair in a loop, two pairs through one temporary), and beyond it a grid-stride producer") {
  auto s = analyzed(with_kernels(R"cu(
__global__ void square_gs(const float* x, float* tmp, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) tmp[i] = x[i] * x[i];
}
void loop(const float* x, const float* y, float* out, int n, int steps) {
  float* tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  for (int k = 0; k < steps; ++k) {
    mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
    $w[[bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n)]];
  }
  cudaFree(tmp);
}
void twice(const float* x, const float* y, float* out, float* out2, int n) {
  float* tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  $w[[bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n)]];
  mul<<<(n + 255) / 256, 256>>>(y, x, tmp, n);
  $w[[bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.2f, out2, n)]];
  cudaFree(tmp);
}
void grid_stride(const float* x, float* out, int n) {
  float* tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  square_gs<<<132 * 4, 256>>>(x, tmp, n);
  $w[[bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n)]];
  cudaFree(tmp);
}
)cu"),
                    Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kFusableIntermediate, "w");
  for (const Finding* f : s.findings(codes::kFusableIntermediate)) CHECK_MESSAGE(f->severity == Severity::Warning, f->message);
}
