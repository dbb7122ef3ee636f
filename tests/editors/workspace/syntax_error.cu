// A kernel with a missing semicolon: the server must report Clang's error,
// still hover the kernel, and offer Clang's fix-it ("insert ';'") as a quick fix.
__global__ void scale(float *data, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { data[i] = data[i] * factor }
}

void launch_scale(float *data, float factor, int n) {
  scale<<<(n + 255) / 256, 256>>>(data, factor, n);
}
