// Launch pairs that fuse: the intermediate is written by one launch, read
// back element for element by the next on the same stream, then freed.
#include "../corpus_common.cuh"

__global__ void mul(const float* x, const float* y, float* tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = x[i] * y[i];
}

__global__ void bias_relu(const float* t, float bias, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = t[i] + bias;
    out[i] = v > 0.0f ? v : 0.0f;
  }
}

__global__ void scale(const float* in, float s, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

__global__ void add(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

// Three neighbours of the intermediate per thread.
__global__ void smooth3(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i + 1 < n) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
}

// The issue's example: `tmp` between `mul` and `bias_relu`.
void chain(const float* x, const float* y, float* out, int n) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n);  // expect: fusable-intermediate@warning
  CUDA_CHECK(cudaFree(tmp));
}

// Same stream spelled out; an unrelated launch in between does not matter.
void chain_on_stream(const float* x, float* y, float* out, float* other, int n, cudaStream_t s) {
  float* t = nullptr;
  CUDA_CHECK(cudaMallocAsync(&t, n * sizeof(float), s));
  scale<<<(n + 255) / 256, 256, 0, s>>>(x, 2.0f, t, n);
  scale<<<(n + 255) / 256, 256, 0, s>>>(y, 3.0f, other, n);
  add<<<(n + 255) / 256, 256, 0, s>>>(t, y, out, n);  // expect: fusable-intermediate@warning
  CUDA_CHECK(cudaFreeAsync(t, s));
}

// A loop whose iterations are independent: each writes `t` before reading it.
void repeated(const float* x, float* out, int n, int steps) {
  float* t = nullptr;
  CUDA_CHECK(cudaMalloc(&t, n * sizeof(float)));
  for (int k = 0; k < steps; ++k) {
    scale<<<(n + 255) / 256, 256>>>(x, float(k), t, n);
    bias_relu<<<(n + 255) / 256, 256>>>(t, 1.0f, out, n);  // expect: fusable-intermediate@warning
  }
  CUDA_CHECK(cudaFree(t));
}

// Overwritten in full after the consumer instead of freed: what the next
// reader sees is the memset, not the intermediate.
void reset_after(const float* x, const float* y, float* out, float* out2, float* tmp_out, int n) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n);  // expect: fusable-intermediate@warning
  CUDA_CHECK(cudaMemset(tmp, 0, n * sizeof(float)));
  add<<<(n + 255) / 256, 256>>>(tmp, x, out2, n);
  CUDA_CHECK(cudaMemcpy(tmp_out, tmp, n * sizeof(float), cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaFree(tmp));
}

// An element-wise producer under a stencil: its value can be recomputed at
// the three neighbours, but that is three times the producer's work.
void stencil(const float* x, const float* y, float* out, int n) {
  float* t = nullptr;
  CUDA_CHECK(cudaMalloc(&t, n * sizeof(float)));
  mul<<<(n + 255) / 256, 256>>>(x, y, t, n);
  smooth3<<<(n + 255) / 256, 256>>>(t, out, n);  // expect: fusable-intermediate@info
  CUDA_CHECK(cudaFree(t));
}

int main() {
  const int n = 1 << 24;
  float* x = device_buffer<float>(n, 1);
  float* y = device_buffer<float>(n, 2);
  float* out = device_zeros<float>(n);
  float* other = device_zeros<float>(n);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  chain(x, y, out, n);
  chain_on_stream(x, y, out, other, n, s);
  repeated(x, out, n, 4);
  stencil(x, y, out, n);
  reset_after(x, y, out, other, out, n);
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaFree(other));
  return 0;
}
