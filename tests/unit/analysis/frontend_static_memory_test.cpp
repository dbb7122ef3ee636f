// The static memory analyses end to end: annotated CUDA snippets through the
// real front end; the marked ranges are exactly where the findings must be.
#include <doctest/doctest.h>

#include <algorithm>

#include "analysis/static_analyses.h"
#include "tests/unit/analysis/frontend_snippets.h"

using namespace warplens;
using namespace warplens::testing;

namespace {

// parse_snippet runs the front end only; add the static analyses' findings.
Snippet analyzed(std::string_view annotated, Toolchain toolchain = Toolchain::Cuda) {
  Snippet s = parse_snippet(annotated, toolchain);
  for (auto& f : run_static_analyses(s.result.model, AnalysisOptions{})) s.result.findings.push_back(std::move(f));
  return s;
}

std::string access_of(const Finding& f) {
  if (const EvidenceValue* v = f.data.get("access"))
    if (auto s = std::get_if<std::string>(v)) return *s;
  return {};
}

// The findings of `code` (and access kind, when given) sit exactly on the
// ranges named `name` in the snippet.
void check_ranges(const Snippet& s, const char* code, const std::string& name, const std::string& kind = {}) {
  std::vector<Range> got;
  for (const Finding* f : s.findings(code))
    if (kind.empty() || access_of(*f) == kind) got.push_back(f->location.range);
  std::vector<Range> want = s.source.has_range(name) ? s.source.ranges(name) : std::vector<Range>{};
  auto order = [](const Range& a, const Range& b) { return a.start < b.start; };
  std::sort(got.begin(), got.end(), order);
  std::sort(want.begin(), want.end(), order);
  INFO(code, " ", kind, "\n", s.dump());
  CHECK(got == want);
}

const Finding& only(const Snippet& s, const char* code) {
  auto fs = s.findings(code);
  REQUIRE(fs.size() == 1);
  return *fs.front();
}

}  // namespace

TEST_CASE("naive transpose: the column store is uncoalesced, the row load on its line is not") {
  auto s = analyzed(R"cu(
#define TILE_DIM 32
#define BLOCK_ROWS 8
__global__ void transpose_naive(float* odata, const float* idata, int width, int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    $store[[odata[x * height + (y + j)]]] = idata[(y + j) * width + x];
}
int main() {
  float *in = nullptr, *out = nullptr;
  dim3 grid(64, 64), block(TILE_DIM, BLOCK_ROWS);
  transpose_naive<<<grid, block>>>(out, in, 2048, 2048);
}
)cu",
                         Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kUncoalescedGlobal, "store", "store");
  check_ranges(s, codes::kUncoalescedGlobal, "none", "load");
  const Finding& f = only(s, codes::kUncoalescedGlobal);
  CHECK(f.severity == Severity::Warning);
  CHECK(f.message ==
        "uncoalesced store of `odata[x * height + (y + j)]`: consecutive lanes are `height`×4 bytes apart "
        "(8192 bytes at this launch) — 32 sectors per request, ideal 4 (8.0× traffic)");
  CHECK(f.explanation_markdown.find("Block shape **32×8** from the launch at line 13") != std::string::npos);
}

TEST_CASE("tiled transpose: 32-way column read, with a padding fix on the declaration") {
  auto s = analyzed(R"cu(
#define TILE 32
__global__ void transpose_tiled(float* out, const float* in, int n) {
  __shared__ float tile[TILE][$inner[[TILE]]];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  out[y * n + x] = $conflict[[tile[threadIdx.x][threadIdx.y]]];
}
int main() { transpose_tiled<<<dim3(64, 64), dim3(TILE, TILE)>>>(nullptr, nullptr, 2048); }
)cu",
                         Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kSharedBankConflict, "conflict");
  check_ranges(s, codes::kUncoalescedGlobal, "none");
  const Finding& f = only(s, codes::kSharedBankConflict);
  CHECK(f.message.rfind("32-way bank conflict on shared load of `tile[threadIdx.x][threadIdx.y]`", 0) == 0);
  REQUIRE(f.fixes.size() == 1);
  REQUIRE(f.fixes[0].edits.size() == 1);
  CHECK(f.fixes[0].edits[0].range == s.source.range("inner"));
  CHECK(f.fixes[0].edits[0].new_text == "TILE + 1");
}

