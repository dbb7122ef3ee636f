// warplens candidate c07 for kernel `bias_relu_rows` (policy builtin)
// plan: restrict-const()
// restrict-const: 3 pointer parameter(s) gain const/__restrict__
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// A linear layer's epilogue written as two kernels: `mul_rows` materialises
// a * b in a temporary that `bias_relu_rows` reads straight back, adding a
// per-column bias (a broadcast operand, bias[i % cols]) before the ReLU.
#include "harness.cuh"

__global__ void mul_rows(const float* a, const float* b, float* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = a[i] * b[i];
}

__global__ void bias_relu_rows(const float* __restrict__ t, const float* __restrict__ bias, float* __restrict__ c, int n, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = fmaxf(t[i] + bias[i % cols], 0.0f);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "bias_relu_broadcast");
  const int full_rows = 16384, full_cols = 4096;
  const int odd[][2] = {{1001, 999}, {3, 4099}, {31, 1}, {517, 7}};
  const int threads = 256;
  for (int set = 0; set < run.sets(); ++set) {
    const int R = set == 0 ? full_rows : odd[(set - 1) % 4][0];
    const int cols = set == 0 ? full_cols : odd[(set - 1) % 4][1];
    const int n = R * cols;
    float* a = example::device_alloc<float>(n);
    float* b = example::device_alloc<float>(n);
    float* bias = example::device_alloc<float>(cols);
    float* c = example::device_alloc<float>(n);
    float* t = example::device_alloc<float>(n);
    std::vector<float> ha = example::fill_uniform(a, n, run.seed(set) * 3);
    std::vector<float> hb = example::fill_uniform(b, n, run.seed(set) * 3 + 1);
    std::vector<float> hbias = example::fill_uniform(bias, cols, run.seed(set) * 3 + 2);
    example::poison(c, n * sizeof(float));
    const int blocks = (n + threads - 1) / threads;
    mul_rows<<<blocks, threads>>>(a, b, t, n);
    bias_relu_rows<<<blocks, threads>>>(t, bias, c, n, cols);
    run.sync("bias_relu");
    std::vector<float> got = example::to_host(c, n), want(n);
    for (int i = 0; i < n; ++i) want[i] = std::max(ha[i] * hb[i] + hbias[i % cols], 0.0f);
    run.check(set, "c", example::compare(got, want, 1e-6, 1e-7));
    run.check(set, "a (must be unchanged)", example::compare(example::to_host(a, n), ha, 0.0, 0.0));
    WL_CHECK(cudaFree(a));
    WL_CHECK(cudaFree(b));
    WL_CHECK(cudaFree(bias));
    WL_CHECK(cudaFree(c));
    WL_CHECK(cudaFree(t));
  }
  const int n = full_rows * full_cols;
  if (run.timing()) {
    float* a = example::device_alloc<float>(n);
    float* b = example::device_alloc<float>(n);
    float* bias = example::device_alloc<float>(full_cols);
    float* c = example::device_alloc<float>(n);
    float* t = example::device_alloc<float>(n);
    example::fill_uniform(a, n, run.seed(0) * 3);
    example::fill_uniform(b, n, run.seed(0) * 3 + 1);
    example::fill_uniform(bias, full_cols, run.seed(0) * 3 + 2);
    const int blocks = (n + threads - 1) / threads;
    const int cols = full_cols;
    run.time([&] {
      mul_rows<<<blocks, threads>>>(a, b, t, n);
      bias_relu_rows<<<blocks, threads>>>(t, bias, c, n, cols);
    });
    WL_CHECK(cudaFree(a));
    WL_CHECK(cudaFree(b));
    WL_CHECK(cudaFree(bias));
    WL_CHECK(cudaFree(c));
    WL_CHECK(cudaFree(t));
  }
  return run.finish(3.0 * n * sizeof(float), 3.0 * n);
}
