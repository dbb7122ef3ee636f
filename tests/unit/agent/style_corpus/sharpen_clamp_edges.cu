// A 3x3 sharpen filter on a grayscale image, edges clamped with
// max(0, min(...)) and the weights in a local table.
#include <cuda_runtime.h>

__global__ void sharpen(const unsigned char* in, unsigned char* out, int width, int height) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < width && r < height) {
    const int weights[3][3] = {{0, -1, 0}, {-1, 5, -1}, {0, -1, 0}};
    int acc = 0;
    for (int dr = -1; dr <= 1; dr++) {
      for (int dc = -1; dc <= 1; dc++) {
        int rr = max(0, min(r + dr, height - 1));
        int cc = max(0, min(c + dc, width - 1));
        acc += weights[dr + 1][dc + 1] * in[rr * width + cc];
      }
    }
    out[r * width + c] = (unsigned char)min(max(acc, 0), 255);
  }
}

void sharpen_image(const unsigned char* in, unsigned char* out, int width, int height) {
  dim3 threads(32, 8);
  dim3 blocks((width + 31) / 32, (height + 7) / 8);
  sharpen<<<blocks, threads>>>(in, out, width, height);
}