TEST_CASE("device functions are judged per calling kernel; the worst is reported once") {
  auto s = analyzed(R"cu(
__device__ __forceinline__ float fetch(const float* base, int index) { return $fetch[[base[index]]]; }
__global__ void column_sums(const float* A, float* out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < rows; ++r) acc += fetch(A, r * cols + col);
  out[col] = acc;
}
__global__ void row_sums(const float* A, float* out, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c) acc += fetch(A, row * cols + c);
  out[row] = acc;
}
int main() {
  column_sums<<<16, 128>>>(nullptr, nullptr, 2048, 2048);
  row_sums<<<16, 128>>>(nullptr, nullptr, 2048, 2048);
}
)cu",
                         Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kUncoalescedGlobal, "fetch", "load");
  const Finding& f = only(s, codes::kUncoalescedGlobal);
  CHECK(f.message.find("in kernel `row_sums`, through the call to `fetch` at line 12") != std::string::npos);
}

TEST_CASE("an access spelled inside a macro is reported at its use") {
  auto s = analyzed(R"cu(
#define LOAD(p, i) ((p)[(i)])
#define IDX2C(i, j, ld) (((j) * (ld)) + (i))
__global__ void k(const float* in, float* out, float* A, int n, int lda) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = $macro[[LOAD(in, i * 2)]];
  $col[[A[IDX2C(blockIdx.y, i, lda)]]] = 0.0f;
}
int main() { k<<<4096, 256>>>(nullptr, nullptr, nullptr, 1 << 20, 2048); }
)cu",
                         Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kUncoalescedGlobal, "macro", "load");
  check_ranges(s, codes::kUncoalescedGlobal, "col", "store");
}

TEST_CASE("indirect accesses are hints; a warp-uniform loaded index is not indirect") {
  auto s = analyzed(R"cu(
__global__ void spmv_vector(int rows, const int* row_ptr, const int* col, const float* val, const float* x,
                            float* y) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (warp < rows) {
    float dot = 0.0f;
    for (int jj = row_ptr[warp] + lane; jj < row_ptr[warp + 1]; jj += 32) dot += val[jj] * $gather[[x[col[jj]]]];
    if (lane == 0) y[warp] = dot;
  }
}
__global__ void hist(const unsigned char* data, unsigned int* bins, int n) {
  __shared__ unsigned int local[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&$atomic[[local[data[i]]]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
int main() {
  spmv_vector<<<512, 128>>>(4096, nullptr, nullptr, nullptr, nullptr, nullptr);
  hist<<<512, 256>>>(nullptr, nullptr, 1 << 20);
}
)cu",
                         Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kIndirectAccess, "gather", "load");
  check_ranges(s, codes::kIndirectAccess, "atomic", "atomic");
  check_ranges(s, codes::kUncoalescedGlobal, "none");
  for (const Finding* f : s.findings(codes::kIndirectAccess)) CHECK(f->severity == Severity::Hint);
}

TEST_CASE("without a launch, a shape-dependent verdict is information, a shape-independent one a warning") {
  auto s = analyzed(R"cu(
__global__ void rows(const float* in, float* out, int w) {
  // rows 20 floats apart: misaligned only when a warp spans two rows (16-wide blocks)
  float a = $info[[in[threadIdx.y * 20 + threadIdx.x]]];
  // a column walk: uncoalesced for every block shape
  float b = $warn[[in[threadIdx.x * w + threadIdx.y]]];
  out[threadIdx.y * 32 + threadIdx.x] = a + b;
}
)cu",
                         Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  auto fs = s.findings(codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 2);
  for (const Finding* f : fs) {
    if (f->location.range == s.source.range("info")) {
      CHECK(f->severity == Severity::Information);
      CHECK(f->message.find("guessed block 16×16") != std::string::npos);
    } else {
      CHECK(f->location.range == s.source.range("warn"));
      CHECK(f->severity == Severity::Warning);
    }
  }
}
