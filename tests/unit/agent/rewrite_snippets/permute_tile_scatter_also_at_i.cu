// test: kernel=scatter_and_copy rewrite=permute-tile
// expect: refuses the kernel writes at [i] as well as at scattered elements
// Besides the scattered store the kernel writes its own element.
__global__ void scatter_and_copy(const float* src, float* dst, float* copy, int C, int HW, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) {
    int p = i % HW;
    int c = (i / HW) % C;
    int n = i / (HW * C);
    copy[i] = src[i];
    dst[(n * HW + p) * C + c] = src[i];
  }
}
void run(const float* src, float* dst, float* copy, int C, int HW, int total) {
  scatter_and_copy<<<(total + 255) / 256, 256>>>(src, dst, copy, C, HW, total);
}
