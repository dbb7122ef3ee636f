// A Laplace relaxation step over an N x N grid whose threads cover the
// boundary too: the fixed boundary is copied through, the interior averaged.
#include <cuda_runtime.h>

__global__ void laplace_step(const double* phi, double* phi_new, int N) {
  const int col = threadIdx.x + blockIdx.x * blockDim.x;
  const int row = threadIdx.y + blockIdx.y * blockDim.y;
  if (row >= N || col >= N) return;
  const int k = row * N + col;
  if (row == 0 || col == 0 || row == N - 1 || col == N - 1) {
    phi_new[k] = phi[k];
    return;
  }
  phi_new[k] = 0.25 * (phi[k - N] + phi[k + N] + phi[k - 1] + phi[k + 1]);
}

void relax(const double* phi, double* phi_new, int N) {
  dim3 threads(16, 16);
  dim3 blocks((N + threads.x - 1) / threads.x, (N + threads.y - 1) / threads.y);
  laplace_step<<<blocks, threads>>>(phi, phi_new, N);
}
