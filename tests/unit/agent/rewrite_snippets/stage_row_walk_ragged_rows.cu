// test: kernel=ragged rewrite=stage-row-walk
// expect: refuses bounds are not uniform
// Each row has its own length: the chunks of different threads would not
// line up, and every thread must reach the same barriers.
__global__ void ragged(const float* x, const int* len, float* y, int rows, int stride) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.f;
    for (int i = 0; i < len[r]; ++i) {
      s = s * 0.5f + x[r * stride + i];
      y[r * stride + i] = s;
    }
  }
}
void run(const float* x, const int* l, float* y, int rows, int s) { ragged<<<(rows + 255) / 256, 256>>>(x, l, y, rows, s); }
