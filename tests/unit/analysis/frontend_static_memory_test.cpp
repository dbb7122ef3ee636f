// The static memory analyses end to end: annotated CUDA snippets through the
// real front end; the marked ranges are exactly where the findings must be.
#include <doctest/doctest.h>

#include "tests/unit/analysis/static_snippets.h"

using namespace warplens;
using namespace warplens::testing;

namespace {

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

TEST_CASE("a per-lane gather is information, an indirect atomic a hint; a warp-uniform loaded index is judged") {
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
  check_ranges(s, codes::kIndirectAccess, "atomic", "atomic");
  check_ranges(s, codes::kIndirectAccess, "none", "load");
  // val[jj] (a warp-uniform start plus the lane) is judged: coalesced, no
  // finding; x[col[jj]] is data-dependent per lane: information.
  check_ranges(s, codes::kUncoalescedGlobal, "gather");
  for (const Finding* f : s.findings(codes::kIndirectAccess)) CHECK(f->severity == Severity::Hint);
  for (const Finding* f : s.findings(codes::kUncoalescedGlobal)) {
    CHECK(f->severity == Severity::Information);
    CHECK(f->message.find("(address from `col[…]`)") != std::string::npos);
  }
}

TEST_CASE("data-dependent addresses: a search over loaded keys and the scatter to its result are information") {
  // mergeSort's shape: each lane binary-searches its own loaded key in a
  // sorted run (the probe's address follows the data), then stores at the
  // position found. Neither can be counted statically; both codes say so
  // at information, naming what the address depends on.
  auto s = analyzed(R"cu(
__device__ unsigned lower_bound(unsigned key, const unsigned* data, unsigned n, unsigned stride) {
  unsigned pos = 0;
  for (; stride > 0; stride >>= 1) {
    unsigned next = pos + stride < n ? pos + stride : n;
    if ($probe[[data[next - 1]]] < key) pos = next;
  }
  return pos;
}
__global__ void rank_global(const unsigned* keys, const unsigned* other, unsigned* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned key = keys[i];
  unsigned pos = lower_bound(key, other, n, 1024) + i;
  $gscatter[[out[pos]]] = key;
}
__global__ void rank_shared(unsigned* d) {
  __shared__ unsigned s[256];
  s[threadIdx.x] = d[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  unsigned key = s[threadIdx.x];
  unsigned pos = lower_bound(key, s + 128, 128, 128) + (threadIdx.x & 127);
  __syncthreads();
  $sscatter[[s[pos]]] = key;
  __syncthreads();
  d[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x];
}
int main() {
  rank_global<<<4096, 256>>>(nullptr, nullptr, nullptr, 1 << 20);
  rank_shared<<<4096, 256>>>(nullptr);
}
)cu",
                    Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kUncoalescedGlobal, "probe", "load");
  check_ranges(s, codes::kUncoalescedGlobal, "gscatter", "store");
  check_ranges(s, codes::kSharedBankConflict, "probe", "load");
  check_ranges(s, codes::kSharedBankConflict, "sscatter", "store");
  check_ranges(s, codes::kIndirectAccess, "none");
  for (const char* code : {codes::kUncoalescedGlobal, codes::kSharedBankConflict})
    for (const Finding* f : s.findings(code)) {
      INFO(f->message);
      CHECK(f->severity == Severity::Information);
      CHECK(f->message.find("data-dependent") != std::string::npos);
      CHECK(f->message.find("not known statically") != std::string::npos);
    }
  for (const Finding* f : s.findings(codes::kUncoalescedGlobal)) {
    INFO(f->message);
    if (access_of(*f) == "load") CHECK(f->message.find("(address from `pos`, which depends on loaded `data[…]`)") != std::string::npos);
    else CHECK(f->message.find("(address from `lower_bound(…)`)") != std::string::npos);
  }
}

TEST_CASE("data-dependent addresses that are warp-uniform, or run by one lane, are judged or left alone") {
  // One key per block: the search is the same for every lane (its probes
  // are broadcasts) and the store after it is the lane plus a warp-uniform
  // data-dependent offset, contiguous. A gather that one lane runs has
  // nothing to coalesce.
  auto s = analyzed(R"cu(
__global__ void uniform_search(const unsigned* keys, const unsigned* other, unsigned* out, const int* idx) {
  unsigned key = keys[blockIdx.x];
  unsigned pos = 0;
  for (unsigned stride = 1024; stride > 0; stride >>= 1)
    if (other[pos + stride - 1] < key) pos += stride;
  out[pos * 32 + threadIdx.x] = key;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) out[idx[i]] = 1;
}
int main() { uniform_search<<<4096, 256>>>(nullptr, nullptr, nullptr, nullptr); }
)cu",
                    Toolchain::Prelude);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_ranges(s, codes::kUncoalescedGlobal, "none");
  check_ranges(s, codes::kIndirectAccess, "none");
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
