// warplens candidate c14 for kernel `invert4x4` (policy builtin)
// plan: block-size(x=128, y=1)
// block-size: block 512x1 -> 128x1 (the kernel is block-size agnostic)
// note: block-size: block-size agnostic: thread identity only through global indices, bounds-checked, launch grids cover the bound
// warplens-launch: kernel=invert4x4 block=128,1,1 swap-xy=0 scale=1/1,1/1,1/1 persistent=0
// Batched 4x4 matrix inverse (cofactor expansion) with double-precision
// intermediates: every thread keeps a whole matrix, its 16 cofactors and the
// inverse live in registers (about 100 of them). Launched with 512 threads a
// block, only one block fits on a multiprocessor: 16 warps, a quarter of the
// possible occupancy, too few memory requests in flight for the bandwidth.
#include "harness.cuh"

#ifndef WARPLENS_LAUNCH_HELPERS
#define WARPLENS_LAUNCH_HELPERS
// Added by warplens: launch shapes for rewritten kernels. wl_launch::grid
// applies the documented rule (docs/optimize.md, "Launch changes"): scale the
// threads per dimension, cover them with the new block, cap persistent grids.
namespace wl_launch {
inline unsigned cover(unsigned long long threads, unsigned block) {
  unsigned long long g = (threads + block - 1) / block;
  return g == 0 ? 1u : static_cast<unsigned>(g);
}
inline dim3 swap_xy(dim3 d) { return dim3(d.y, d.x, d.z); }
inline dim3 grid(dim3 g, dim3 b, dim3 nb, bool swap, long long xn, long long xd, long long yn, long long yd,
                 long long zn, long long zd, int blocks_per_sm) {
  if (swap) {
    g = swap_xy(g);
    b = swap_xy(b);
  }
  dim3 r(cover((1ull * g.x * b.x * xn + xd - 1) / xd, nb.x), cover((1ull * g.y * b.y * yn + yd - 1) / yd, nb.y),
         cover((1ull * g.z * b.z * zn + zd - 1) / zd, nb.z));
  if (blocks_per_sm > 0) {
    static int sms = 0;
    if (sms == 0) {
      int dev = 0;
      cudaGetDevice(&dev);
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
      if (sms <= 0) sms = 1;
    }
    const unsigned cap = static_cast<unsigned>(sms * blocks_per_sm);
    if (r.x > cap) r.x = cap;
  }
  return r;
}
}  // namespace wl_launch
#endif

__global__ void invert4x4(const float* A, float* Ainv, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double m[16];
    for (int k = 0; k < 16; ++k) m[k] = A[i * 16 + k];
    double inv[16];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] + m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] - m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] + m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] - m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] - m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] + m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] - m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] + m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] + m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] - m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] + m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] - m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] - m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] + m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] - m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] + m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
    double det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    double r = 1.0 / det;
    for (int k = 0; k < 16; ++k) Ainv[i * 16 + k] = static_cast<float>(inv[k] * r);
  }
}

void invert(const float* A, float* Ainv, int n) {
  const int threads = 512;
  invert4x4<<<wl_launch::grid(dim3((n + threads - 1) / threads), dim3(threads), dim3(128, 1, 1), false, 1, 1, 1, 1, 1, 1, 0), dim3(128, 1, 1)>>>(A, Ainv, n);
}

// Random matrices plus 4 I: well conditioned, so fp32 storage decides the error.
static std::vector<float> make_matrices(float* dev, int n, std::uint64_t seed) {
  std::vector<float> h = example::fill_uniform(dev, 16u * n, seed);
  for (int i = 0; i < n; ++i)
    for (int d = 0; d < 4; ++d) h[16u * i + 5 * d] += 4.0f;
  WL_CHECK(cudaMemcpy(dev, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  return h;
}

static void reference(const float* a, double* out) {
  // Gauss-Jordan with partial pivoting, in double: independent of the kernel's method.
  double w[4][8];
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) w[r][c] = c < 4 ? a[4 * r + c] : (c - 4 == r ? 1.0 : 0.0);
  for (int c = 0; c < 4; ++c) {
    int p = c;
    for (int r = c + 1; r < 4; ++r)
      if (std::fabs(w[r][c]) > std::fabs(w[p][c])) p = r;
    for (int k = 0; k < 8; ++k) std::swap(w[c][k], w[p][k]);
    const double d = w[c][c];
    for (int k = 0; k < 8; ++k) w[c][k] /= d;
    for (int r = 0; r < 4; ++r)
      if (r != c) {
        const double f = w[r][c];
        for (int k = 0; k < 8; ++k) w[r][k] -= f * w[c][k];
      }
  }
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out[4 * r + c] = w[r][c + 4];
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "register_heavy");
  const int full_n = 8 << 20;
  const int odd_n[] = {100003, 257, 31, 65537};
  for (int set = 0; set < run.sets(); ++set) {
    const int n = set == 0 ? full_n : odd_n[(set - 1) % 4];
    float* A = example::device_alloc<float>(16u * n);
    float* Ainv = example::device_alloc<float>(16u * n);
    std::vector<float> hA = make_matrices(A, n, run.seed(set));
    example::poison(Ainv, 16u * n * sizeof(float));
    invert(A, Ainv, n);
    run.sync("invert");
    std::vector<float> got = example::to_host(Ainv, 16u * n);
    std::vector<double> want(16u * n);
    for (int i = 0; i < n; ++i) reference(&hA[16u * i], &want[16u * i]);
    run.check(set, "Ainv", example::compare(got, want, 1e-5, 1e-6));
    run.check(set, "A (must be unchanged)", example::compare(example::to_host(A, 16u * n), hA, 0.0, 0.0));
    WL_CHECK(cudaFree(A));
    WL_CHECK(cudaFree(Ainv));
  }
  if (run.timing()) {
    float* A = example::device_alloc<float>(16u * full_n);
    float* Ainv = example::device_alloc<float>(16u * full_n);
    make_matrices(A, full_n, run.seed(0));
    run.time([&] { invert(A, Ainv, full_n); });
    WL_CHECK(cudaFree(A));
    WL_CHECK(cudaFree(Ainv));
  }
  return run.finish(128.0 * full_n, 250.0 * full_n);
}
