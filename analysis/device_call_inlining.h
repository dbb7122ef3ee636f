// A kernel as the warp model sees it: its own accesses, conditions and
// barriers plus those of every __device__ function it calls, with the
// callee's parameters bound to the call-site arguments.
//
// An access inside `__device__ float at(const float* p, int i) { return p[i]; }`
// is coalesced when called as `at(in, tid)` and uncoalesced as
// `at(in, tid * n)`; only the calling kernel knows which. So device-function
// code is judged once per calling context, in the kernel's own terms: callee
// parameters are replaced by the caller's argument expressions, the call
// site's guards are prepended to the callee's, and pointer arguments
// (`in + row * n`) become a byte offset added to the callee's access.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "analysis/kernel_model.h"
#include "analysis/warp_model.h"

namespace warplens {

struct BoundGuard {
  ExprRef condition;                // in the kernel's terms; null when not lowered
  bool taken = true;
  const Function* owner = nullptr;  // the function whose `conditions` holds it
  int condition_id = -1;
  const Condition& source() const { return owner->conditions[std::size_t(condition_id)]; }
};

struct BoundLoop {
  const Function* owner = nullptr;
  int loop_id = -1;
  ExprRef exit_condition;  // the loop's condition in the kernel's terms (null if unknown)
  const Loop& source() const { return owner->loops[std::size_t(loop_id)]; }
};

// Where code of a device function is reached from: the chain of call sites,
// outermost (in the kernel) first. Empty for the kernel's own code.
using CallChain = std::vector<const CallSite*>;
// The functions those call sites are in (parallel to a CallChain): the
// kernel, then each callee in turn.
using CallChainOwners = std::vector<const Function*>;

struct BoundAccess {
  const Function* owner = nullptr;
  const MemoryAccess* access = nullptr;
  MemorySpace space = MemorySpace::Global;  // resolved through pointer arguments when generic
  std::string shared_array;                 // for Shared: the array's name
  const Function* shared_array_owner = nullptr;
  ExprRef byte_offset;                      // bytes from the (256-byte aligned) base; null if unknown
  bool indirect = false;                    // the address depends on per-lane loaded data
  std::vector<BoundGuard> guards;           // call sites' guards first, then the access's own
  std::vector<BoundLoop> loops;
  CallChain via;
  CallChainOwners via_in;
};

struct BoundBarrier {
  const Function* owner = nullptr;
  const Barrier* barrier = nullptr;
  std::vector<BoundGuard> guards;
  std::vector<BoundLoop> loops;
  CallChain via;
  CallChainOwners via_in;
};

struct BoundCondition {
  const Function* owner = nullptr;
  int condition_id = -1;
  ExprRef expr;
  std::vector<BoundGuard> outer_guards;  // guards of the call sites that reach it
  CallChain via;
  CallChainOwners via_in;
  const Condition& source() const { return owner->conditions[std::size_t(condition_id)]; }
};

struct KernelView {
  const Function* kernel = nullptr;
  std::vector<BoundAccess> accesses;
  std::vector<BoundBarrier> barriers;
  std::vector<BoundCondition> conditions;
  bool call_depth_exceeded = false;  // recursion or very deep call chains were cut off
};

// Inlines device calls up to `max_depth` levels (recursion is cut).
KernelView bind_kernel(const KernelModel& model, const Function& kernel, int max_depth = 6);

std::vector<LaneGuard> lane_guards(const std::vector<BoundGuard>& guards);

// The byte offset an access reads at, from the model: `byte_offset` when the
// front end gave one, else index * element size.
ExprRef access_byte_offset(const MemoryAccess& a);

// "helper() called at line 12" for the innermost call of a chain.
std::string describe_chain(const CallChain& via);

// The file `fn`'s ranges are in: a header's for KernelModel::included_functions,
// else the model's.
const std::string& file_of(const Function& fn, const std::string& model_file);

// The call chain as related information, outermost call first ("`kernel`
// calls `helper` here"), each at its call site in its own file: what leads
// the hardware's attribution of an inlined helper's line back to the kernel.
std::vector<RelatedInformation> call_chain_related(const CallChain& via, const CallChainOwners& via_in,
                                                   const std::string& model_file);

}  // namespace warplens
