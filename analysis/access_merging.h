// Accesses the compiler merges into one vector instruction.
//
// nvcc issues `s[2*i]` and `s[2*i + 1]` (two 4-byte floats it can prove
// 8-byte aligned), or `p[k].x` and `p[k].y` of a float2, as one 8-byte load
// or store, and the four components of a uint4 as one 16-byte access. The
// hardware then counts one request of the wider access: a pair that looks
// 2-way conflicted as two 4-byte shared loads is served conflict-free as one
// 8-byte load (two half-warp phases of 128 bytes), and `p[opt].x` alone
// (lanes 8 bytes apart, 2x the sectors) is half of a coalesced float2 load.
// Measured on the H200: fastWalshTransform's radix-2 stage, BlackScholes'
// float2 inputs, the Blelloch scan's `temp[2*thid]` pair, all at 1.0x.
//
// The model merges a run of 2 or 4 accesses when they are what the
// compiler can merge and the source gives no reason not to:
// - the same function reached through the same call chain, the same kind
//   (loads with loads, stores with stores), the same memory space and base,
//   the same element size (4 or 8 bytes, naturally aligned), the same
//   guards and loops;
// - consecutive among that base's accesses (nothing else reads or writes
//   the base between them in the function's order);
// - per lane, each access's offset is the previous one's plus the element
//   size, and the first offset is aligned to the whole width, under every
//   assumption of the warp model including the small one, whose odd values
//   stand for "not provably even": `s[2*i + k]` with an unknown k is not
//   merged, because nvcc cannot prove it aligned either.
#pragma once

#include <map>
#include <set>

#include "analysis/device_call_inlining.h"
#include "analysis/launch_contexts.h"

namespace warplens {

struct MergedAccesses {
  // The first access of each merged run, and the run's width in bytes: it
  // is judged as one access of that width.
  std::map<const BoundAccess*, int> width;
  // The other accesses of the runs: no request of their own.
  std::set<const BoundAccess*> absorbed;
  int width_of(const BoundAccess& a) const {
    auto it = width.find(&a);
    return it == width.end() ? 0 : it->second;
  }
};

MergedAccesses merged_accesses(const KernelView& view, const KernelContexts& contexts);

}  // namespace warplens
