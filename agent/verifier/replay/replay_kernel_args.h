// The by-value arguments of warplens-replay's buffer kernels
// (replay_kernels.cu): each kernel takes one of these structs, so the host
// side, the kernels and the fake driver of the tests agree on one layout.
// Device addresses are 64-bit integers.
#pragma once

#include "agent/verifier/element_ops.h"

namespace warplens::replay::kernels {

using verifier::ops::u64;
using verifier::ops::u8;

// Poison B over [dst, dst + bytes) for (type, phase).
struct FillArgs {
  u64 dst = 0;
  u64 bytes = 0;
  u64 phase = 0;
  u8 type = 0;
};

// dst[i] = redraw_element(src, i) for the `count` whole elements of arrays
// that start at the layout's phase.
struct RedrawArgs {
  u64 dst = 0;
  u64 src = 0;
  u64 count = 0;
  u64 seed = 0;
  u8 type = 0;
};

// One comparison: pass 1 (wl_compare) reduces into *stats, pass 2
// (wl_compare_worst) finds the first unit with the worst result.
struct CompareArgs {
  u64 expected = 0;
  u64 got = 0;
  u64 pref = 0;   // 0: none
  u64 stats = 0;  // device address of a verifier::ops::CompareStats
  verifier::ops::CompareSpec spec;
};

// out[0] = bytes of [p, p + bytes) that are not `value`, out[1] = the first
// such offset (~0 when none).
struct CountArgs {
  u64 p = 0;
  u64 bytes = 0;
  u64 out = 0;
  u8 value = 0;
};

// out[0] += element_ops' order-independent hash of [p, p + bytes).
struct HashArgs {
  u64 p = 0;
  u64 bytes = 0;
  u64 out = 0;
};

inline constexpr const char* kFillPoisonB = "wl_fill_poison_b";
inline constexpr const char* kRedraw = "wl_redraw";
inline constexpr const char* kCompare = "wl_compare";
inline constexpr const char* kCompareWorst = "wl_compare_worst";
inline constexpr const char* kCountNot = "wl_count_not";
inline constexpr const char* kHash = "wl_hash";

}  // namespace warplens::replay::kernels
