// What a verification replays, decided in the parent before any GPU work:
// the units (a kernel's captured launches, or for a fused candidate the
// program-order pairs of its producer's and consumer's launches, merged into
// virtual launches), the original's kernels, the candidate's kernel and its
// parameters, the signature that types the units' memory, and the source
// comparison (for a fused kernel, aligned to the merged parameter list).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/verifier/kernel_signature.h"
#include "agent/verifier/launch_sequence.h"
#include "agent/verifier/replay_protocol.h"
#include "agent/verifier/source_comparison.h"
#include "profiler/capture_format.h"

namespace warplens::verifier {

struct UnitPlan {
  std::string symbol;                         // for the verdict: "sym" or "symA + symB"
  std::string original_symbol, original_name; // the first original kernel (plan.original)
  std::vector<KernelRef> original_steps;      // one per part for sequences (cubin left empty); empty: one kernel
  std::string candidate_symbol, candidate_name;
  std::vector<int> launches;                  // unit ids (manifest indices or sequence ids), the timed one first
  std::vector<LaunchSequence> sequences;
  std::vector<capture::LaunchRecord> records; // per unit, parallel to `launches` (merged for sequences)
  KernelSignature signature;                  // types the records' parameters
  std::vector<ParamSource> candidate_params;  // fused: the candidate's parameters
  std::vector<ParamSource> elided;            // fused: the temporary
  std::vector<SourceFinding> source_findings;
  std::vector<std::string> notes;

  const capture::LaunchRecord& record(int launch) const;
  std::vector<int> parts(int launch) const;   // captured launches of a unit (one for a captured launch)
};

struct UnitRequest {
  std::string kernel;                         // the candidate's kernel (the fused one for a fusion)
  int timing_launch = -1;                     // manifest index; for a fusion, either launch of a pair
  std::optional<FusionSpec> fusion;
  std::optional<KernelSourceFacts> candidate_facts;
};

// Throws nothing; nullopt with `error` (the verdict's error) when the
// capture or the sources do not fit.
std::optional<UnitPlan> plan_units(const UnitRequest& request, const capture::CaptureManifest& manifest,
                                   const TokenizedSource& original, const TokenizedSource& candidate,
                                   std::string* error);

}  // namespace warplens::verifier
