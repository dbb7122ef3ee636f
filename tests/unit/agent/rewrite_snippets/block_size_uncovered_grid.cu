// test: kernel=add rewrite=block-size
// expect: refuses cannot prove that a launch's grid covers
// The grid rounds down: a larger block would start threads the original never ran.
__global__ void add(const float* a, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + 1.0f;
}
void run(const float* a, float* c, int n) { add<<<n / 256, 256>>>(a, c, n); }
