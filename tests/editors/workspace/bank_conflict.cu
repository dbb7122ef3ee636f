// Matrix transpose through a 32x32 shared tile. The write is row-wise, but the
// read walks a column: the 32 threads of a warp read addresses 32 floats
// apart, all in one shared-memory bank (a 32-way conflict). Padding each row
// to 33 floats spreads them over all 32 banks.
__global__ void transpose(const float *in, float *out, int n) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

void launch_transpose(const float *in, float *out, int n) {
  dim3 block(32, 32);
  dim3 grid(n / 32, n / 32);
  transpose<<<grid, block>>>(in, out, n);
}
