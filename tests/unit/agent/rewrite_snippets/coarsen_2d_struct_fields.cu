// test: kernel=scale_rows rewrite=coarsen-2d width=4
// expect: applies
// expect-output: wl_vector_load<4>(wl_src, &(p.src[(size_t)r * p.cols + c]));
// expect-output: wl_vector_store<4>(&(p.dst[(size_t)r * p.cols + c]), wl_dst);
// The arrays are pointer fields of a struct passed by value.
#include <cuda_runtime.h>
struct Args {
  const float* src;
  float* dst;
  int rows, cols;
  float k;
};
__global__ void scale_rows(Args p) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < p.rows && c < p.cols) p.dst[(size_t)r * p.cols + c] = p.k * p.src[(size_t)r * p.cols + c];
}
void run(Args a) { scale_rows<<<dim3((a.cols + 31) / 32, (a.rows + 7) / 8), dim3(32, 8)>>>(a); }
