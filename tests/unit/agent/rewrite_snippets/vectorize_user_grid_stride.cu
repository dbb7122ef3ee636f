// test: kernel=saxpy rewrite=vectorize width=4 shrink-grid=0
// expect: applies
// expect-output: wl_vector_load<4>(wl_x, x + wl_v);
// expect-output: wl_y[wl_c] = a * wl_x[wl_c] + wl_y[wl_c];
// expect-no-output: i += blockDim.x * gridDim.x
// A grid-stride loop the user wrote is an element-wise kernel too.
#include <cuda_runtime.h>
__global__ void saxpy(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}
void run(int n, float a, const float* x, float* y) { saxpy<<<1024, 256>>>(n, a, x, y); }
