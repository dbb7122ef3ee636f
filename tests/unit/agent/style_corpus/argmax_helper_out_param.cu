// Top-1 class per sample: a __device__ helper returns the index and hands the
// score back through a pointer to the caller's local; a thread per row.
#include <cuda_runtime.h>

__device__ int top1(const float* logits, int classes, float* score) {
  int best = 0;
  float s = logits[0];
  for (int c = 1; c < classes; ++c) {
    if (logits[c] > s) {
      s = logits[c];
      best = c;
    }
  }
  *score = s;
  return best;
}

__global__ void classify(const float* __restrict__ logits, int* __restrict__ label, float* __restrict__ score,
                         int batch, int classes) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batch) return;
  float s;
  label[b] = top1(logits + (size_t)b * classes, classes, &s);
  score[b] = s;
}

void run(const float* logits, int* label, float* score, int batch, int classes) {
  const int threads = 128;
  classify<<<(batch + threads - 1) / threads, threads>>>(logits, label, score, batch, classes);
}
