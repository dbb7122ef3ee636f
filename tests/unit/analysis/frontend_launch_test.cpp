// Launch sites: kernel, caller, grid/block/shared/stream and their values.
#include <doctest/doctest.h>

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
