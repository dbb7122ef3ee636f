// Input sets for replay. Set 0 of a captured launch is exactly what the
// program passed. A fresh set re-draws every floating-point buffer from the
// captured values' own distribution (bootstrap: each element is a randomly
// chosen captured value times a factor in [0.5, 1.5), so signs, zeros,
// ranges and special values survive) and scales floating-point scalar
// arguments by a factor in [0.75, 1.25); integer and index buffers are kept
// as captured (they are shapes and indices), integer scalars too unless the
// set is a shape variation (shape_variation.h), which overrides them.
//
// Deterministic in (captured data, seed): the reference and the candidate
// processes each build the same sets without exchanging them. The re-draw is
// counter-based (element_ops.h): warplens-replay runs it as a kernel, this
// host version gives the same bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/verifier/compare.h"
#include "agent/verifier/kernel_signature.h"
#include "agent/verifier/launch_geometry.h"
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
  std::vector<std::string> scalar_names;       // per scalar: the parameter's name ("n"), or "param 4"
};

// An integer scalar argument set to another value (a shape variation).
struct ScalarValue {
  int param = 0;
  std::uint64_t offset = 0;                    // in the parameter buffer
  ElementType type = ElementType::I32;
  std::int64_t value = 0;
  bool operator==(const ScalarValue&) const = default;
};

// Types each allocation from the pointer parameters that point into it:
// one consistent typed pointer gives the type; pointers of different types,
// or pointers found inside struct parameters, give Bytes. `signature` may
// be null (then everything is Bytes).
LaunchLayout make_launch_layout(const capture::LaunchRecord& launch, const KernelSignature* signature);

// The integer arguments of a launch by parameter index, read from its
// parameter buffer at the layout's scalar slots (what a launch change sized
// from the arguments needs: LaunchReshape::cover).
ParamValues integer_params(const LaunchLayout& layout, const std::vector<std::uint8_t>& param_buffer);

struct InputSet {
  std::vector<std::uint8_t> param_buffer;                // pointers not yet relocated
  std::vector<std::vector<std::uint8_t>> allocations;    // initial contents
};

// Set 0 (`fresh == false`) copies the captured contents; otherwise re-draws
// as described above with `seed`. `scalars` override integer arguments.
InputSet make_input_set(const capture::LaunchRecord& launch, const std::vector<std::vector<std::uint8_t>>& captured,
                        const LaunchLayout& layout, bool fresh, std::uint64_t seed,
                        const std::vector<ScalarValue>& scalars = {});

// The set's parameter buffer alone (pointers not relocated): the captured
// bytes, `scalars` written over, floating-point scalars jittered when fresh.
std::vector<std::uint8_t> make_param_buffer(const capture::LaunchRecord& launch, const LaunchLayout& layout,
                                            bool fresh, std::uint64_t seed, const std::vector<ScalarValue>& scalars);

// Whether a fresh set re-draws allocation `a` (a floating-point layout), and
// with which seed.
bool redraws(const LaunchLayout& layout, std::size_t allocation);
std::uint64_t allocation_seed(std::uint64_t set_seed, std::size_t allocation);

// The re-draw of one floating-point buffer (element_ops.h's redraw_element
// over every whole element; bytes outside whole elements are copied).
void redraw_floats(const std::uint8_t* captured, std::uint8_t* out, std::uint64_t bytes, BufferLayout layout,
                   std::uint64_t seed);

// A scalar's value read as a 64-bit integer / written from one.
std::int64_t read_integer(const std::vector<std::uint8_t>& params, std::uint64_t offset, ElementType type);
void write_integer(std::vector<std::uint8_t>& params, std::uint64_t offset, ElementType type, std::int64_t value);
bool is_integer_type(ElementType t);  // I8..U64 (not Bool, not Bytes)

}  // namespace warplens::verifier
