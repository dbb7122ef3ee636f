// Launch pairs that must not be reported: the host needs the intermediate,
// someone else reads it, the streams differ, or the consumer reads other
// threads' elements of a producer that is not element-wise.
#include <vector>

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

__global__ void relu_in_place(float* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = t[i] > 0.0f ? t[i] : 0.0f;
}

__global__ void scale(const float* in, float s, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

// Sum of all elements (shared-memory tree, one atomic per block).
__global__ void sum_all(const float* in, float* total, int n) {
  __shared__ float part[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, part[0]);
}

__global__ void normalize(const float* in, const float* total, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] / *total;
}

// Reads the intermediate transposed: another thread's element.
__global__ void transpose_read(const float* in, float* out, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) out[i] = in[(i % rows) * cols + i / rows];
}

// Writes every other element only: not element-wise over the buffer.
__global__ void prefix_gather(const float* in, float* out, const int* index, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[index[i]];
}

// The host copies the intermediate back between the launches.
void host_read_between(const float* x, const float* y, float* out, int n, std::vector<float>& debug) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  CUDA_CHECK(cudaMemcpy(debug.data(), tmp, n * sizeof(float), cudaMemcpyDeviceToHost));
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n);
  CUDA_CHECK(cudaFree(tmp));
}

// The host copies the intermediate back after the consumer.
void host_read_after(const float* x, const float* y, float* out, int n, std::vector<float>& debug) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n);
  CUDA_CHECK(cudaMemcpy(debug.data(), tmp, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(tmp));
}

// A second kernel reads the intermediate: it stays materialised anyway.
void second_reader(const float* x, const float* y, float* out, float* out2, int n) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n);
  scale<<<(n + 255) / 256, 256>>>(tmp, 2.0f, out2, n);
  CUDA_CHECK(cudaFree(tmp));
}

// A reduction over the intermediate runs between producer and consumer:
// the consumer needs the whole sum, so `tmp` has two readers.
void reduction_between(const float* x, const float* y, float* out, float* total, int n) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  CUDA_CHECK(cudaMemset(total, 0, sizeof(float)));
  sum_all<<<(n + 255) / 256, 256>>>(tmp, total, n);
  normalize<<<(n + 255) / 256, 256>>>(tmp, total, out, n);
  CUDA_CHECK(cudaFree(tmp));
}

// Producer and consumer on different streams: their order is not program
// order, and one fused launch cannot run on both.
void different_streams(const float* x, const float* y, float* out, int n, cudaStream_t s1, cudaStream_t s2) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  mul<<<(n + 255) / 256, 256, 0, s1>>>(x, y, tmp, n);
  bias_relu<<<(n + 255) / 256, 256, 0, s2>>>(tmp, 0.1f, out, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(tmp));
}

// The consumer reads other threads' elements and the producer is not
// element-wise (it gathers through an index): nothing to recompute locally.
void gather_then_transpose(const float* x, const int* index, float* out, int rows, int cols) {
  const int n = rows * cols;
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  prefix_gather<<<(n + 255) / 256, 256>>>(x, tmp, index, n);
  transpose_read<<<(n + 255) / 256, 256>>>(tmp, out, rows, cols);
  CUDA_CHECK(cudaFree(tmp));
}

// The consumer updates the intermediate in place and the result is copied
// out of it: the buffer holds the output, not an intermediate.
void in_place_then_copied(const float* x, const float* y, float* out, int n) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  relu_in_place<<<(n + 255) / 256, 256>>>(tmp, n);
  CUDA_CHECK(cudaMemcpy(out, tmp, n * sizeof(float), cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaFree(tmp));
}

// Managed memory read by the host after the launches.
float managed_then_host(const float* x, const float* y, float* out, int n) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMallocManaged(&tmp, n * sizeof(float)));
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  float first = tmp[0];
  CUDA_CHECK(cudaFree(tmp));
  return first;
}

// The intermediate is the caller's output: it is read after this function.
void caller_keeps(const float* x, const float* y, float* tmp, float* out, int n) {
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n);  // expect: fusable-intermediate@info
}

int main() {
  const int rows = 2048, cols = 2048, n = rows * cols;
  float* x = device_buffer<float>(n, 1);
  float* y = device_buffer<float>(n, 2);
  float* out = device_zeros<float>(n);
  float* out2 = device_zeros<float>(n);
  float* total = device_zeros<float>(1);
  float* keep = device_zeros<float>(n);
  int* index = device_zeros<int>(n);
  std::vector<float> debug(n);
  cudaStream_t s1, s2;
  CUDA_CHECK(cudaStreamCreate(&s1));
  CUDA_CHECK(cudaStreamCreate(&s2));
  host_read_between(x, y, out, n, debug);
  host_read_after(x, y, out, n, debug);
  second_reader(x, y, out, out2, n);
  reduction_between(x, y, out, total, n);
  different_streams(x, y, out, n, s1, s2);
  gather_then_transpose(x, index, out, rows, cols);
  caller_keeps(x, y, keep, out, n);
  in_place_then_copied(x, y, out, n);
  std::printf("%f\n", managed_then_host(x, y, out, n));
  CUDA_CHECK(cudaDeviceSynchronize());
  return 0;
}
