// The glue between compare.h's reports and the per-unit comparison of
// element_ops.h, shared by the host loop (compare_buffers) and the GPU
// kernels' host side (replay/buffer_ops): the same spec, the same report of
// the worst unit, the same totals.
#pragma once

#include <optional>

#include "agent/verifier/compare.h"
#include "agent/verifier/element_ops.h"

namespace warplens::verifier {

ops::CompareSpec compare_spec(BufferLayout layout, std::uint64_t bytes, const Tolerance& tol,
                              const CompareOptions& options);

// The report of one unit; `expected` and `got` point at that unit's bytes.
// A stray write reports the poison as what was expected.
ElementReport unit_report(const ops::CompareSpec& spec, const ops::Unit& unit, const std::uint8_t* expected,
                          const std::uint8_t* got, std::uint8_t problem);

// Totals and the worst unit's report (when there is one) as a comparison.
BufferComparison finish_comparison(const ops::CompareStats& stats, std::optional<ElementReport> worst);

}  // namespace warplens::verifier
