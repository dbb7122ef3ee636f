// Loads the compiler serves from a register: a second read of the same
// address with nothing in between that could change it.
//
// `if ((keyA > keyB) == dir) { t = keyA; keyA = keyB; ... }` reads keyA and
// keyB once: the later `keyA` and `keyB` reuse the values already loaded, so
// the hardware counts no memory instruction on those lines (and the
// profiler shows nothing there). The analyses do not judge such loads.
//
// A load repeats an earlier one when both are in the same function reached
// through the same calls, in the same loops, address the same memory with
// the same byte offset, the earlier one runs whenever the later one does
// (its guards are a prefix of the later one's), and between them there is no
// store or atomic to that array or pointer (by statement: a store on the
// earlier load's line runs after it, one on the later load's line after
// that one: `temp[ai] = temp[bi]; temp[bi] += t;` reloads temp[bi], since
// temp[ai] may be the same word) and no barrier. Volatile memory is always
// reloaded.
#pragma once

#include <set>

#include "analysis/device_call_inlining.h"

namespace warplens {

std::set<const BoundAccess*> reused_loads(const KernelView& view);

}  // namespace warplens
