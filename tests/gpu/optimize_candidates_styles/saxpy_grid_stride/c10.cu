// warplens candidate c10 for kernel `saxpy_gs` (policy builtin)
// plan: launch-bounds(min-blocks=4)
// launch-bounds: at least 4 blocks of 256 threads per multiprocessor (caps registers at 64; the kernel's locals alone need about 13)
// note: launch-bounds: every launch in the file uses at most 256 threads per block
// y = a * x + y as a grid-stride loop written by hand, launched on a fixed
// grid: correct for any size, but one 4-byte load per array per element.
#include "harness.cuh"

__global__ void __launch_bounds__(256, 4) saxpy_gs(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* x, float* y) { saxpy_gs<<<4096, 256>>>(n, a, x, y); }

int main(int argc, char** argv) {
  example::Run run(argc, argv, "saxpy_grid_stride");
  const int full_n = 64 << 20;
  const int odd_n[] = {1000003, 257, 31, 65537};
  const float a = 1.25f;
  for (int set = 0; set < run.sets(); ++set) {
    const int n = set == 0 ? full_n : odd_n[(set - 1) % 4];
    float* x = example::device_alloc<float>(n);
    float* y = example::device_alloc<float>(n);
    std::vector<float> hx = example::fill_uniform(x, n, run.seed(set) * 2);
    std::vector<float> hy = example::fill_uniform(y, n, run.seed(set) * 2 + 1);
    saxpy(n, a, x, y);
    run.sync("saxpy");
    std::vector<float> got = example::to_host(y, n), want(n);
    for (int i = 0; i < n; ++i) want[i] = a * hx[i] + hy[i];
    run.check(set, "y", example::compare(got, want, 1e-6, 1e-7));
    run.check(set, "x (must be unchanged)", example::compare(example::to_host(x, n), hx, 0.0, 0.0));
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(y));
  }
  if (run.timing()) {
    float* x = example::device_alloc<float>(full_n);
    float* y = example::device_alloc<float>(full_n);
    example::fill_uniform(x, full_n, run.seed(0) * 2);
    example::fill_uniform(y, full_n, run.seed(0) * 2 + 1);
    run.time([&] { saxpy(full_n, a, x, y); });
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(y));
  }
  return run.finish(3.0 * full_n * sizeof(float), 2.0 * full_n);
}
