// HONEST (must pass): the struct-parameter kernel, unchanged but for
// __restrict__: replay must relocate the pointer inside the struct.
struct Span {
  int n;
  int pad;
  float* __restrict__ data;
};

__global__ void scale_span(Span s, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.n) s.data[i] = s.data[i] * f;
}
