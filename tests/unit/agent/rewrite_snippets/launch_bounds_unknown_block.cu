// test: kernel=k rewrite=launch-bounds
// expect: refuses block size is not a constant
__global__ void k(float* a) { a[threadIdx.x] = 0; }
void run(float* a, int threads) { k<<<1, threads>>>(a); }
