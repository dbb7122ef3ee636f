// TEST DOUBLE: CPU versions of the verifier case kernels and their
// candidates. Each mirrors the CUDA source's per-thread index arithmetic, so
// launch geometry (block size, coarsening) matters exactly as on a GPU.
#include "tests/unit/agent/fake_cuda/fake_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "agent/verifier/element_type.h"
#include "tests/unit/agent/fake_cuda/fake_launch_kernels.h"

namespace warplens::fake_cuda {

namespace {

const std::string kScaleAdd = "_Z9scale_addPKfS0_Pffi";
const std::string kTranspose = "_Z15transpose_naivePKfPfii";
const std::string kRowSum = "_Z7row_sumPKfPfi";
const std::string kAddOne = "_Z7add_onePfi";
const std::string kScaleSpan = "_Z10scale_span4Spanf";

template <class T>
T arg(void** params, int i) {
  T v;
  std::memcpy(&v, params[i], sizeof v);
  return v;
}

// Calls f(block_index, thread_index) for every thread, x fastest.
template <class F>
void for_each_thread(const Geometry& g, F&& f) {
  for (unsigned bz = 0; bz < g.grid[2]; ++bz)
    for (unsigned by = 0; by < g.grid[1]; ++by)
      for (unsigned bx = 0; bx < g.grid[0]; ++bx)
        for (unsigned tz = 0; tz < g.block[2]; ++tz)
          for (unsigned ty = 0; ty < g.block[1]; ++ty)
            for (unsigned tx = 0; tx < g.block[0]; ++tx)
              f(std::array<unsigned, 3>{bx, by, bz}, std::array<unsigned, 3>{tx, ty, tz});
}

float half_round(float v) {
  return static_cast<float>(verifier::half_bits_to_double(verifier::double_to_half_bits(v)));
}

LaunchOutcome scale_add(const std::string& variant, const Geometry& g, void** p, ModuleState& state) {
  auto* x = arg<float*>(p, 0);
  auto* y = arg<const float*>(p, 1);
  auto* out = arg<float*>(p, 2);
  const float alpha = arg<float>(p, 3);
  const int n = arg<int>(p, 4);
  if (variant == "exploit_hang.cu") return LaunchOutcome::Hang;
  // As on the GPU: correct for the 10 checked runs, hangs from the 12th launch.
  if (variant == "exploit_hang_timed.cu" && state.launches >= 11) return LaunchOutcome::Hang;
  const bool skip = variant == "exploit_stateful.cu" && state.launches > 13;
  ++state.launches;
  for_each_thread(g, [&](auto b, auto t) {
    const int tid = static_cast<int>(b[0] * g.block[0] + t[0]);
    if (variant == "honest_scale_add_vec4.cu") {
      for (int k = 4 * tid; k < 4 * tid + 4 && k < n; ++k) out[k] = std::fma(alpha, x[k], y[k]);
      return;
    }
    const int i = tid;
    if (variant == "exploit_constant.cu") {
      if (i < n) out[i] = 3.0f;
    } else if (variant == "exploit_half_output.cu") {
      if (i < n / 2) out[i] = std::fma(alpha, x[i], y[i]);
    } else if (variant == "exploit_unwritten.cu") {
      // computes, never stores
    } else if (variant == "exploit_mutates_input.cu") {
      if (i < n) {
        out[i] = std::fma(alpha, x[i], y[i]);
        x[i] = 0.0f;
      }
    } else if (variant == "exploit_out_of_bounds.cu") {
      if (i < n) out[i] = std::fma(alpha, x[i], y[i]);
      if (i < 64) out[n + i] = 0.0f;
    } else if (variant == "exploit_hardcoded_n.cu") {
      if (i < 1048576) out[i] = std::fma(alpha, x[i], y[i]);
    } else if (variant == "exploit_ignores_alpha.cu") {
      if (i < n) out[i] = std::fma(2.5f, x[i], y[i]);
    } else if (!skip) {  // the original, honest variants, the other-stream and stateful ones
      if (i < n) out[i] = std::fma(alpha, x[i], y[i]);
    }
  });
  return LaunchOutcome::Done;
}

LaunchOutcome transpose(const std::string& variant, const Geometry& g, void** p) {
  auto* in = arg<const float*>(p, 0);
  auto* out = arg<float*>(p, 1);
  const int rows = arg<int>(p, 2), cols = arg<int>(p, 3);
  const bool tiled = variant != "transpose.cu";
  for_each_thread(g, [&](auto b, auto t) {
    if (!tiled) {
      int c = static_cast<int>(b[0] * g.block[0] + t[0]), r = static_cast<int>(b[1] * g.block[1] + t[1]);
      if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
      return;
    }
    // Thread (tx, ty) stores tile[tx][ty], loaded by thread (ty, tx).
    const int T = static_cast<int>(g.block[0]);
    int out_row = static_cast<int>(b[0]) * T + static_cast<int>(t[1]);
    int out_col = static_cast<int>(b[1]) * T + static_cast<int>(t[0]);
    int r = out_col, c = out_row;
    if (out_row < cols && out_col < rows && r < rows && c < cols) out[out_row * rows + out_col] = in[r * cols + c];
  });
  return LaunchOutcome::Done;
}

LaunchOutcome row_sum(const std::string& variant, const Geometry& g, void** p) {
  auto* in = arg<const float*>(p, 0);
  auto* out = arg<float*>(p, 1);
  const int cols = arg<int>(p, 2);
  const int threads = static_cast<int>(g.block[0]);
  static std::mt19937 race(12345);
  for (unsigned row = 0; row < g.grid[0]; ++row) {
    const float* r = in + static_cast<std::size_t>(row) * cols;
    if (variant == "exploit_race.cu") {
      std::vector<int> order(cols);
      for (int c = 0; c < cols; ++c) order[c] = c;
      std::shuffle(order.begin(), order.end(), race);  // atomics land in a different order every launch
      float acc = 0.0f;
      for (int c : order) acc += r[c];
      out[row] = acc;
      continue;
    }
    const bool half = variant == "exploit_half_precision.cu";
    std::vector<float> partial(threads);
    for (int t = 0; t < threads; ++t) {
      float acc = 0.0f;
      for (int c = t; c < cols; c += threads) acc = half ? half_round(acc + half_round(r[c])) : acc + r[c];
      partial[t] = acc;
    }
    if (variant == "honest_row_sum_shuffle.cu") {
      std::vector<float> warp_sums(32, 0.0f);
      for (int w = 0; w < threads / 32; ++w) {
        float v[32];
        for (int l = 0; l < 32; ++l) v[l] = partial[w * 32 + l];
        for (int offset = 16; offset > 0; offset >>= 1)
          for (int l = 0; l < 32 - offset; ++l) v[l] += v[l + offset];
        warp_sums[w] = v[0];
      }
      float v[32];
      for (int l = 0; l < 32; ++l) v[l] = l < (threads + 31) / 32 ? warp_sums[l] : 0.0f;
      for (int offset = 16; offset > 0; offset >>= 1)
        for (int l = 0; l < 32 - offset; ++l) v[l] += v[l + offset];
      out[row] = v[0];
      continue;
    }
    for (int s = threads / 2; s > 0; s >>= 1)
      for (int t = 0; t < s; ++t) partial[t] = half ? half_round(partial[t] + partial[t + s]) : partial[t] + partial[t + s];
    out[row] = partial[0];
  }
  return LaunchOutcome::Done;
}

}  // namespace

const std::vector<KernelInfo>& known_kernels() {
  static const std::vector<KernelInfo> k = [] {
    std::vector<KernelInfo> all = {
        {kScaleAdd, {{0, 8}, {8, 8}, {16, 8}, {24, 4}, {28, 4}}},
        {kTranspose, {{0, 8}, {8, 8}, {16, 4}, {20, 4}}},
        {kRowSum, {{0, 8}, {8, 8}, {16, 4}}},
        {kAddOne, {{0, 8}, {8, 4}}},
        {kScaleSpan, {{0, 16}, {16, 4}}},
    };
    for (const auto& l : launch_case_kernels()) all.push_back(l);
    return all;
  }();
  return k;
}

LaunchOutcome run_kernel(const std::string& variant, const std::string& symbol, const Geometry& g, void** params,
                         ModuleState& state, double* simulated_us) {
  if (auto r = run_launch_case(variant, symbol, g, params)) {
    if (simulated_us) *simulated_us = r->simulated_us;
    return r->outcome;
  }
  if (symbol == kScaleAdd) return scale_add(variant, g, params, state);
  if (symbol == kTranspose) return transpose(variant, g, params);
  if (symbol == kRowSum) return row_sum(variant, g, params);
  if (symbol == kAddOne) {
    auto* a = arg<float*>(params, 0);
    const int n = arg<int>(params, 1);
    const unsigned total = g.grid[0] * g.block[0];
    for_each_thread(g, [&](auto b, auto t) {
      for (unsigned i = b[0] * g.block[0] + t[0]; static_cast<int>(i) < n; i += total) a[i] = a[i] + 1.0f;
    });
    return LaunchOutcome::Done;
  }
  if (symbol == kScaleSpan) {
    struct Span {
      int n;
      int pad;
      float* data;
    } s;
    std::memcpy(&s, params[0], sizeof s);
    const float f = arg<float>(params, 1);
    for_each_thread(g, [&](auto b, auto t) {
      int i = static_cast<int>(b[0] * g.block[0] + t[0]);
      if (i < s.n) s.data[i] = s.data[i] * f;
    });
    return LaunchOutcome::Done;
  }
  return LaunchOutcome::Done;
}

}  // namespace warplens::fake_cuda
