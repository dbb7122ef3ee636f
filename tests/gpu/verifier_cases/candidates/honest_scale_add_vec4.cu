// HONEST (must pass): each thread handles four elements with 16-byte loads
// and stores, with a scalar tail; declares the coarsening so the grid
// shrinks by four.
// warplens: coarsen=(4,1,1)
__global__ void scale_add(const float* x, const float* y, float* out, float alpha, int n) {
  int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  bool aligned = ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y) |
                   reinterpret_cast<unsigned long long>(out)) & 15) == 0;
  if (aligned && i + 3 < n) {
    float4 a = *reinterpret_cast<const float4*>(x + i);
    float4 b = *reinterpret_cast<const float4*>(y + i);
    float4 r = make_float4(alpha * a.x + b.x, alpha * a.y + b.y, alpha * a.z + b.z, alpha * a.w + b.w);
    *reinterpret_cast<float4*>(out + i) = r;
  } else {
    for (int k = i; k < i + 4 && k < n; ++k) out[k] = alpha * x[k] + y[k];
  }
}
