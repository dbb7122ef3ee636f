// TEST DOUBLE: warplens-replay's buffer kernels on the CPU. The per-element
// work is element_ops.h, the code the GPU kernels run (replay_kernels.cu);
// only the thread loop and the reduction differ.
#include <algorithm>
#include <cstring>

#include "agent/verifier/replay/replay_kernel_args.h"
#include "tests/unit/agent/fake_cuda/fake_kernels.h"

namespace warplens::fake_cuda {

using namespace verifier;
using namespace replay::kernels;

namespace {
template <class T>
T args_of(void** params) {
  T a;
  std::memcpy(&a, params[0], sizeof a);
  return a;
}
double cost(std::uint64_t bytes) { return 50.0 + 0.005 * static_cast<double>(bytes); }
}  // namespace

std::vector<KernelInfo> helper_kernels() {
  return {{kFillPoisonB, {{0, sizeof(FillArgs)}}, true},  {kRedraw, {{0, sizeof(RedrawArgs)}}, true},
          {kCompare, {{0, sizeof(CompareArgs)}}, true},   {kCompareWorst, {{0, sizeof(CompareArgs)}}, true},
          {kCountNot, {{0, sizeof(CountArgs)}}, true},    {kHash, {{0, sizeof(HashArgs)}}, true}};
}

bool run_helper(const std::string& symbol, void** params, double* cost_ns) {
  if (symbol == kFillPoisonB) {
    auto a = args_of<FillArgs>(params);
    auto* dst = reinterpret_cast<std::uint8_t*>(a.dst);
    for (std::uint64_t b = 0; b < a.bytes; ++b) dst[b] = ops::poison_byte(1, a.type, a.phase, a.bytes, b);
    *cost_ns = cost(a.bytes);
    return true;
  }
  if (symbol == kRedraw) {
    auto a = args_of<RedrawArgs>(params);
    const auto* src = reinterpret_cast<const std::uint8_t*>(a.src);
    auto* dst = reinterpret_cast<std::uint8_t*>(a.dst);
    for (std::uint64_t i = 0; i < a.count; ++i) ops::redraw_element(a.type, src, dst, a.count, a.seed, i);
    *cost_ns = cost(a.count * 4);
    return true;
  }
  if (symbol == kCompare || symbol == kCompareWorst) {
    auto a = args_of<CompareArgs>(params);
    const auto* e = reinterpret_cast<const std::uint8_t*>(a.expected);
    const auto* g = reinterpret_cast<const std::uint8_t*>(a.got);
    const auto* p = a.pref ? reinterpret_cast<const std::uint8_t*>(a.pref) : nullptr;
    auto* out = reinterpret_cast<ops::CompareStats*>(a.stats);
    const ops::UnitGrid grid = ops::unit_grid(a.spec.type, a.spec.phase, a.spec.bytes);
    const std::uint64_t n = grid.units();
    if (symbol == kCompare) {
      ops::CompareStats s;
      for (std::uint64_t u = 0; u < n; ++u) ops::accumulate(s, ops::compare_unit(a.spec, grid.unit(u), e, g, p));
      out->elements += s.elements;
      out->mismatches += s.mismatches;
      out->stray_bytes += s.stray_bytes;
      out->max_abs_bits = std::max(out->max_abs_bits, s.max_abs_bits);
      out->max_rel_bits = std::max(out->max_rel_bits, s.max_rel_bits);
      out->worst_fail_bits = std::max(out->worst_fail_bits, s.worst_fail_bits);
      out->worst_pass_bits = std::max(out->worst_pass_bits, s.worst_pass_bits);
      out->max_expected_bits = std::max(out->max_expected_bits, s.max_expected_bits);
    } else {
      const ops::CompareStats totals = *out;
      for (std::uint64_t u = 0; u < n && u < out->worst_unit; ++u)
        if (ops::is_worst(totals, ops::compare_unit(a.spec, grid.unit(u), e, g, p))) {
          out->worst_unit = u;
          break;
        }
    }
    *cost_ns = cost(a.spec.bytes * 2);
    return true;
  }
  if (symbol == kCountNot) {
    auto a = args_of<CountArgs>(params);
    const auto* p = reinterpret_cast<const std::uint8_t*>(a.p);
    auto* out = reinterpret_cast<std::uint64_t*>(a.out);
    for (std::uint64_t b = 0; b < a.bytes; ++b)
      if (p[b] != a.value) {
        ++out[0];
        out[1] = std::min(out[1], b);
      }
    *cost_ns = cost(a.bytes);
    return true;
  }
  if (symbol == kHash) {
    auto a = args_of<HashArgs>(params);
    const auto* p = reinterpret_cast<const std::uint8_t*>(a.p);
    std::uint64_t h = 0;
    for (std::uint64_t w = 0; w < (a.bytes + 7) / 8; ++w) h += ops::hash_word(ops::word_at(p, a.bytes, w), w);
    *reinterpret_cast<std::uint64_t*>(a.out) += h;
    *cost_ns = cost(a.bytes);
    return true;
  }
  return false;
}

}  // namespace warplens::fake_cuda
