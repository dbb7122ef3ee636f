// Comparing a candidate's buffers with the original's: dtype-aware
// tolerances (torch.allclose style: |got - expected| <= atol + rtol*|expected|),
// integers and unknown bytes exactly, NaN never equal (unless asked), and
// bytes the original never writes must still hold the poison the run started
// with. Reports the worst element with its index, expected and actual value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/verifier/element_type.h"

namespace warplens::verifier {

struct Tolerance {
  double rtol_f32 = 1e-4;   // fp32 (KernelBench's fp32 tolerance)
  double atol_f32 = 1e-4;
  double rtol_half = 1e-2;  // fp16 and bf16
  double atol_half = 1e-2;
  bool nan_equal = false;   // KernelBench / torch.allclose default: NaN != NaN
  // fp64 at its own tolerance: at the fp32 one an fp64 -> fp32 downgrade
  // (relative error ~1e-7) would pass.
  double rtol_f64 = 1e-10;
  double atol_f64 = 1e-10;

  double rtol(ElementType t) const;
  double atol(ElementType t) const;
};

// Half-open byte ranges, sorted and disjoint.
struct ByteRange {
  std::uint64_t begin = 0, end = 0;
  bool operator==(const ByteRange&) const = default;
};
using ByteRanges = std::vector<ByteRange>;
std::uint64_t total_bytes(const ByteRanges& r);

// How an allocation's bytes are read as elements: the type, and the byte
// offset of the first whole element (pointers into the middle of an
// allocation need not be element-aligned to its base). Bytes before `phase`
// and a trailing partial element are compared as raw bytes.
struct BufferLayout {
  ElementType type = ElementType::Bytes;
  std::uint64_t phase = 0;
  bool operator==(const BufferLayout&) const = default;
};

enum class Problem : std::uint8_t {
  None,
  OutOfTolerance,  // a value differs by more than the tolerance
  NaN,             // expected or got is NaN
  StrayWrite,      // changed a byte the original leaves untouched (poison changed)
  ChangedBits,     // an exact comparison failed (inputs, integers, determinism)
};
const char* to_string(Problem p);

struct ElementReport {
  std::uint64_t index = 0;        // element index (counted from the layout's phase)
  std::uint64_t byte_offset = 0;  // offset of the element in the allocation
  std::string expected;
  std::string got;
  double abs_error = 0;
  double rel_error = 0;
  Problem problem = Problem::None;
};

struct BufferComparison {
  bool ok = true;
  std::uint64_t elements = 0;        // elements compared by value
  std::uint64_t mismatches = 0;      // elements that failed (any problem)
  std::uint64_t stray_bytes = 0;     // poison bytes the candidate changed
  double max_abs_error = 0;          // over finite compared values
  double max_rel_error = 0;
  // The largest |expected| among the values compared with tolerance (not
  // filled by the bit-identical fast path, which cannot fail): the scale a
  // reassociated sum's rounding is measured against (reassociation.h).
  double max_abs_expected = 0;
  std::optional<ElementReport> worst;  // worst failing element; when ok, the largest error
};

// Value comparison of an output. `unwritten` are the bytes the original does
// not write; there `got` must equal `poison` bit for bit.
BufferComparison compare_with_tolerance(const std::uint8_t* expected, const std::uint8_t* got, std::uint64_t bytes,
                                        BufferLayout layout, const Tolerance& tol, const ByteRanges& unwritten,
                                        const std::uint8_t* poison);

// Bit-exact comparison, skipping `ignore` (e.g. the unwritten bytes of two
// runs that started from different poisons).
BufferComparison compare_exact(const std::uint8_t* expected, const std::uint8_t* got, std::uint64_t bytes,
                               BufferLayout layout, const ByteRanges& ignore = {});

// Bytes where result_a still equals poison_a and result_b equals poison_b:
// what the kernel never wrote, found from two runs with different poisons.
ByteRanges unwritten_ranges(const std::uint8_t* result_a, const std::uint8_t* poison_a, const std::uint8_t* result_b,
                            const std::uint8_t* poison_b, std::uint64_t bytes);

// One line for reports: "element 1234 (byte 4936): expected 0.5, got NaN".
std::string describe(const ElementReport& e);

// The comparison warplens-replay runs (on the GPU as kernels, on the host as
// loops over the same per-element code, agent/verifier/element_ops.h):
//   by value: tolerance per element type; units where `pref` still holds the
//     poison `pref_poison` were never written by the reference (the run that
//     started from that poison): `got` must hold the poison there too;
//   exact: bit for bit, skipping such units (determinism, unchanged inputs).
struct CompareOptions {
  bool exact = false;
  int pref_poison = -1;  // 0: poison A, 1: poison B, -1: every unit compared
};
BufferComparison compare_buffers(const std::uint8_t* expected, const std::uint8_t* got, const std::uint8_t* pref,
                                 std::uint64_t bytes, BufferLayout layout, const Tolerance& tol,
                                 const CompareOptions& options);

}  // namespace warplens::verifier
