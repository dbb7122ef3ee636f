// test: kernel=scale3 rewrite=vectorize-struct
// expect: refuses not a multiple of 8
struct Vec3 {
  float x, y, z;
};
__global__ void scale3(Vec3* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    v[i].x *= 2.0f;
    v[i].y *= 2.0f;
    v[i].z *= 2.0f;
  }
}
void run(Vec3* v, int n) { scale3<<<(n + 255) / 256, 256>>>(v, n); }
