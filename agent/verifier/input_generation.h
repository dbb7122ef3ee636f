// Input sets for replay. Set 0 of a captured launch is exactly what the
// program passed. A fresh set re-draws every floating-point buffer from the
// captured values' own distribution (bootstrap: each element is a randomly
// chosen captured value times a factor in [0.5, 1.5], so signs, zeros,
// ranges and special values survive) and scales floating-point scalar
// arguments by a factor in [0.75, 1.25]; integer and index buffers and
// integer scalars are kept as captured (they are shapes and indices).
//
// Deterministic in (captured data, seed): the reference and the candidate
// processes each build the same sets without exchanging them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/verifier/compare.h"
#include "agent/verifier/kernel_signature.h"
#include "profiler/capture_format.h"

namespace warplens::verifier {

// A scalar argument: where it sits in the parameter buffer and its type.
struct ScalarSlot {
  int param = 0;
  std::uint64_t offset = 0;
  ElementType type = ElementType::Bytes;
  bool operator==(const ScalarSlot&) const = default;
};

// What the verifier knows about one captured launch's memory.
struct LaunchLayout {
  int launch = 0;                              // index into the manifest's launches
  std::vector<BufferLayout> allocations;       // per allocation
  std::vector<std::string> allocation_names;   // "x (param 0)", for reports
  std::vector<ScalarSlot> scalars;             // every non-pointer parameter with a known type
};

// Types each allocation from the pointer parameters that point into it:
// one consistent typed pointer gives the type; pointers of different types,
// or pointers found inside struct parameters, give Bytes. `signature` may
// be null (then everything is Bytes).
LaunchLayout make_launch_layout(const capture::LaunchRecord& launch, const KernelSignature* signature);

struct InputSet {
  std::vector<std::uint8_t> param_buffer;                // pointers not yet relocated
  std::vector<std::vector<std::uint8_t>> allocations;    // initial contents
};

// Set 0 (`fresh == false`) copies the captured contents; otherwise re-draws
// as described above with `seed`.
InputSet make_input_set(const capture::LaunchRecord& launch, const std::vector<std::vector<std::uint8_t>>& captured,
                        const LaunchLayout& layout, bool fresh, std::uint64_t seed);

// The re-draw of one floating-point buffer (exposed for tests).
void redraw_floats(const std::uint8_t* captured, std::uint8_t* out, std::uint64_t bytes, BufferLayout layout,
                   std::uint64_t seed);

}  // namespace warplens::verifier
