// HONEST (must pass): the in-place axpy with float4 accesses and a scalar
// tail, four elements per thread (coarsened grid).
// warplens: coarsen=(4,1,1)
__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  bool aligned = ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
  if (aligned && i + 3 < n) {
    float4 xv = *reinterpret_cast<const float4*>(x + i);
    float4 yv = *reinterpret_cast<float4*>(y + i);
    *reinterpret_cast<float4*>(y + i) = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w);
  } else {
    for (int k = i; k < i + 4 && k < n; ++k) y[k] = a * x[k] + y[k];
  }
}
