// L1 distance matrix with a temporary in the k loop.
#include <cuda_runtime.h>
__global__ void l1_matrix(const float* P, const float* Q, float* D, int np, int nq, int dim) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  int p = blockIdx.y * blockDim.y + threadIdx.y;
  if (p < np && q < nq) {
    float acc = 0.0f;
    for (int k = 0; k < dim; ++k) {
      float diff = P[p * dim + k] - Q[q * dim + k];
      acc += fabsf(diff);
    }
    D[p * nq + q] = acc;
  }
}
void launch(const float* P, const float* Q, float* D, int np, int nq, int dim) {
  dim3 b(16, 16), g((nq + 15) / 16, (np + 15) / 16);
  l1_matrix<<<g, b>>>(P, Q, D, np, nq, dim);
}
