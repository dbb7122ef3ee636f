// test: kernel=scale rewrite=unroll
// expect: refuses no innermost for loop without an unroll pragma
__global__ void scale(float* a, int n) {
#pragma unroll 2
  for (int i = threadIdx.x; i < n; i += blockDim.x) a[i] *= 2.0f;
}
