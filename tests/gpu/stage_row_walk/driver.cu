// stage-row-walk on the GPU (tests/gpu/stage_row_walk_check.sh): the
// tridiagonal snippet as written (`solve_orig`) against what the rewrite
// made of it (`solve_new`, the whole-text expected output of
// tests/unit/agent/rewrite_snippets/stage_row_walk_tridiagonal.cu, compiled
// as committed). Cases: distinct arrays (the staged path), a system count
// that is not a multiple of the block, the solution written over the
// right-hand side, and written one element into the sub-diagonal (there a
// staged copy of the sub-diagonal would be read stale, so only the run-time
// check's fallback to the original code gives equal results). Prints one
// line per case and exits 1 on any difference.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

void solve_orig(const float*, const float*, const float*, const float*, float*, float*, int, int);
void solve_new(const float*, const float*, const float*, const float*, float*, float*, int, int);

static unsigned hash(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}

struct Case {
  const char* name;
  int systems, len;
  bool in_place;      // sol == rhs
  bool into_lower = false;  // sol == lower + 1: a staged copy of `lower` would go stale
};

static int run(const Case& c) {
  const size_t n = (size_t)c.systems * c.len;
  std::vector<float> l(n), d(n), u(n), r(n);
  for (size_t i = 0; i < n; ++i) {
    l[i] = -1.0f + (hash((unsigned)i * 4 + 0) % 1000) / 4000.0f;
    u[i] = -1.0f + (hash((unsigned)i * 4 + 1) % 1000) / 4000.0f;
    d[i] = 4.0f + (hash((unsigned)i * 4 + 2) % 1000) / 1000.0f;  // diagonally dominant
    r[i] = (hash((unsigned)i * 4 + 3) % 2000) / 1000.0f - 1.0f;
  }
  std::vector<float> out[2];
  for (int k = 0; k < 2; ++k) {
    float *dl, *dd, *du, *dr, *dw, *dx;
    cudaMalloc(&dl, (n + 1) * 4); cudaMalloc(&dd, n * 4); cudaMalloc(&du, n * 4);
    cudaMalloc(&dr, n * 4); cudaMalloc(&dw, n * 4); cudaMalloc(&dx, n * 4);
    cudaMemcpy(dl, l.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dd, d.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(du, u.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dr, r.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemset(dw, 0, n * 4);
    cudaMemset(dx, 0, n * 4);
    float* sol = c.in_place ? dr : c.into_lower ? dl + 1 : dx;
    (k == 0 ? solve_orig : solve_new)(dl, dd, du, dr, dw, sol, c.systems, c.len);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      std::printf("%s: %s: %s\n", c.name, k == 0 ? "original" : "rewritten", cudaGetErrorString(e));
      return 1;
    }
    out[k].resize(n);
    cudaMemcpy(out[k].data(), sol, n * 4, cudaMemcpyDeviceToHost);
    cudaFree(dl); cudaFree(dd); cudaFree(du); cudaFree(dr); cudaFree(dw); cudaFree(dx);
  }
  // The rewrite keeps every operation and its order per thread: bitwise equal.
  size_t diff = 0;
  for (size_t i = 0; i < n; ++i)
    if (std::memcmp(&out[0][i], &out[1][i], 4) != 0) ++diff;
  std::printf("%s: systems=%d len=%d: %zu of %zu elements differ\n", c.name, c.systems, c.len, diff, n);
  return diff == 0 ? 0 : 1;
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU\n");
    return 77;
  }
  const Case cases[] = {
      {"staged", 8192, 256, false},
      {"partial last block", 1000, 100, false},
      {"short rows (one chunk)", 777, 5, false},
      {"solution over the right-hand side (aliased: original code)", 4096, 64, true},
      {"solution one element into the sub-diagonal (aliased: original code)", 4096, 64, false, true},
  };
  int bad = 0;
  for (const Case& c : cases) bad |= run(c);
  std::printf(bad ? "FAIL\n" : "ok\n");
  return bad;
}
