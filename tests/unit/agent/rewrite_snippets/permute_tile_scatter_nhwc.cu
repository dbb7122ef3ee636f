// test: kernel=to_channels_last rewrite=permute-tile rows=8
// expect: applies
// expect-output: wl_tile[threadIdx.x][wl_r] = src[idx] + bias;
// expect-output: dst[((n * H + h) * W + w) * C + c] = wl_tile[wl_r][threadIdx.x];
// expect-launch: block=32,8,1
// expect-motivation: the store `dst[((n * H + h) * W + w) * C + c]`
// NCHW -> NHWC written from the input's side: one thread per input element
// (reads coalesced), the output index decoded from it; the digit
// c = (idx / (W * H)) % C steps the store by one element.
__global__ void to_channels_last(const float* src, float* dst, int N, int C, int H, int W, float bias) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * C * H * W) {
    int w = idx % W;
    int h = (idx / W) % H;
    int c = (idx / (W * H)) % C;
    int n = idx / (W * H * C);
    dst[((n * H + h) * W + w) * C + c] = src[idx] + bias;
  }
}
void run(const float* src, float* dst, int N, int C, int H, int W) {
  int total = N * C * H * W;
  to_channels_last<<<(total + 255) / 256, 256>>>(src, dst, N, C, H, W, 0.5f);
}
