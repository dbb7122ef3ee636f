// What each side of a replay launches for one unit of the plan (a captured
// launch, or a virtual launch merging a producer and a consumer): the
// original's steps with their captured geometries, and the candidate's one
// launch with the geometry its launch changes give (launch_geometry.h) and,
// for a fused candidate, the parameters its declaration picks
// (launch_sequence.h). Also which allocations the candidate's checks skip
// (the temporary a fused candidate no longer writes).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/verifier/replay/replay_capture.h"
#include "agent/verifier/replay/replay_side.h"

namespace warplens::replay {

// The original's kernels, one per part of the plan's units: `plan.original`
// alone, or `plan.original_steps` (all in the original's cubin). `first_symbol`
// receives the symbol chosen for the first.
std::vector<CUfunction> find_original_kernels(const Module& module, const verifier::ReplayPlan& plan,
                                              std::string* first_symbol);

// The original's side for unit `launch`: its kernel with the captured shape,
// or for a sequence each part's kernel, in program order (set_steps).
std::unique_ptr<ReplaySide> make_original_side(const CapturedLaunches& capture, const std::vector<CUfunction>& kernels,
                                               int launch, std::uint64_t guard_bytes);

// The candidate's launch for unit `launch`: the captured shape reshaped by
// its launch changes and, for a fused candidate, the parameters it takes
// (empty: the record's own); nullopt with `error` when the shape is invalid
// or its parameters do not fit.
std::optional<LaunchStep> candidate_step(const verifier::ReplayPlan& plan, const CapturedLaunches& capture,
                                         CUfunction candidate, int launch, int sm_count, std::string* error);

// What the original launches for unit `launch` (one shape per part).
std::vector<verifier::LaunchGeometry> original_geometries(const CapturedLaunches& capture, int launch);

// The side that launches `step` on unit `launch`'s record.
std::unique_ptr<ReplaySide> make_candidate_side(const CapturedLaunches& capture, const LaunchStep& step, int launch,
                                                std::uint64_t guard_bytes);

// Per allocation of unit `launch`'s record: true where the candidate's
// checks skip it (plan.elided).
std::vector<bool> elided_allocations(const verifier::ReplayPlan& plan, const CapturedLaunches& capture, int launch);

}  // namespace warplens::replay
