// warplens candidate c07 for kernel `bias_relu` (policy builtin)
// plan: restrict-const()
// restrict-const: 2 pointer parameter(s) gain const/__restrict__
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// An element-wise chain written as two kernels: `mul` materialises x * y in a
// temporary buffer that `bias_relu` reads straight back. The temporary costs
// a full write and a full read of n floats that a fused kernel never makes.
#include "harness.cuh"

__global__ void mul(const float* x, const float* y, float* tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = x[i] * y[i];
}

__global__ void bias_relu(const float* __restrict__ t, float bias, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = t[i] + bias;
    out[i] = v > 0.0f ? v : 0.0f;
  }
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "elementwise_chain");
  const int full_n = 64 << 20;
  const int odd_n[] = {1000003, 257, 31, 65537};
  const float bias = 0.1f;
  const int threads = 256;
  for (int set = 0; set < run.sets(); ++set) {
    const int n = set == 0 ? full_n : odd_n[(set - 1) % 4];
    float* d_x = example::device_alloc<float>(n);
    float* d_y = example::device_alloc<float>(n);
    float* d_out = example::device_alloc<float>(n);
    float* d_tmp = example::device_alloc<float>(n);
    std::vector<float> hx = example::fill_uniform(d_x, n, run.seed(set) * 2);
    std::vector<float> hy = example::fill_uniform(d_y, n, run.seed(set) * 2 + 1);
    example::poison(d_out, n * sizeof(float));
    const int blocks = (n + threads - 1) / threads;
    mul<<<blocks, threads>>>(d_x, d_y, d_tmp, n);
    bias_relu<<<blocks, threads>>>(d_tmp, bias, d_out, n);
    run.sync("chain");
    std::vector<float> got = example::to_host(d_out, n), want(n);
    for (int i = 0; i < n; ++i) want[i] = std::max(hx[i] * hy[i] + bias, 0.0f);
    run.check(set, "out", example::compare(got, want, 1e-6, 1e-7));
    run.check(set, "x (must be unchanged)", example::compare(example::to_host(d_x, n), hx, 0.0, 0.0));
    run.check(set, "y (must be unchanged)", example::compare(example::to_host(d_y, n), hy, 0.0, 0.0));
    WL_CHECK(cudaFree(d_x));
    WL_CHECK(cudaFree(d_y));
    WL_CHECK(cudaFree(d_out));
    WL_CHECK(cudaFree(d_tmp));
  }
  if (run.timing()) {
    const int n = full_n;
    float* x = example::device_alloc<float>(n);
    float* y = example::device_alloc<float>(n);
    float* out = example::device_alloc<float>(n);
    float* tmp = example::device_alloc<float>(n);
    example::fill_uniform(x, n, run.seed(0) * 2);
    example::fill_uniform(y, n, run.seed(0) * 2 + 1);
    const int blocks = (n + threads - 1) / threads;
    run.time([&] {
      mul<<<blocks, threads>>>(x, y, tmp, n);
      bias_relu<<<blocks, threads>>>(tmp, bias, out, n);
    });
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(y));
    WL_CHECK(cudaFree(out));
    WL_CHECK(cudaFree(tmp));
  }
  // The fewest bytes: read x and y, write out (the temporary is not needed).
  return run.finish(3.0 * full_n * sizeof(float), 3.0 * full_n);
}
