// TEST DOUBLE: see fake_launch_kernels.h.
#include "tests/unit/agent/fake_cuda/fake_launch_kernels.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace warplens::fake_cuda {

namespace {

const std::string kMatvec = "_Z11matvec_rowsPKfS0_Pfii";
const std::string kMatmul = "_Z17matmul_naive_rowxPKfS0_Pfiii";
const std::string kSaxpy = "_Z13saxpy_inplacefPKfPfi";
const std::string kMul = "_Z3mulPKfS0_Pfi";
const std::string kBiasRelu = "_Z9bias_reluPKffPfi";
const std::string kFused = "_Z19mul_bias_relu_fusedPKfS0_PfifS1_i";
const std::string kConv5 = "_Z5conv5PKfPfi";

constexpr double kNsPerSector = 0.001;  // microseconds

// GPU float arithmetic does not carry NaN payloads through (an FFMA with a
// NaN operand gives the canonical 0x7fffffff); the host's does. Without this
// an in-place kernel's poisoned input would come out as the same poison and
// look never written.
float gpu_nan(float v) {
  if (v == v) return v;
  float canonical;
  const std::uint32_t bits = 0x7fffffffu;
  std::memcpy(&canonical, &bits, 4);
  return canonical;
}

template <class T>
T arg(void** params, int i) {
  T v;
  std::memcpy(&v, params[i], sizeof v);
  return v;
}

// Global linear thread index along x, and the total threads along x.
unsigned long long global_x(const Geometry& g, unsigned bx, unsigned tx) {
  return static_cast<unsigned long long>(bx) * g.block[0] + tx;
}

template <class F>
void for_each_thread(const Geometry& g, F&& f) {
  for (unsigned by = 0; by < g.grid[1]; ++by)
    for (unsigned bx = 0; bx < g.grid[0]; ++bx)
      for (unsigned ty = 0; ty < g.block[1]; ++ty)
        for (unsigned tx = 0; tx < g.block[0]; ++tx) f(bx, by, tx, ty);
}

LaunchCaseRun matvec(const std::string& variant, const Geometry& g, void** p) {
  const auto* A = arg<const float*>(p, 0);
  const auto* x = arg<const float*>(p, 1);
  auto* y = arg<float*>(p, 2);
  const int M = arg<int>(p, 3), N = arg<int>(p, 4);
  LaunchCaseRun r;
  if (variant == "warp_per_row_matvec.cu") {
    // Threads 32r .. 32r+31 (one warp; blocks are multiples of 32) share row r.
    const unsigned long long threads = static_cast<unsigned long long>(g.grid[0]) * g.block[0];
    for (unsigned long long warp = 0; warp < threads / 32; ++warp) {
      const long long row = static_cast<long long>(warp);
      if (row >= M) continue;
      std::array<float, 32> v{};
      for (int lane = 0; lane < 32; ++lane)
        for (int k = lane; k < N; k += 32) v[lane] = std::fma(A[row * N + k], x[k], v[lane]);
      for (int offset = 16; offset > 0; offset >>= 1) {  // __shfl_xor_sync butterfly
        std::array<float, 32> next{};
        for (int lane = 0; lane < 32; ++lane) next[lane] = v[lane] + v[lane ^ offset];
        v = next;
      }
      y[row] = v[0];
    }
    r.simulated_us = kNsPerSector * (static_cast<double>(M) * N / 8 + M);  // lanes read a row's consecutive floats
    return r;
  }
  for_each_thread(g, [&](unsigned bx, unsigned, unsigned tx, unsigned) {
    const long long row = static_cast<long long>(global_x(g, bx, tx));
    if (row >= M) return;
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) acc = std::fma(A[row * N + k], x[k], acc);
    y[row] = acc;
  });
  r.simulated_us = kNsPerSector * (static_cast<double>(M) * N + M);  // each lane its own row: a sector per float
  return r;
}

LaunchCaseRun matmul(const std::string& variant, const Geometry& g, void** p) {
  const auto* A = arg<const float*>(p, 0);
  const auto* B = arg<const float*>(p, 1);
  auto* C = arg<float*>(p, 2);
  const int M = arg<int>(p, 3), N = arg<int>(p, 4), K = arg<int>(p, 5);
  const bool swapped = variant == "swapped_matmul_rowx.cu";
  for_each_thread(g, [&](unsigned bx, unsigned by, unsigned tx, unsigned ty) {
    const long long gx = static_cast<long long>(bx) * g.block[0] + tx;
    const long long gy = static_cast<long long>(by) * g.block[1] + ty;
    const long long row = swapped ? gy : gx, col = swapped ? gx : gy;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc = std::fma(A[row * K + k], B[k * N + col], acc);
    C[row * N + col] = acc;
  });
  // Per warp and k: rows along x read 32 sectors of A (B broadcast); cols
  // along x read 4 sectors of B (A broadcast).
  const double warp_steps = static_cast<double>(M) * N * K / 32;
  LaunchCaseRun r;
  r.simulated_us = kNsPerSector * warp_steps * (swapped ? 5 : 33);
  return r;
}

LaunchCaseRun saxpy(const std::string& variant, const Geometry& g, void** p) {
  const float a = arg<float>(p, 0);
  const auto* x = arg<const float*>(p, 1);
  auto* y = arg<float*>(p, 2);
  const int n = arg<int>(p, 3);
  const bool stride = variant == "persistent_saxpy.cu";
  const unsigned long long total = static_cast<unsigned long long>(g.grid[0]) * g.block[0];
  for_each_thread(g, [&](unsigned bx, unsigned, unsigned tx, unsigned) {
    for (unsigned long long i = global_x(g, bx, tx); i < static_cast<unsigned long long>(n); i += total) {
      y[i] = gpu_nan(std::fma(a, x[i], y[i]));
      if (!stride) break;
    }
  });
  LaunchCaseRun r;
  r.simulated_us = kNsPerSector * 3.0 * n / 8;
  return r;
}

