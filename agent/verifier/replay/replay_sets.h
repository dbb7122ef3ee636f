// Input sets on the device. The captured contents of each launch are
// uploaded once (Pristine); every run then starts from them, written into
// the side's own allocations on the run's stream: copied, floats re-drawn
// for fresh sets, outputs poisoned, guard bands filled. So each run starts
// from exactly its set's state, complete and in order, whatever the last
// run left behind.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/verifier/replay/buffer_ops.h"
#include "agent/verifier/replay/replay_capture.h"
#include "agent/verifier/replay/replay_side.h"
#include "agent/verifier/replay_protocol.h"

namespace warplens::replay {

// One captured launch's "before" contents in device memory.
class Pristine {
 public:
  // `globals`: the launch's module variables' "before" contents.
  Pristine(const capture::LaunchRecord& launch, const Blobs& before, const Blobs& globals, CUstream s);
  CUdeviceptr ptr(std::size_t a) const { return buffers_.at(a).ptr(); }
  CUdeviceptr global_ptr(std::size_t g) const { return globals_.at(g).ptr(); }
  std::uint64_t bytes(std::size_t a) const { return bytes_.at(a); }
  std::size_t allocations() const { return buffers_.size(); }
  // Over every allocation: whether anything wrote to them since (integrity).
  std::uint64_t hash(BufferOps& ops, CUstream s) const;

 private:
  std::vector<DeviceBuffer> buffers_;
  std::vector<std::uint64_t> bytes_;
  std::vector<DeviceBuffer> globals_;
  std::vector<std::uint64_t> global_bytes_;
};

// Whether a set's floating-point scalars are re-drawn: fresh sets, unless
// the original faulted with them so (InputSetSpec::captured_scalars).
inline bool jitters_scalars(const verifier::InputSetSpec& spec) { return spec.fresh && !spec.captured_scalars; }

// An input set as both sides need it.
struct SetContext {
  const verifier::InputSetSpec* spec = nullptr;
  const capture::LaunchRecord* launch = nullptr;
  const verifier::LaunchLayout* layout = nullptr;
  const Pristine* pristine = nullptr;
  std::vector<std::uint8_t> params;           // pointers not relocated
  verifier::LaunchGeometry original_geometry;  // the spec's, else the captured launch's
};
SetContext make_set(const verifier::InputSetSpec& spec, const capture::LaunchRecord& launch,
                    const verifier::LaunchLayout& layout, const Pristine& pristine);
verifier::LaunchGeometry captured_geometry(const capture::LaunchRecord& launch);

// The set's starting contents and parameters into `side` (module variables
// as captured, whatever the set; outputs and guard
// bands from poison `poison`: 0 A, 1 B), enqueued on `s`. `roles`: per
// allocation; Output ones are poisoned instead of copied.
void prepare(BufferOps& ops, ReplaySide& side, const SetContext& set, const std::vector<verifier::BufferRole>& roles,
             int poison, CUstream s);
// Only the allocations a run writes (Output: poisoned, InOut: their starting
// contents again): what removes a run's results from the side before
// another kernel may run.
void scrub(BufferOps& ops, ReplaySide& side, const SetContext& set, const std::vector<verifier::BufferRole>& roles,
           int poison, CUstream s);
// One allocation's starting contents (as prepare writes it, unpoisoned) to dst.
void starting_contents(BufferOps& ops, CUdeviceptr dst, const SetContext& set, std::size_t a, CUstream s);

inline constexpr std::uint8_t guard_byte(int poison) { return poison == 0 ? 0xff : 0xa5; }

struct GuardDamage {
  std::size_t allocation = 0;
  bool after = true;            // past the end (else before the start)
  std::uint64_t bytes = 0;      // bytes changed
  std::uint64_t first = 0;      // offset of the first changed byte from the allocation's end (or start)
};
// The first allocation whose guard bands changed since prepare(poison);
// `unchecked[a]` skips allocation a (the original itself writes there).
std::optional<GuardDamage> check_guards(BufferOps& ops, const ReplaySide& side, int poison, CUstream s,
                                        const std::vector<bool>* unchecked = nullptr);
std::string describe(const GuardDamage& d, const verifier::LaunchLayout& layout);

std::string allocation_name(const verifier::LaunchLayout& layout, std::size_t a);

// What a set exercises, for the evidence: both launches, every integer argument.
verifier::SetShape set_shape(const SetContext& set, const verifier::LaunchGeometry& candidate);
verifier::SetShape spec_shape(const verifier::InputSetSpec& spec, const capture::LaunchRecord& launch,
                              const verifier::LaunchLayout& layout);

}  // namespace warplens::replay
