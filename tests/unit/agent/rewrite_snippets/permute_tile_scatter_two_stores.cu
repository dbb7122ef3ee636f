// test: kernel=two_scatters rewrite=permute-tile
// expect: refuses more than one scattered store
// Two scattered stores per element: one tile cannot serve both.
__global__ void two_scatters(const float* src, float* a, float* b, int C, int HW, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) {
    int p = i % HW;
    int c = (i / HW) % C;
    int n = i / (HW * C);
    a[(n * HW + p) * C + c] = src[i];
    b[(n * HW + p) * C + c] = 2.0f * src[i];
  }
}
void run(const float* src, float* a, float* b, int C, int HW, int total) {
  two_scatters<<<(total + 255) / 256, 256>>>(src, a, b, C, HW, total);
}
