// State a kernel can keep on the device from one launch to the next: writable
// `__device__` / `__managed__` variables, `static` locals of device code and
// device-side allocation (malloc/new in device code, whose memory outlives
// the launch). A candidate with such state that the original does not have
// could remember results between runs (the memoisation exploit of issue 14:
// per-row results cached in `__device__` arrays, keyed by a fingerprint of
// the inputs, returned whenever the same inputs come back). The replay gives
// every timed run inputs it has never seen and reloads the module before
// timing, but state is still something a person should look at: such a
// candidate is flagged `needs_review` and never offered automatically.
//
// Token level over the whole translation unit (no Clang): object-like macros
// are expanded one level, comments and strings never count.
#pragma once

#include <string>
#include <vector>

#include "agent/verifier/source_comparison.h"
#include "agent/verifier/source_tokens.h"

namespace warplens::verifier {

struct DeviceStateItem {
  std::string name;      // variable name, or the allocation call ("malloc")
  std::string function;  // the device function it is in (static locals, allocations)
  int line = 0;
};

struct DeviceStateFacts {
  std::vector<DeviceStateItem> writable_globals;    // __device__ / __managed__, not const / __constant__
  std::vector<DeviceStateItem> static_locals;       // in __device__ / __global__ function bodies
  std::vector<DeviceStateItem> device_allocations;  // malloc, new, cudaMalloc, ... in device code
};

DeviceStateFacts device_state_facts(const TokenizedSource& source);

// One `device-state` finding (needs_review, not demoting) per kind of state
// the candidate has and the original does not.
std::vector<SourceFinding> compare_device_state(const DeviceStateFacts& original, const DeviceStateFacts& candidate);

}  // namespace warplens::verifier
