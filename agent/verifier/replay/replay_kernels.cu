// warplens-replay's buffer work as GPU kernels: poison, fresh inputs,
// comparison, guard checks, hashes. Built at build time into a fatbin that
// the replay embeds (agent/CMakeLists.txt), since warplens-replay has no nvcc
// at run time. The per-element logic is element_ops.h, the same code the
// host and the tests' fake driver run, so every path gives the same bits.
//
// Compiled with -fmad=false: no multiply-add may be fused (the tolerance of
// a comparison and the re-drawn values must not depend on where they ran).
#include "agent/verifier/replay/replay_kernel_args.h"

using namespace warplens::verifier;
using namespace warplens::replay::kernels;

namespace {

__device__ __forceinline__ u64 thread_index() { return u64{blockIdx.x} * blockDim.x + threadIdx.x; }
__device__ __forceinline__ u64 thread_count() { return u64{gridDim.x} * blockDim.x; }

// Block-wide reduction of one value into shared memory slot 0 (sum or max).
template <bool Max>
__device__ u64 block_reduce(u64 v, u64* scratch) {
  for (int o = 16; o > 0; o >>= 1) {
    const u64 w = __shfl_down_sync(0xffffffffu, v, o);
    v = Max ? (w > v ? w : v) : v + w;
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = 0;
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? scratch[lane] : 0;
    for (int o = 16; o > 0; o >>= 1) {
      const u64 w = __shfl_down_sync(0xffffffffu, v, o);
      v = Max ? (w > v ? w : v) : v + w;
    }
  }
  return v;  // valid in thread 0
}

}  // namespace

extern "C" __global__ void wl_fill_poison_b(FillArgs a) {
  auto* dst = reinterpret_cast<u8*>(a.dst);
  const u64 words = a.bytes / 8;
  // Whole aligned words where the buffer is 8-byte aligned; bytes otherwise.
  if ((a.dst & 7) == 0) {
    for (u64 w = thread_index(); w < words; w += thread_count()) {
      u64 v = 0;
      for (int k = 0; k < 8; ++k) v |= u64{ops::poison_byte(1, a.type, a.phase, a.bytes, 8 * w + k)} << (8 * k);
      reinterpret_cast<u64*>(dst)[w] = v;
    }
    for (u64 b = 8 * words + thread_index(); b < a.bytes; b += thread_count())
      dst[b] = ops::poison_byte(1, a.type, a.phase, a.bytes, b);
  } else {
    for (u64 b = thread_index(); b < a.bytes; b += thread_count())
      dst[b] = ops::poison_byte(1, a.type, a.phase, a.bytes, b);
  }
}

extern "C" __global__ void wl_redraw(RedrawArgs a) {
  const auto* src = reinterpret_cast<const u8*>(a.src);
  auto* dst = reinterpret_cast<u8*>(a.dst);
  for (u64 i = thread_index(); i < a.count; i += thread_count()) ops::redraw_element(a.type, src, dst, a.count, a.seed, i);
}

extern "C" __global__ void wl_compare(CompareArgs a) {
  __shared__ u64 scratch[32];
  const auto* e = reinterpret_cast<const u8*>(a.expected);
  const auto* g = reinterpret_cast<const u8*>(a.got);
  const auto* p = a.pref ? reinterpret_cast<const u8*>(a.pref) : nullptr;
  const ops::UnitGrid grid = ops::unit_grid(a.spec.type, a.spec.phase, a.spec.bytes);
  ops::CompareStats s;
  const u64 n = grid.units();
  for (u64 u = thread_index(); u < n; u += thread_count()) ops::accumulate(s, ops::compare_unit(a.spec, grid.unit(u), e, g, p));
  auto* out = reinterpret_cast<ops::CompareStats*>(a.stats);
  const u64 elements = block_reduce<false>(s.elements, scratch);
  const u64 mismatches = block_reduce<false>(s.mismatches, scratch);
  const u64 stray = block_reduce<false>(s.stray_bytes, scratch);
  const u64 max_abs = block_reduce<true>(s.max_abs_bits, scratch);
  const u64 max_rel = block_reduce<true>(s.max_rel_bits, scratch);
  const u64 worst_fail = block_reduce<true>(s.worst_fail_bits, scratch);
  const u64 worst_pass = block_reduce<true>(s.worst_pass_bits, scratch);
  const u64 max_expected = block_reduce<true>(s.max_expected_bits, scratch);
  if (threadIdx.x == 0) {
    if (elements) atomicAdd(reinterpret_cast<unsigned long long*>(&out->elements), elements);
    if (mismatches) atomicAdd(reinterpret_cast<unsigned long long*>(&out->mismatches), mismatches);
    if (stray) atomicAdd(reinterpret_cast<unsigned long long*>(&out->stray_bytes), stray);
    atomicMax(reinterpret_cast<unsigned long long*>(&out->max_abs_bits), max_abs);
    atomicMax(reinterpret_cast<unsigned long long*>(&out->max_rel_bits), max_rel);
    atomicMax(reinterpret_cast<unsigned long long*>(&out->worst_fail_bits), worst_fail);
    atomicMax(reinterpret_cast<unsigned long long*>(&out->worst_pass_bits), worst_pass);
    atomicMax(reinterpret_cast<unsigned long long*>(&out->max_expected_bits), max_expected);
  }
}

// After wl_compare: *stats holds the totals; find the first unit with them.
extern "C" __global__ void wl_compare_worst(CompareArgs a) {
  const auto* e = reinterpret_cast<const u8*>(a.expected);
  const auto* g = reinterpret_cast<const u8*>(a.got);
  const auto* p = a.pref ? reinterpret_cast<const u8*>(a.pref) : nullptr;
  auto* out = reinterpret_cast<ops::CompareStats*>(a.stats);
  const ops::CompareStats totals = *out;
  const ops::UnitGrid grid = ops::unit_grid(a.spec.type, a.spec.phase, a.spec.bytes);
  const u64 n = grid.units();
  for (u64 u = thread_index(); u < n; u += thread_count()) {
    if (u >= out->worst_unit) break;  // an earlier unit is already known
    if (ops::is_worst(totals, ops::compare_unit(a.spec, grid.unit(u), e, g, p))) {
      atomicMin(reinterpret_cast<unsigned long long*>(&out->worst_unit), u);
      break;
    }
  }
}

extern "C" __global__ void wl_count_not(CountArgs a) {
  __shared__ u64 scratch[32];
  const auto* p = reinterpret_cast<const u8*>(a.p);
  u64 count = 0, first = ~0ULL;
  for (u64 b = thread_index(); b < a.bytes; b += thread_count())
    if (p[b] != a.value) {
      ++count;
      if (b < first) first = b;
    }
  auto* out = reinterpret_cast<unsigned long long*>(a.out);
  count = block_reduce<false>(count, scratch);
  if (threadIdx.x == 0 && count) atomicAdd(&out[0], count);
  if (first != ~0ULL) atomicMin(&out[1], first);
}

extern "C" __global__ void wl_hash(HashArgs a) {
  __shared__ u64 scratch[32];
  const auto* p = reinterpret_cast<const u8*>(a.p);
  const u64 words = (a.bytes + 7) / 8;
  u64 h = 0;
  for (u64 w = thread_index(); w < words; w += thread_count()) h += ops::hash_word(ops::word_at(p, a.bytes, w), w);
  h = block_reduce<false>(h, scratch);
  if (threadIdx.x == 0) atomicAdd(reinterpret_cast<unsigned long long*>(a.out), h);
}
