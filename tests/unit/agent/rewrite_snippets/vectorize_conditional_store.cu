// test: kernel=clip rewrite=vectorize width=2 shrink-grid=0
// expect: applies
// expect-output: wl_vector_load<2>(wl_x, x + wl_v);
// The store is conditional: the array is loaded first so untouched elements keep their bits.
__global__ void clip(double* x, double limit, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (x[i] > limit) x[i] = limit;
}
