// Stencils: 1-D with neighbours on one line or on their own lines, 1-D
// with a shared-memory halo, 2-D five-point in the right and the wrong
// thread order, 3-D seven-point on halo-padded arrays. Arrays carry a halo
// so interior threads never need a bounds check on their neighbours.
#include "corpus_common.cuh"

#define RADIUS 3
#define BLOCK_1D 256

// Three loads on one line: 4 + 5 + 5 sectors for an ideal of 12 (1.17x),
// so the loads are fine as a line; the store to out[i] (one float past the
// halo) straddles five sectors.
__global__ void stencil1d_one_line(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (i <= n)
    out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];  // expect: uncoalesced-global(store, 1.25x)
}

// The same loads on their own lines. i starts at 1 (the halo), so in[i - 1]
// is the aligned one and in[i], in[i + 1] each straddle five sectors.
__global__ void stencil1d_split(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (i <= n) {
    float left = in[i - 1];
    float center = in[i];  // expect: uncoalesced-global(load, 1.25x)
    float right = in[i + 1];  // expect: uncoalesced-global(load, 1.25x)
    out[i - 1] = 0.25f * left + 0.5f * center + 0.25f * right;
  }
}

// The classic shared-memory stencil: the block's run of the input starts
// RADIUS floats past a sector boundary (5 sectors for 4); the halo loads
// of the first RADIUS lanes fit in one sector each.
__global__ void stencil1d_shared(const float* in, float* out, int n) {
  __shared__ float temp[BLOCK_1D + 2 * RADIUS];
  int gindex = blockIdx.x * blockDim.x + threadIdx.x + RADIUS;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = in[gindex];  // expect: uncoalesced-global(load, 1.25x)
  if (threadIdx.x < RADIUS) {  // expect: warp-divergence
    temp[lindex - RADIUS] = in[gindex - RADIUS];
    temp[lindex + BLOCK_1D] = in[gindex + BLOCK_1D];
  }
  __syncthreads();
  float result = 0.0f;
  for (int offset = -RADIUS; offset <= RADIUS; offset++)
    result += temp[lindex + offset];
  out[gindex - RADIUS] = result;
}

// 32x8 blocks; rows above and below are aligned, left/right neighbours are
// not: 4 + 4 + 5 + 5 + 4 sectors for 20 (1.1x).
__global__ void stencil2d_5pt(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < W - 1 && y > 0 && y < H - 1)
    out[y * W + x] = in[(y - 1) * W + x] + in[(y + 1) * W + x] + in[y * W + x - 1] + in[y * W + x + 1] - 4.0f * in[y * W + x];
}

// The x-neighbours on their own lines, inside a bounds check that switches
// off lane 0 of each row's first warp and lane 31 of its last: interior
// warps pay 5 sectors for 4, the two edge warps 4 and 5 (or 5 and 4), so
// each line measures 319 / 256 = 1.246 over a 2048-wide row: not reported.
__global__ void stencil2d_split_guarded(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < W - 1 && y > 0 && y < H - 1) {
    float left = in[y * W + x - 1];
    float right = in[y * W + x + 1];
    out[y * W + x] = 0.5f * (left + right);
  }
}

// threadIdx.x walks y: every access strides by a row.
__global__ void stencil2d_5pt_swapped(const float* in, float* out, int W, int H) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  int x = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < W - 1 && y > 0 && y < H - 1)
    out[y * W + x] = in[(y - 1) * W + x] + in[(y + 1) * W + x] + in[y * W + x - 1] + in[y * W + x + 1] - 4.0f * in[y * W + x];  // expect: uncoalesced-global(load) uncoalesced-global(store)
}

// 7-point stencil on an (nx+2) x (ny+2) x (nz+2) array with 32x4x2 blocks
// (nx = ny = 256). A row of the interior starts at float
// z*plane + y*pitch + 1 with pitch = 258 (2 mod 8) and plane = 66564 (4 mod
// 8): always an odd float, so the centre, y- and z-neighbours and the store
// straddle 5 sectors (1.25x). The x-neighbours start at an even float that
// is a multiple of 8 in one row out of four: 4.75 + 4.75 for 8 (1.19x).
__global__ void stencil3d_7pt(const float* in, float* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int y = blockIdx.y * blockDim.y + threadIdx.y + 1;
  int z = blockIdx.z * blockDim.z + threadIdx.z + 1;
  if (x > nx || y > ny || z > nz) return;
  int pitch = nx + 2;
  int plane = pitch * (ny + 2);
  int idx = z * plane + y * pitch + x;
  float c = in[idx];  // expect: uncoalesced-global(load, 1.25x)
  float xs = in[idx - 1] + in[idx + 1];
  float ys = in[idx - pitch] + in[idx + pitch];  // expect: uncoalesced-global(load, 1.25x)
  float zs = in[idx - plane] + in[idx + plane];  // expect: uncoalesced-global(load, 1.25x)
  out[idx] = xs + ys + zs - 6.0f * c;  // expect: uncoalesced-global(store, 1.25x)
}

// The same arrays with x handled by threadIdx.y and y by threadIdx.x.
__global__ void stencil3d_7pt_swapped(const float* in, float* out, int nx, int ny, int nz) {
  int y = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int x = blockIdx.y * blockDim.y + threadIdx.y + 1;
  int z = blockIdx.z * blockDim.z + threadIdx.z + 1;
  if (x > nx || y > ny || z > nz) return;
  int pitch = nx + 2;
  int plane = pitch * (ny + 2);
  int idx = z * plane + y * pitch + x;
  float c = in[idx];  // expect: uncoalesced-global(load)
  out[idx] = c * 0.5f;  // expect: uncoalesced-global(store)
}

int main() {
  const int n = 1 << 22;
  float* in = device_buffer<float>(n + 2 * RADIUS + 2);
  float* out = device_zeros<float>(n + 2 * RADIUS + 2);
  stencil1d_one_line<<<n / BLOCK_1D, BLOCK_1D>>>(in, out, n);
  stencil1d_split<<<n / BLOCK_1D, BLOCK_1D>>>(in, out, n);
  stencil1d_shared<<<n / BLOCK_1D, BLOCK_1D>>>(in, out, n);
  cudaFree(in);
  cudaFree(out);

  const int W = 2048, H = 2048;
  float* img = device_buffer<float>(size_t(W) * H);
  float* res = device_zeros<float>(size_t(W) * H);
  stencil2d_5pt<<<dim3(W / 32, H / 8), dim3(32, 8)>>>(img, res, W, H);
  stencil2d_5pt_swapped<<<dim3(H / 32, W / 8), dim3(32, 8)>>>(img, res, W, H);
  stencil2d_split_guarded<<<dim3(W / 32, H / 8), dim3(32, 8)>>>(img, res, W, H);
  cudaFree(img);
  cudaFree(res);

  const int nx = 256, ny = 256, nz = 128;
  const size_t cells = size_t(nx + 2) * (ny + 2) * (nz + 2);
  float* vol = device_buffer<float>(cells);
  float* vout = device_zeros<float>(cells);
  stencil3d_7pt<<<dim3(nx / 32, ny / 4, nz / 2), dim3(32, 4, 2)>>>(vol, vout, nx, ny, nz);
  stencil3d_7pt_swapped<<<dim3(ny / 32, nx / 4, nz / 2), dim3(32, 4, 2)>>>(vol, vout, nx, ny, nz);
  finish("stencils");
  cudaFree(vol);
  cudaFree(vout);
  return 0;
}