LaunchCaseRun elementwise(const std::string& symbol, const std::string& variant, const Geometry& g, void** p) {
  LaunchCaseRun r;
  if (symbol == kMul) {
    const auto* x = arg<const float*>(p, 0);
    const auto* y = arg<const float*>(p, 1);
    auto* tmp = arg<float*>(p, 2);
    const int n = arg<int>(p, 3);
    for_each_thread(g, [&](unsigned bx, unsigned, unsigned tx, unsigned) {
      const auto i = global_x(g, bx, tx);
      if (i < static_cast<unsigned long long>(n)) tmp[i] = x[i] * y[i];
    });
    r.simulated_us = kNsPerSector * 3.0 * n / 8;
  } else if (symbol == kBiasRelu) {
    const auto* t = arg<const float*>(p, 0);
    const float bias = arg<float>(p, 1);
    auto* out = arg<float*>(p, 2);
    const int n = arg<int>(p, 3);
    for_each_thread(g, [&](unsigned bx, unsigned, unsigned tx, unsigned) {
      const auto i = global_x(g, bx, tx);
      if (i >= static_cast<unsigned long long>(n)) return;
      const float v = t[i] + bias;
      out[i] = v > 0.0f ? v : 0.0f;
    });
    r.simulated_us = kNsPerSector * 2.0 * n / 8;
  } else {  // the fused kernel
    const auto* x = arg<const float*>(p, 0);
    const auto* y = arg<const float*>(p, 1);
    const float bias = arg<float>(p, 4);
    auto* out = arg<float*>(p, 5);
    const int n = arg<int>(p, 6);
    const bool relu = variant != "fused_forgets_relu.cu";
    for_each_thread(g, [&](unsigned bx, unsigned, unsigned tx, unsigned) {
      const auto i = global_x(g, bx, tx);
      if (i >= static_cast<unsigned long long>(n)) return;
      const float v = x[i] * y[i] + bias;
      out[i] = relu ? (v > 0.0f ? v : 0.0f) : v;
    });
    r.simulated_us = kNsPerSector * 3.0 * n / 8;
  }
  return r;
}

}  // namespace

const std::vector<KernelInfo>& launch_case_kernels() {
  static const std::vector<KernelInfo> k = {
      {kMatvec, {{0, 8}, {8, 8}, {16, 8}, {24, 4}, {28, 4}}},
      {kMatmul, {{0, 8}, {8, 8}, {16, 8}, {24, 4}, {28, 4}, {32, 4}}},
      {kSaxpy, {{0, 4}, {8, 8}, {16, 8}, {24, 4}}},
      {kMul, {{0, 8}, {8, 8}, {16, 8}, {24, 4}}},
      {kBiasRelu, {{0, 8}, {8, 4}, {16, 8}, {24, 4}}},
      {kFused, {{0, 8}, {8, 8}, {16, 8}, {24, 4}, {28, 4}, {32, 8}, {40, 4}}},
      {kConv5, {{0, 8}, {8, 8}, {16, 4}}},
  };
  return k;
}

const std::vector<std::string>& launch_case_variants() {
  static const std::vector<std::string> v = {
      "warp_per_row_matvec.cu", "swapped_matmul_rowx.cu", "persistent_saxpy.cu", "fused_mul_bias_relu.cu",
      "fused_forgets_relu.cu", "matvec.cu", "matmul_rowx.cu", "saxpy.cu", "elementwise_chain.cu",
      "conv_constant.cu", "conv_constant_restrict.cu", "conv_constant_ignores_filter.cu"};
  return v;
}

// y[i] = sum_k c_filter[k] * x[i + k - 2] inside [0, n), c_filter from the
// module (conv_constant.cu); the candidate that ignores the filter uses 0.2.
LaunchCaseRun conv5(const std::string& variant, const Geometry& g, void** p, ModuleState& state) {
  const auto* x = arg<const float*>(p, 0);
  auto* y = arg<float*>(p, 1);
  const int n = arg<int>(p, 2);
  float filter[5] = {0.2f, 0.2f, 0.2f, 0.2f, 0.2f};
  if (variant != "conv_constant_ignores_filter.cu") {
    auto it = state.globals.find("c_filter");
    if (it == state.globals.end() || it->second.size() != sizeof filter) return {LaunchOutcome::Fault, 0};
    std::memcpy(filter, it->second.data(), sizeof filter);
  }
  for_each_thread(g, [&](unsigned bx, unsigned, unsigned tx, unsigned) {
    const long long i = static_cast<long long>(global_x(g, bx, tx));
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < 5; ++k) {
      const long long j = i + k - 2;
      if (j >= 0 && j < n) acc = std::fma(filter[k], x[j], acc);
    }
    y[i] = acc;
  });
  return {LaunchOutcome::Done, static_cast<double>(n) * 8.0 / 32.0 * kNsPerSector};
}

std::optional<LaunchCaseRun> run_launch_case(const std::string& variant, const std::string& symbol, const Geometry& g,
                                             void** params, ModuleState& state) {
  if (symbol == kConv5) return conv5(variant, g, params, state);
  if (symbol == kMatvec) return matvec(variant, g, params);
  if (symbol == kMatmul) return matmul(variant, g, params);
  if (symbol == kSaxpy) return saxpy(variant, g, params);
  if (symbol == kMul || symbol == kBiasRelu || symbol == kFused) return elementwise(symbol, variant, g, params);
  return std::nullopt;
}

}  // namespace warplens::fake_cuda
