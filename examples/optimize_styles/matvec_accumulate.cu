// y = A x with one thread per row that accumulates straight into y[i] in
// global memory (after zeroing it): a load and a store of y[i] on every
// step, and the lanes of a warp reading rows N floats apart.
#include "harness.cuh"

__global__ void matvec_acc(const float* a, const float* x, float* y, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) {
    y[i] = 0.0f;
    for (int j = 0; j < n; j++) y[i] += a[i * n + j] * x[j];
  }
}

void matvec(const float* a, const float* x, float* y, int m, int n) {
  matvec_acc<<<(m + 255) / 256, 256>>>(a, x, y, m, n);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "matvec_accumulate");
  const int full_m = 16384, full_n = 4096;
  const int odd[][2] = {{1001, 1003}, {33, 4097}, {2049, 31}, {517, 7}};
  for (int set = 0; set < run.sets(); ++set) {
    const int M = set == 0 ? full_m : odd[(set - 1) % 4][0];
    const int N = set == 0 ? full_n : odd[(set - 1) % 4][1];
    float* A = example::device_alloc<float>(static_cast<std::size_t>(M) * N);
    float* x = example::device_alloc<float>(N);
    float* y = example::device_alloc<float>(M);
    std::vector<float> hA = example::fill_uniform(A, static_cast<std::size_t>(M) * N, run.seed(set) * 2);
    std::vector<float> hx = example::fill_uniform(x, N, run.seed(set) * 2 + 1);
    example::poison(y, M * sizeof(float));
    matvec(A, x, y, M, N);
    run.sync("matvec");
    std::vector<float> got = example::to_host(y, M);
    example::Comparison cmp;
    for (int r = 0; r < M; ++r) {
      double want = 0, mag = 0;
      for (int k = 0; k < N; ++k) {
        const double p = static_cast<double>(hA[static_cast<std::size_t>(r) * N + k]) * hx[k];
        want += p;
        mag += std::fabs(p);
      }
      example::compare_one(cmp, r, want, got[r], 0.0, 1e-5 * mag + 1e-6);
    }
    run.check(set, "y", cmp);
    run.check(set, "x (must be unchanged)", example::compare(example::to_host(x, N), hx, 0.0, 0.0));
    WL_CHECK(cudaFree(A));
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(y));
  }
  const std::size_t elems = static_cast<std::size_t>(full_m) * full_n;
  if (run.timing()) {
    float* A = example::device_alloc<float>(elems);
    float* x = example::device_alloc<float>(full_n);
    float* y = example::device_alloc<float>(full_m);
    example::fill_uniform(A, elems, run.seed(0) * 2);
    example::fill_uniform(x, full_n, run.seed(0) * 2 + 1);
    run.time([&] { matvec(A, x, y, full_m, full_n); });
    WL_CHECK(cudaFree(A));
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(y));
  }
  return run.finish(4.0 * (elems + full_n + full_m), 2.0 * elems);
}
