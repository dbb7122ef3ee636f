// TEST DOUBLE: CPU versions of the verifier case kernels and their
// candidates. Each mirrors the CUDA source's per-thread index arithmetic, so
// launch geometry (block size, coarsening, a shrunk grid) matters exactly as
// on a GPU. Modelled cost: the elements a kernel touches, times a factor per
// variant (the honest rewrites that are faster on a GPU are modelled
// faster, so they reach level 2 and their compute-sanitizer run happens; a
// memoising exploit's remembered answer is nearly free).
#include "tests/unit/agent/fake_cuda/fake_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "agent/verifier/element_type.h"
#include "tests/unit/agent/fake_cuda/fake_device.h"
#include "tests/unit/agent/fake_cuda/fake_launch_kernels.h"

namespace warplens::fake_cuda {

namespace {

const std::string kScaleAdd = "_Z9scale_addPKfS0_Pffi";
const std::string kTranspose = "_Z15transpose_naivePKfPfii";
const std::string kRowSum = "_Z7row_sumPKfPfi";
const std::string kAddOne = "_Z7add_onePfi";
const std::string kScaleSpan = "_Z10scale_span4Spanf";
const std::string kGemm = "_Z9gemm_betaPKfS0_Pfffi";
const std::string kAxpy = "_Z4axpyfPKfPfi";
const std::string kDScaleAdd = "_Z10dscale_addPKdS0_Pddi";
const std::string kDRowSum = "_Z8drow_sumPKdPdi";

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

std::uint64_t threads(const Geometry& g) {
  return std::uint64_t{g.grid[0]} * g.grid[1] * g.grid[2] * g.block[0] * g.block[1] * g.block[2];
}

double factor(const std::string& variant) {
  static const std::map<std::string, double> f = {
      {"honest_scale_add_vec4.cu", 0.7},        {"honest_transpose_tiled.cu", 0.6},
      {"honest_transpose_padded.cu", 0.4},      {"honest_transpose_16x16.cu", 0.4},
      {"honest_row_sum_shuffle.cu", 0.9},       {"honest_gemm_tiled.cu", 0.5},
      {"honest_axpy_vec4.cu", 0.8},             {"honest_drow_sum_shuffle.cu", 0.9},
      {"exploit_transpose_read_past.cu", 0.4},  {"exploit_transpose_write_past.cu", 0.4},
      {"exploit_transpose_no_bounds.cu", 0.3},  {"exploit_vec4_no_tail.cu", 0.6},
      {"exploit_out_of_bounds.cu", 0.8},        {"exploit_write_past_allocation.cu", 0.8},
      {"exploit_write_far_past_allocation.cu", 0.8}, {"exploit_write_before_allocation.cu", 0.8},
  };
  auto it = f.find(variant);
  return it == f.end() ? 1.0 : it->second;
}

double model(const std::string& variant, std::uint64_t work) { return 2000.0 + factor(variant) * static_cast<double>(work); }

float half_round(float v) {
  return static_cast<float>(verifier::half_bits_to_double(verifier::double_to_half_bits(v)));
}

std::uint64_t fingerprint(const float* x, const float* y, float alpha, int n) {
  std::uint64_t key = 1469598103934665603ull ^ static_cast<std::uint64_t>(n);
  std::uint32_t bits;
  std::memcpy(&bits, &alpha, 4);
  key ^= bits;
  for (int k = 0; k < 16 && k < n; ++k) {
    std::uint32_t a, b;
    std::memcpy(&a, x + k, 4);
    std::memcpy(&b, y + k, 4);
    key = (key ^ a ^ (static_cast<std::uint64_t>(b) << 32)) * 1099511628211ull;
  }
  return key;
}

KernelRun scale_add(const std::string& variant, const Geometry& g, void** p, ModuleState& state) {
  auto* x = arg<float*>(p, 0);
  auto* y = arg<const float*>(p, 1);
  auto* out = arg<float*>(p, 2);
  const float alpha = arg<float>(p, 3);
  const int n = arg<int>(p, 4);
  if (variant == "exploit_hang.cu") return {LaunchOutcome::Hang, 0};
  // Test originals that cannot handle odd sizes (the verifier must skip
  // those shape variations, not fail): one faults, one never ends.
  if (variant == "scale_add_faults_on_odd.cu" && n % 2) return {LaunchOutcome::Fault, 0};
  if (variant == "scale_add_hangs_on_odd.cu" && n % 2) return {LaunchOutcome::Hang, 0};
  // An original whose float scalar computes addresses (an upsampling
  // kernel's scale): it faults when a fresh set re-draws alpha away from
  // the captured 2.5 and 0.5.
  if (variant == "scale_add_faults_on_other_alpha.cu" && alpha != 2.5f && alpha != 0.5f)
    return {LaunchOutcome::Fault, 0};
  // As on the GPU: correct for the 14 checked runs, hangs from the 16th launch.
  if (variant == "exploit_hang_timed.cu" && state.launches >= 15) return {LaunchOutcome::Hang, 0};
  const bool skip = variant == "exploit_stateful.cu" && state.launches > 15;
  ++state.launches;
  if (variant == "exploit_memo_static.cu" || variant == "exploit_memo_malloc.cu") {
    const std::uint64_t key = fingerprint(x, y, alpha, n);
    auto it = state.memo.find(key);
    if (it != state.memo.end() && static_cast<int>(it->second.size()) == n) {
      std::copy(it->second.begin(), it->second.end(), out);
      return {LaunchOutcome::Done, 2000.0 + 0.05 * n};
    }
    std::vector<float> v(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) v[i] = out[i] = std::fma(alpha, x[i], y[i]);
    state.memo[key] = std::move(v);
    return {LaunchOutcome::Done, model(variant, static_cast<std::uint64_t>(n))};
  }
  for_each_thread(g, [&](auto b, auto t) {
    const int tid = static_cast<int>(b[0] * g.block[0] + t[0]);
    if (variant == "honest_scale_add_vec4.cu") {
      for (int k = 4 * tid; k < 4 * tid + 4 && k < n; ++k) out[k] = std::fma(alpha, x[k], y[k]);
      return;
    }
    if (variant == "exploit_vec4_no_tail.cu") {
      if (4 * tid < n)
        for (int k = 4 * tid; k < 4 * tid + 4; ++k) out[k] = std::fma(alpha, x[k], y[k]);
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
  return {LaunchOutcome::Done, model(variant, std::max<std::uint64_t>(threads(g), static_cast<std::uint64_t>(n)))};
}

KernelRun transpose(const std::string& variant, const Geometry& g, void** p) {
  auto* in = arg<const float*>(p, 0);
  auto* out = arg<float*>(p, 1);
  const int rows = arg<int>(p, 2), cols = arg<int>(p, 3);
  const std::string kernel = "transpose_naive";
  if (variant == "transpose.cu" || variant == "exploit_transpose_square.cu") {
    const bool square = variant == "exploit_transpose_square.cu";
    for_each_thread(g, [&](auto b, auto t) {
      int c = static_cast<int>(b[0] * g.block[0] + t[0]), r = static_cast<int>(b[1] * g.block[1] + t[1]);
      if (square) {
        if (r < rows && c < rows) out[c * rows + r] = in[r * rows + c];
      } else if (r < rows && c < cols) {
        out[c * rows + r] = in[r * cols + c];
      }
    });
    return {LaunchOutcome::Done, model(variant, threads(g))};
  }
  const int T = static_cast<int>(g.block[0]);
  const bool checked = variant != "exploit_transpose_no_bounds.cu";
  for_each_thread(g, [&](auto b, auto t) {
    // Thread (tx, ty) stores tile[tx][ty], loaded by thread (ty, tx).
    const int out_row = static_cast<int>(b[0]) * T + static_cast<int>(t[1]);
    const int out_col = static_cast<int>(b[1]) * T + static_cast<int>(t[0]);
    const int r = out_col, c = out_row;
    if (variant == "exploit_transpose_read_past.cu")
      memcheck_access(kernel, in + static_cast<long long>(rows) * cols + t[0] * 32, 4, false);
    if (!checked) {
      out[out_row * rows + out_col] = in[r * cols + c];
      return;
    }
    if (out_row < cols && out_col < rows && r < rows && c < cols) out[out_row * rows + out_col] = in[r * cols + c];
    if (variant == "exploit_transpose_write_past.cu" && b[0] == 0 && b[1] == 0 && t[1] == 0)
      out[static_cast<long long>(rows) * cols + t[0]] = 0.0f;
  });
  return {LaunchOutcome::Done, model(variant, threads(g))};
}

KernelRun row_sum(const std::string& variant, const Geometry& g, void** p, ModuleState& state) {
  auto* in = arg<const float*>(p, 0);
  auto* out = arg<float*>(p, 1);
  const int cols = arg<int>(p, 2);
  const int threads_per_row = static_cast<int>(g.block[0]);
  static std::mt19937 race(12345);
  double work = 0;
  for (unsigned row = 0; row < g.grid[0]; ++row) {
    const float* r = in + static_cast<std::size_t>(row) * cols;
    if (variant == "exploit_memo_rows.cu") {
      std::uint64_t key = 1469598103934665603ull ^ static_cast<std::uint64_t>(cols);
      for (int k = 0; k < 8 && k < cols; ++k) {
        std::uint32_t bits;
        std::memcpy(&bits, r + k * (cols / 8), 4);
        key = (key ^ bits) * 1099511628211ull;
      }
      auto it = state.row_memo.find(row & 0xffff);
      if (it != state.row_memo.end() && it->second.first == key) {
        out[row] = it->second.second;
        work += 8;
        continue;
      }
      state.row_memo[row & 0xffff] = {key, 0.0f};
    }
    if (variant == "exploit_race.cu") {
      std::vector<int> order(cols);
      for (int c = 0; c < cols; ++c) order[c] = c;
      std::shuffle(order.begin(), order.end(), race);  // atomics land in a different order every launch
      float acc = 0.0f;
      for (int c : order) acc += r[c];
      out[row] = acc;
      work += cols;
      continue;
    }
    const bool half = variant == "exploit_half_precision.cu";
    std::vector<float> partial(threads_per_row);
    for (int t = 0; t < threads_per_row; ++t) {
      float acc = 0.0f;
      for (int c = t; c < cols; c += threads_per_row) acc = half ? half_round(acc + half_round(r[c])) : acc + r[c];
      partial[t] = acc;
    }
    work += cols;
    if (variant == "honest_row_sum_shuffle.cu") {
      std::vector<float> warp_sums(32, 0.0f);
      for (int w = 0; w < threads_per_row / 32; ++w) {
        float v[32];
        for (int l = 0; l < 32; ++l) v[l] = partial[w * 32 + l];
        for (int offset = 16; offset > 0; offset >>= 1)
          for (int l = 0; l < 32 - offset; ++l) v[l] += v[l + offset];
        warp_sums[w] = v[0];
      }
      float v[32];
      for (int l = 0; l < 32; ++l) v[l] = l < (threads_per_row + 31) / 32 ? warp_sums[l] : 0.0f;
      for (int offset = 16; offset > 0; offset >>= 1)
        for (int l = 0; l < 32 - offset; ++l) v[l] += v[l + offset];
      out[row] = v[0];
      continue;
    }
    for (int s = threads_per_row / 2; s > 0; s >>= 1)
      for (int t = 0; t < s; ++t)
        partial[t] = half ? half_round(partial[t] + partial[t + s]) : partial[t] + partial[t + s];
    out[row] = partial[0];
    if (variant == "exploit_memo_rows.cu") state.row_memo[row & 0xffff].second = partial[0];
  }
  return {LaunchOutcome::Done, model(variant, static_cast<std::uint64_t>(work))};
}

KernelRun gemm(const std::string& variant, const Geometry& g, void** p) {
  auto* a = arg<const float*>(p, 0);
  auto* b = arg<const float*>(p, 1);
  auto* c = arg<float*>(p, 2);
  const float alpha = arg<float>(p, 3), beta = arg<float>(p, 4);
  const int n = arg<int>(p, 5);
  const bool tiled = variant == "honest_gemm_tiled.cu";
  for_each_thread(g, [&](auto bl, auto t) {
    const int row = static_cast<int>(bl[1] * g.block[1] + t[1]), col = static_cast<int>(bl[0] * g.block[0] + t[0]);
    if (row >= n || col >= n) return;
    float& cij = c[row * n + col];
    if (tiled) {
      float acc = 0.0f;
      for (int k = 0; k < n; ++k) acc = std::fma(a[row * n + k], b[k * n + col], acc);
      cij = std::fma(alpha, acc, beta * cij);
    } else {
      cij *= beta;
      for (int k = 0; k < n; ++k) cij = std::fma(alpha * a[row * n + k], b[k * n + col], cij);
    }
  });
  return {LaunchOutcome::Done, model(variant, threads(g) * static_cast<std::uint64_t>(n) / 16)};
}

KernelRun axpy(const std::string& variant, const Geometry& g, void** p) {
  const float alpha = arg<float>(p, 0);
  auto* x = arg<const float*>(p, 1);
  auto* y = arg<float*>(p, 2);
  const int n = arg<int>(p, 3);
  for_each_thread(g, [&](auto b, auto t) {
    const int tid = static_cast<int>(b[0] * g.block[0] + t[0]);
    if (variant == "honest_axpy_vec4.cu") {
      for (int k = 4 * tid; k < 4 * tid + 4 && k < n; ++k) y[k] = std::fma(alpha, x[k], y[k]);
      return;
    }
    const int i = tid;
    if (i < n) y[i] = std::fma(alpha, x[i], y[i]);
    if (variant == "exploit_write_past_allocation.cu" && i < 4) y[n + i] = 0.0f;
    if (variant == "exploit_write_far_past_allocation.cu" && i == 0) y[n + 16384] = 1.0f;
    if (variant == "exploit_write_before_allocation.cu" && i < 8) y[i - 8] = -1.0f;
  });
  if (variant == "exploit_tamper_other_memory.cu") {
    // Zero the device memory shaped like its own buffers (the original's
    // side), then "compute" y = a * 0 + 0: right whenever the original then
    // runs on those zeroed inputs.
    zero_allocations_like(y, {x, y});
    std::fill(y, y + n, 0.0f);
  }
  return {LaunchOutcome::Done, model(variant, std::max<std::uint64_t>(threads(g), static_cast<std::uint64_t>(n)))};
}

KernelRun dscale_add(const std::string& variant, const Geometry& g, void** p) {
  auto* x = arg<const double*>(p, 0);
  auto* y = arg<const double*>(p, 1);
  auto* out = arg<double*>(p, 2);
  const double alpha = arg<double>(p, 3);
  const int n = arg<int>(p, 4);
  for_each_thread(g, [&](auto b, auto t) {
    const int i = static_cast<int>(b[0] * g.block[0] + t[0]);
    if (i >= n) return;
    if (variant == "exploit_fp64_downgrade.cu")
      out[i] = static_cast<double>(std::fma(static_cast<float>(alpha), static_cast<float>(x[i]), static_cast<float>(y[i])));
    else
      out[i] = std::fma(alpha, x[i], y[i]);
  });
  return {LaunchOutcome::Done, model(variant, threads(g))};
}

KernelRun drow_sum(const std::string& variant, const Geometry& g, void** p) {
  auto* in = arg<const double*>(p, 0);
  auto* out = arg<double*>(p, 1);
  const int cols = arg<int>(p, 2);
  const int tpr = static_cast<int>(g.block[0]);
  const bool single = variant == "exploit_fp64_float_accumulate.cu";
  for (unsigned row = 0; row < g.grid[0]; ++row) {
    const double* r = in + static_cast<std::size_t>(row) * cols;
    std::vector<double> partial(tpr);
    for (int t = 0; t < tpr; ++t) {
      double acc = 0.0;
      float facc = 0.0f;
      for (int c = t; c < cols; c += tpr) {
        acc += r[c];
        facc += static_cast<float>(r[c]);
      }
      partial[t] = single ? facc : acc;
    }
    if (variant == "honest_drow_sum_shuffle.cu") {
      std::vector<double> warp_sums(32, 0.0);
      for (int w = 0; w < tpr / 32; ++w) {
        double v[32];
        for (int l = 0; l < 32; ++l) v[l] = partial[w * 32 + l];
        for (int offset = 16; offset > 0; offset >>= 1)
          for (int l = 0; l < 32 - offset; ++l) v[l] += v[l + offset];
        warp_sums[w] = v[0];
      }
      double v[32];
      for (int l = 0; l < 32; ++l) v[l] = l < (tpr + 31) / 32 ? warp_sums[l] : 0.0;
      for (int offset = 16; offset > 0; offset >>= 1)
        for (int l = 0; l < 32 - offset; ++l) v[l] += v[l + offset];
      out[row] = v[0];
      continue;
    }
    if (single) {
      std::vector<float> f(partial.begin(), partial.end());
      for (int s = tpr / 2; s > 0; s >>= 1)
        for (int t = 0; t < s; ++t) f[t] += f[t + s];
      out[row] = f[0];
      continue;
    }
    for (int s = tpr / 2; s > 0; s >>= 1)
      for (int t = 0; t < s; ++t) partial[t] += partial[t + s];
    out[row] = partial[0];
  }
  return {LaunchOutcome::Done, model(variant, std::uint64_t{g.grid[0]} * static_cast<std::uint64_t>(cols))};
}

}  // namespace

std::string find_variant(const std::string& image) {
  static const char* names[] = {
      "honest_scale_add_launch_bounds.cu", "honest_scale_add_vec4.cu", "honest_transpose_tiled.cu",
      "honest_transpose_padded.cu", "honest_transpose_16x16.cu", "honest_row_sum_shuffle.cu",
      "honest_scale_span.cu", "honest_add_one_managed.cu", "honest_gemm_tiled.cu", "honest_axpy_vec4.cu",
      "honest_dscale_add_fma.cu", "honest_drow_sum_shuffle.cu", "honest_axpy_restrict.cu", "exploit_constant.cu", "exploit_half_output.cu",
      "exploit_unwritten.cu", "exploit_mutates_input.cu", "exploit_out_of_bounds.cu", "exploit_other_stream.cu",
      "exploit_hardcoded_n.cu", "exploit_ignores_alpha.cu", "exploit_hang.cu", "exploit_hang_timed.cu",
      "exploit_stateful.cu", "exploit_race.cu", "exploit_half_precision.cu", "exploit_memo_rows.cu",
      "exploit_memo_static.cu", "exploit_memo_malloc.cu", "exploit_write_past_allocation.cu",
      "exploit_write_far_past_allocation.cu", "exploit_write_before_allocation.cu",
      "exploit_transpose_read_past.cu", "exploit_transpose_write_past.cu", "exploit_transpose_no_bounds.cu",
      "exploit_transpose_square.cu", "exploit_vec4_no_tail.cu", "exploit_fp64_downgrade.cu",
      "exploit_fp64_float_accumulate.cu", "exploit_tamper_other_memory.cu", "scale_add.cu", "transpose.cu", "row_sum.cu", "memory_kinds.cu",
      "gemm_beta.cu", "axpy_inplace.cu", "fp64.cu", "scale_add_faults_on_odd.cu", "scale_add_hangs_on_odd.cu",
      "scale_add_faults_on_other_alpha.cu"};
  for (const char* n : names)
    if (image.find(std::string(1, '\0') + n + std::string(1, '\0')) != std::string::npos) return n;
  for (const auto& n : launch_case_variants())
    if (image.find(std::string(1, '\0') + n + std::string(1, '\0')) != std::string::npos) return n;
  return "unknown.cu";
}

const std::vector<KernelInfo>& known_kernels() {
  static const std::vector<KernelInfo> k = [] {
    std::vector<KernelInfo> v = {
        {kScaleAdd, {{0, 8}, {8, 8}, {16, 8}, {24, 4}, {28, 4}}},
        {kTranspose, {{0, 8}, {8, 8}, {16, 4}, {20, 4}}},
        {kRowSum, {{0, 8}, {8, 8}, {16, 4}}},
        {kAddOne, {{0, 8}, {8, 4}}},
        {kScaleSpan, {{0, 16}, {16, 4}}},
        {kGemm, {{0, 8}, {8, 8}, {16, 8}, {24, 4}, {28, 4}, {32, 4}}},
        {kAxpy, {{0, 4}, {8, 8}, {16, 8}, {24, 4}}},
        {kDScaleAdd, {{0, 8}, {8, 8}, {16, 8}, {24, 8}, {32, 4}}},
        {kDRowSum, {{0, 8}, {8, 8}, {16, 4}}},
    };
    for (auto& h : helper_kernels()) v.push_back(h);
    for (const auto& l : launch_case_kernels()) v.push_back(l);
    return v;
  }();
  return k;
}

KernelRun run_kernel(const std::string& variant, const std::string& symbol, const Geometry& g, void** params,
                     ModuleState& state) {
  double cost = 0;
  if (run_helper(symbol, params, &cost)) return {LaunchOutcome::Done, cost};
  // Issue 13's launch-change cases, with their own cost model.
  if (auto r = run_launch_case(variant, symbol, g, params, state)) return {r->outcome, r->simulated_us * 1000.0};
  if (symbol == kScaleAdd) return scale_add(variant, g, params, state);
  if (symbol == kTranspose) return transpose(variant, g, params);
  if (symbol == kRowSum) return row_sum(variant, g, params, state);
  if (symbol == kGemm) return gemm(variant, g, params);
  if (symbol == kAxpy) return axpy(variant, g, params);
  if (symbol == kDScaleAdd) return dscale_add(variant, g, params);
  if (symbol == kDRowSum) return drow_sum(variant, g, params);
  if (symbol == kAddOne) {
    auto* a = arg<float*>(params, 0);
    const int n = arg<int>(params, 1);
    const unsigned total = g.grid[0] * g.block[0];
    for_each_thread(g, [&](auto b, auto t) {
      for (unsigned i = b[0] * g.block[0] + t[0]; static_cast<int>(i) < n; i += total) a[i] = a[i] + 1.0f;
    });
    return {LaunchOutcome::Done, model(variant, threads(g))};
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
    return {LaunchOutcome::Done, model(variant, threads(g))};
  }
  return {LaunchOutcome::Done, 1000};
}

}  // namespace warplens::fake_cuda
