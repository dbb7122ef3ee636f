// test: kernel=tridiag rewrite=stage-row-walk block=64 chunk=16
// expect: applies
// expect-output: if (!wl_ok) {  // as written
// expect-output: downwards
// expect-launch: block=64,1,1
// One thread per tridiagonal system, stored one after another: the forward
// sweep reads the previous step's results (offset -1), the backward sweep the
// next one's (offset +1). Both loops are staged.
#include <cstddef>
__global__ void tridiag(const float* lower, const float* diag, const float* upper, const float* rhs,
                        float* scratch, float* sol, int systems, int len) {
  int sys = blockIdx.x * blockDim.x + threadIdx.x;
  if (sys >= systems) return;
  const size_t off = (size_t)sys * len;
  float piv = diag[off];
  scratch[off] = upper[off] / piv;
  sol[off] = rhs[off] / piv;
  for (int i = 1; i < len; i++) {
    const size_t at = off + i;
    piv = diag[at] - lower[at] * scratch[at - 1];
    scratch[at] = upper[at] / piv;
    sol[at] = (rhs[at] - lower[at] * sol[at - 1]) / piv;
  }
  for (int i = len - 2; i >= 0; i--) sol[off + i] -= scratch[off + i] * sol[off + i + 1];
}
void solve(const float* l, const float* d, const float* u, const float* r, float* w, float* x, int systems, int len) {
  tridiag<<<(systems + 127) / 128, 128>>>(l, d, u, r, w, x, systems, len);
}
