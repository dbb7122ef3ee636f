// Launch sites: kernel, caller, grid/block/shared/stream and their values.
#include <doctest/doctest.h>

#include "analysis/block_shape.h"
#include "tests/unit/analysis/frontend_snippets.h"

using namespace warplens;
using namespace warplens::testing;

namespace {
const LaunchSite& launch_at(const Snippet& s, const char* name) {
  for (const auto& l : s.result.model.launches)
    if (l.range == s.source.range(name)) return l;
  throw std::invalid_argument(std::string("no launch at ") + name + "\n" + s.dump());
}
std::array<std::int64_t, 3> D(std::int64_t x, std::int64_t y = 1, std::int64_t z = 1) { return {x, y, z}; }
}  // namespace

TEST_CASE("launch configurations are constant-evaluated through dim3, locals, macros and constexpr") {
  auto s = parse_snippet(R"cu(
#include <cuda_runtime.h>
#define TILE 16
constexpr int kThreads = 256;
__global__ void k2d(float* p, int n) {}
__global__ void k1d(float* p, int n) {}
template <typename T> __global__ void kt(T* p) {}
void run(float* d, int n, cudaStream_t stream) {
  dim3 block(TILE, TILE);
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  $a[[k2d$cfg_a[[<<<grid, block>>>]](d, n)]];
  $b[[k2d<<<dim3(4, 4), dim3(TILE, 8, 2)>>>(d, n)]];
  int threads = 128;
  int blocks = 1024 / threads;
  $c[[k1d<<<blocks, threads, threads * sizeof(float), stream>>>(d, n)]];
  $d[[k1d<<<n / kThreads, kThreads>>>(d, n)]];
  int changed = 64;
  changed *= 2;
  $e[[k1d<<<1, changed>>>(d, n)]];
  for (int i = 0; i < 4; ++i) $f[[kt<float><<<1, dim3{32, 4}>>>(d)]];
  const dim3 fixed{8, 8};
  $g[[k2d<<<fixed, fixed.x * 2>>>(d, n)]];
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  CHECK(s.result.model.launches.size() == 7);

  const auto& a = launch_at(s, "a");
  CHECK(a.kernel == "k2d");
  CHECK(a.kernel_key == "k2d(float *, int)");
  CHECK(a.caller == "run");
  CHECK(a.config_range == s.source.range("cfg_a"));
  CHECK(a.grid.spelling == "grid");
  CHECK_FALSE(a.grid.value);  // depends on n
  CHECK(a.block.spelling == "block");
  CHECK(a.block.value == D(16, 16));
  CHECK(a.shared_bytes == 0);
  CHECK(a.shared_bytes_spelling.empty());
  CHECK(a.stream_spelling.empty());
  CHECK(a.args == std::vector<std::string>{"d", "n"});
  CHECK_FALSE(a.in_loop);

  const auto& b = launch_at(s, "b");
  CHECK(b.grid.value == D(4, 4));
  CHECK(b.block.value == D(16, 8, 2));
  CHECK(b.block.spelling == "dim3(TILE, 8, 2)");

  const auto& c = launch_at(s, "c");
  CHECK(c.grid.value == D(8));
  CHECK(c.block.value == D(128));
  CHECK(c.shared_bytes == 512);
  CHECK(c.shared_bytes_spelling == "threads * sizeof(float)");
  CHECK(c.stream_spelling == "stream");

  const auto& d = launch_at(s, "d");
  CHECK_FALSE(d.grid.value);
  CHECK(d.block.value == D(256));

  const auto& e = launch_at(s, "e");
  CHECK_FALSE(e.block.value);  // reassigned: not a constant

  const auto& f = launch_at(s, "f");
  CHECK(f.kernel_key == "kt<float>(float *)");
  CHECK(f.template_args == "<float>");
  CHECK(f.in_loop);
  CHECK(f.block.value == D(32, 4));

  const auto& g = launch_at(s, "g");
  CHECK(g.grid.value == D(8, 8));
  CHECK(g.block.value == D(16));
}

TEST_CASE("launches in templates and from main are found once") {
  auto s = parse_snippet(R"cu(
template <typename T> __global__ void fill(T* p, T v) { p[threadIdx.x] = v; }
template <typename T> void launch_fill(T* p, T v) { $l[[fill<<<1, 64>>>(p, v)]]; }
int main() {
  float* f; int* i;
  launch_fill(f, 1.0f);
  launch_fill(i, 2);
  $m[[fill<<<2, 32>>>(f, 3.0f)]];
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  int at_l = 0;
  for (const auto& l : s.result.model.launches)
    if (l.range == s.source.range("l")) {
      ++at_l;
      CHECK(l.caller == "launch_fill");
      CHECK(l.block.value == D(64));
    }
  CHECK(at_l == 2);  // one per instantiation: fill<float> and fill<int>
  const auto& m = launch_at(s, "m");
  CHECK(m.caller == "main");
  CHECK(m.kernel_key == "fill<float>(float *, float)");
  CHECK(s.result.model.launches.size() == 3);
}

TEST_CASE("indirect launches name the kernels whose address reaches the callee") {
  auto s = parse_snippet(R"cu(
#define TILE 32
#define ROWS 16
__global__ void copy(float* o, const float* i, int w, int h) {}
__global__ void transposeNaive(float* o, const float* i, int w, int h) {}
__global__ void transposeTiled(float* o, const float* i, int w, int h) {}
__global__ void other(float* o, const float* i, int w, int h) {}
typedef void (*Kernel)(float*, const float*, int, int);
struct Entry { const char* name; Kernel fn; };
static const Entry table[] = {{"copy", copy}, {"tiled", &transposeTiled}};
void runPointer(float* o, const float* i, int w, int h) {
  void (*kernel)(float*, const float*, int, int);
  dim3 grid(w / TILE, h / TILE), threads(TILE, ROWS);
  for (int k = 0; k < 2; k++) {
    switch (k) {
      case 0: kernel = &copy; break;
      case 1: kernel = &transposeNaive; break;
    }
    $p[[kernel<<<grid, threads>>>(o, i, w, h)]];
  }
}
void runTable(float* o, const float* i, int w, int h) {
  for (const Entry& e : table) $t[[e.fn<<<1, dim3(TILE, 8)>>>(o, i, w, h)]];
}
void runParam(Kernel k, float* o, const float* i) { $q[[k<<<1, 128>>>(o, i, 1, 1)]]; }
void caller(float* o, const float* i) { runParam(other, o, i); runParam(&copy, o, i); }
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const auto& p = launch_at(s, "p");
  CHECK(p.kernel == "kernel");
  CHECK(p.kernel_key.empty());
  CHECK(p.kernel_candidates ==
        std::vector<std::string>{"copy(float *, const float *, int, int)",
                                 "transposeNaive(float *, const float *, int, int)"});
  CHECK(p.block.value == D(32, 16));
  const auto& t = launch_at(s, "t");
  CHECK(t.kernel_candidates == std::vector<std::string>{"copy(float *, const float *, int, int)",
                                                         "transposeTiled(float *, const float *, int, int)"});
  const auto& q = launch_at(s, "q");
  CHECK(q.kernel_candidates == std::vector<std::string>{"other(float *, const float *, int, int)",
                                                         "copy(float *, const float *, int, int)"});

  // The block shape resolution follows them; `other` is only launched through `k`.
  const Function& naive = s.function("transposeNaive");
  BlockShapeResolution r = resolve_block_shapes(s.result.model, naive, {});
  CHECK(r.source == BlockShapeSource::LaunchSite);
  CHECK(r.distinct_shapes() == std::vector<BlockShape>{{32, 16, 1}});
  BlockShapeResolution c = resolve_block_shapes(s.result.model, s.function("copy"), {});
  CHECK(c.distinct_shapes() == std::vector<BlockShape>{{32, 16, 1}, {32, 8, 1}, {128, 1, 1}});
}

TEST_CASE("launch values from path conditions, callers and helpers in the file") {
  auto s = parse_snippet(R"cu(
template <int BLOCK> __global__ void mm(float* c, const float* a) {}
template <class T, unsigned N> __global__ void red(T* o, const T* i) {}
__global__ void plain(float* p) {}
void matmul(int block_size, float* c, const float* a) {
  dim3 threads(block_size, block_size);
  if (block_size == 16) {
    $m16[[mm<16><<<1, threads>>>(c, a)]];
  } else {
    $m32[[mm<32><<<1, threads>>>(c, a)]];
  }
}
template <class T> void reduce(int threads, T* o, const T* i) {
  dim3 block(threads, 1, 1);
  switch (threads) {
    case 512:
      $r512[[red<T, 512><<<1, block>>>(o, i)]];
      break;
    case 256:
    case 128:
      $rmany[[red<T, 128><<<1, block>>>(o, i)]];
      break;
  }
}
static int threadsFor(int n) { return n > 4 ? 2 * n : 64; }
dim3 tile() { return dim3(8, 4); }
int main() {
  int block_size = 32;
  float *c, *a;
  matmul(block_size, c, a);
  reduce<float>(512, c, a);
  $h[[plain<<<1, threadsFor(64)>>>(c)]];
  $d[[plain<<<1, tile()>>>(c)]];
  int n = 3;
  $u[[plain<<<1, threadsFor(n)>>>(c)]];
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  CHECK(launch_at(s, "m16").block.value == D(16, 16));
  CHECK(launch_at(s, "m32").block.value == D(32, 32));  // from main's block_size
  CHECK(launch_at(s, "r512").block.value == D(512));
  CHECK_FALSE(launch_at(s, "rmany").block.value);     // 256 or 128, and main passes 512: dead
  CHECK(launch_at(s, "h").block.value == D(128));
  CHECK(launch_at(s, "d").block.value == D(8, 4));
  CHECK(launch_at(s, "u").block.value == D(64));      // n = 3: the other arm
}
