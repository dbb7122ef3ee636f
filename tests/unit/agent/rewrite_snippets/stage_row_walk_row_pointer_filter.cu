// test: kernel=smooth_rows rewrite=stage-row-walk block=32 chunk=32
// expect: applies
// expect-output: for (long long wl_i = wl_clo; wl_i <= wl_chi; ++wl_i) {
// expect-launch: block=32,1,1
// A first-order recursive filter along each row, written with row pointers
// and a counter declared before its loop; the row bound is a macro-free
// parameter and the guard is the `if` form.
#define ALPHA 0.25f
__global__ void smooth_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const float* src = in + (long long)r * cols;
    float* dst = out + (long long)r * cols;
    float state = src[0];
    int c;
    for (c = 0; c < cols; ++c) {
      state = ALPHA * src[c] + (1.0f - ALPHA) * state;
      dst[c] = state;
    }
  }
}
int main() {
  float *a, *b;
  int rows = 4096, cols = 1000;
  smooth_rows<<<(rows + 255) / 256, 256>>>(a, b, rows, cols);
  return 0;
}
