// Sum of an array with an interleaved shared-memory tree per block (most
// lanes idle) and an atomic add of the block sums.
// usage: interleaved_reduction [n]
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void reduce_interleaved(const float* in, float* sum, int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) atomicAdd(sum, sdata[0]);
}

void reduce(const float* in, float* sum, int n) {
  const int threads = 256;
  cudaMemsetAsync(sum, 0, sizeof(float));
  reduce_interleaved<<<(n + threads - 1) / threads, threads, threads * sizeof(float)>>>(in, sum, n);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64 << 20;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>((i * 7919) % 2001 - 1000) * 0.001f;
  float *in, *sum;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&sum, sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  reduce(in, sum, n);
  float got = 0;
  cudaMemcpy(&got, sum, sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("sum of %d floats: %.6f\n", n, got);
  cudaFree(in);
  cudaFree(sum);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
