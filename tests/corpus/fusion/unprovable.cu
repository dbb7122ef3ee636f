// Data flow that looks fusable but whose single use cannot be proven:
// information, never a warning.
#include "../corpus_common.cuh"

__global__ void mul(const float* x, const float* y, float* tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = x[i] * y[i];
}

__global__ void bias_relu(const float* t, float bias, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = t[i] + bias;
    out[i] = v > 0.0f ? v : 0.0f;
  }
}

__global__ void scale(const float* in, float s, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

__global__ void add(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

// Host functions are not followed: to the analysis this call may keep the
// pointer and read through it later.
void register_for_debugging(const void* p);

// Another pointer holds the intermediate's address.
void aliased(const float* x, const float* y, float* out, int n) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  float* view = tmp;
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  bias_relu<<<(n + 255) / 256, 256>>>(view, 0.1f, out, n);  // expect: fusable-intermediate@info
  CUDA_CHECK(cudaFree(tmp));
}

// The intermediate escapes to a function the analysis cannot see.
void escapes(const float* x, const float* y, float* out, int n) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  register_for_debugging(tmp);
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n);  // expect: fusable-intermediate@info
  CUDA_CHECK(cudaFree(tmp));
}

// Carried state: the consumer reads what the producer wrote in the
// previous iteration (the first iteration reads the initial contents).
void carried(const float* x, float* out, int n, int steps) {
  float* state = nullptr;
  CUDA_CHECK(cudaMalloc(&state, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(state, 0, n * sizeof(float)));
  for (int k = 0; k < steps; ++k) {
    bias_relu<<<(n + 255) / 256, 256>>>(state, 1.0f, out, n);  // expect: fusable-intermediate@info
    scale<<<(n + 255) / 256, 256>>>(x, float(k), state, n);
  }
  CUDA_CHECK(cudaFree(state));
}

// Ping-pong buffers swapped every iteration: which memory is the
// intermediate changes from one iteration to the next. The analysis treats
// `a` and `b` as one memory, which the host copies out after the loop, so
// it reports nothing (conservative: no claim either way).
void ping_pong(const float* x, float* out, int n, int steps) {
  float* a = nullptr;
  float* b = nullptr;
  CUDA_CHECK(cudaMalloc(&a, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&b, n * sizeof(float)));
  for (int k = 0; k < steps; ++k) {
    scale<<<(n + 255) / 256, 256>>>(x, 2.0f, a, n);
    add<<<(n + 255) / 256, 256>>>(a, x, b, n);
    float* t = a;
    a = b;
    b = t;
  }
  CUDA_CHECK(cudaMemcpy(out, a, n * sizeof(float), cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
}

// The producer's input changes between the launches: a fused kernel would
// read the new contents.
void input_changed(float* x, const float* y, float* out, int n) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  CUDA_CHECK(cudaMemset(x, 0, n * sizeof(float)));
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n);  // expect: fusable-intermediate@info
  CUDA_CHECK(cudaFree(tmp));
}

// Only in one branch: the consumer may run without the producer.
void conditional(const float* x, const float* y, float* out, int n, bool fresh) {
  float* tmp = nullptr;
  CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(tmp, 0, n * sizeof(float)));
  if (fresh) mul<<<(n + 255) / 256, 256>>>(x, y, tmp, n);
  bias_relu<<<(n + 255) / 256, 256>>>(tmp, 0.1f, out, n);  // expect: fusable-intermediate@info
  CUDA_CHECK(cudaFree(tmp));
}

int main() {
  const int n = 1 << 22;
  float* x = device_buffer<float>(n, 1);
  float* y = device_buffer<float>(n, 2);
  float* out = device_zeros<float>(n);
  aliased(x, y, out, n);
  escapes(x, y, out, n);
  carried(x, out, n, 3);
  ping_pong(x, out, n, 3);
  conditional(x, y, out, n, true);
  input_changed(x, y, out, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  return 0;
}
void register_for_debugging(const void* p) { std::printf("debug buffer %p\n", p); }
