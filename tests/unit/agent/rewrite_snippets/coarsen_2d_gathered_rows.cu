// test: kernel=gather_rows rewrite=coarsen-2d width=4
// expect: applies
// expect-output: int src = idx[row];
// expect-output: wl_vector_load<4>(wl_table, &(table[(size_t)src * cols + col]));
// expect-output: wl_vector_store<4>(&(out[(size_t)row * cols + col]), wl_out);
// Rows gathered through an index array (an embedding lookup): the row
// offset is a loaded value, the same all along x, declared at the start of
// the work (repeated at the group's first x for the vector accesses).
#include <cuda_runtime.h>
__global__ void gather_rows(const int* idx, const float* table, float* out, int rows, int cols) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && col < cols) {
    int src = idx[row];
    out[(size_t)row * cols + col] = table[(size_t)src * cols + col];
  }
}
void run(const int* idx, const float* table, float* out, int rows, int cols) {
  gather_rows<<<dim3((cols + 31) / 32, (rows + 7) / 8), dim3(32, 8)>>>(idx, table, out, rows, cols);
}
