// Launch sequences: a fused candidate (agent/candidate.h, FusionDeclaration)
// replaces two captured launches, the producer `first` and then the consumer
// `second`, with one launch of the fused kernel. To judge it, the pair is
// replayed as one unit, a "virtual launch": both captured launches merged
// into one LaunchRecord whose parameters are the producer's followed by the
// consumer's and whose allocations are the union of theirs (the same
// allocation, by address, once). Input generation, poisoning, roles and
// comparison then run on the merged record unchanged; only launching
// differs: the original side launches the producer and the consumer in
// program order, the candidate side launches the fused kernel once, with the
// parameters its declaration names, and its checks skip the temporary it no
// longer writes (the "elided" allocation).
//
// Plain C++: the parent (plan) and warplens-replay (replay) both build the
// merged records from the capture, so nothing merged travels in files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/verifier/launch_geometry.h"
#include "profiler/capture_format.h"

namespace warplens::verifier {

// Virtual launch ids start here (manifest indices are far below).
inline constexpr int kSequenceLaunchBase = 1 << 24;
inline bool is_sequence_launch(int launch) { return launch >= kSequenceLaunchBase; }

// A virtual launch: captured launches (manifest indices, program order)
// replayed as one unit.
struct LaunchSequence {
  int id = kSequenceLaunchBase;
  std::vector<int> launches;
  bool operator==(const LaunchSequence&) const = default;
};

// Parameter `index` of part `part` of a unit (0 = the producer, 1 = the
// consumer; a single launch has only part 0).
struct ParamSource {
  int part = 0;
  int index = 0;
  bool operator==(const ParamSource&) const = default;
};

// What a fused candidate declares: the fused kernel's parameters, in order,
// and the producer's parameter that held the temporary.
struct FusionSpec {
  std::string first, second;         // the original kernels (names or symbols), in program order
  std::vector<ParamSource> params;   // the fused kernel's parameter k comes from params[k]
  int elided = -1;                   // the producer's parameter that pointed at the temporary
  // The consumer's parameter that received the temporary: the one `params` leaves out.
  int consumer_temporary() const;
};

// "A0,A1,A2,A3,B1,B2,B3 elides=A2": for messages.
std::string describe(const FusionSpec& f);

struct MergedLaunch {
  capture::LaunchRecord record;                 // index = the sequence id; grid/block = the first part's
  std::vector<int> param_base;                  // per part: its first parameter in record.params
  std::vector<int> param_count;                 // per part
  std::vector<LaunchGeometry> geometry;         // per part, as captured
  std::vector<std::vector<int>> allocation_of;  // per part: its allocation -> merged allocation
  struct Source {
    int part = 0, allocation = 0;
  };
  std::vector<Source> before_from;              // per merged allocation: the first part that touches it
  std::vector<Source> after_from;               // ... and the last
  int merged_param(const ParamSource& p) const { return param_base.at(static_cast<std::size_t>(p.part)) + p.index; }
};

// Merges `parts` (program order) into one record with id `id`; nullopt with
// `error` when they cannot be one unit: allocations that overlap without
// being the same, or an allocation both touch that changed between the
// first's end and the second's start (something not captured wrote it).
std::optional<MergedLaunch> merge_launches(const std::vector<const capture::LaunchRecord*>& parts, int id,
                                           std::string* error);

// The merged allocation a unit parameter points at (-1: not a pointer).
int allocation_of_param(const capture::LaunchRecord& record, int merged_param);

// Program-order (producer, consumer) pairs of `fusion`: each captured launch
// of `second`, with the closest earlier captured launch of `first` whose
// temporary pointer (parameter `elided`) is the pointer the consumer reads
// (its parameter `consumer_temporary()`). Empty with `error` when none.
std::vector<std::pair<int, int>> select_launch_pairs(const capture::CaptureManifest& manifest, const FusionSpec& fusion,
                                                     std::string* error);

}  // namespace warplens::verifier
