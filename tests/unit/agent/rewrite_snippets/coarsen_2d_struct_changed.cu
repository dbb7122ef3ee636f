// test: kernel=shift_rows rewrite=coarsen-2d width=4
// expect: refuses the kernel changes or takes the address of `p`
// The kernel writes a field of its struct argument (its own copy): the
// fields are no longer the values every thread was launched with.
#include <cuda_runtime.h>
struct Args {
  const float* src;
  float* dst;
  int rows, cols;
  float k;
};
__global__ void shift_rows(Args p) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < p.rows && c < p.cols) {
    p.k = 2.0f;
    p.dst[(size_t)r * p.cols + c] = p.k * p.src[(size_t)r * p.cols + c];
  }
}
void run(Args a) { shift_rows<<<dim3((a.cols + 31) / 32, (a.rows + 7) / 8), dim3(32, 8)>>>(a); }
