// The padding quick fix for shared-memory bank conflicts: widen the
// innermost dimension of a `__shared__` array (`[32][32]` -> `[32][33]`) so
// that a column walk lands on distinct banks.
//
// Padding changes every access to the array, so a candidate padding is kept
// only when it makes the reported access conflict-free and no other access
// to the same array in the kernel needs more wavefronts than before. The
// remapping needs no re-parse: an in-bounds element index v of an array
// whose innermost extent is N is (v / N) * N + v % N, and after padding it is
// (v / N) * (N + P) + v % N.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/access_evaluation.h"
#include "analysis/findings.h"
#include "analysis/kernel_model.h"

namespace warplens {

struct PaddingChoice {
  int pad_elements = 0;
  std::string new_extent;  // the replacement text for the innermost `[N]`
  std::int64_t new_extent_value = 0;
};

// `target` is the reported access (index into `accesses`); `accesses` are
// all the kernel's accesses to `array` with their evaluations. nullopt when
// the array cannot be padded safely or no padding up to 32 elements works.
std::optional<PaddingChoice> choose_padding(const SharedArray& array, std::size_t target,
                                            const std::vector<const BoundAccess*>& accesses,
                                            const EvaluationTable& table);

// The LSP-ready fix for a choice.
Fix padding_fix(const SharedArray& array, const PaddingChoice& choice, const std::string& file, int degree);

// Byte offset after padding the innermost extent `n` by `pad` elements.
std::int64_t padded_offset(std::int64_t byte_offset, int element_bytes, std::int64_t n, std::int64_t pad);

}  // namespace warplens
