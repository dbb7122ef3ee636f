// The device functions warp-per-row adds to a file: the shuffle trees that
// combine a row's reductions over the lanes that share it (a warp, lanes
// `stride` apart, or `width` neighbours) and over a whole block (one shared
// slot per warp), for sums, maxima and minima, online softmax pairs and
// arg-max/arg-min pairs. Each returns the helper's source text.
#pragma once

#include <cstdint>
#include <string>

#include "agent/rewrites/row_loops.h"

namespace warplens::agent::rw {

// Which lanes of a warp one row's reduction spans: a full warp (xor offsets
// 16..1), lanes `stride` apart (interleaved rows: offsets 16..stride), or
// `width` neighbours (contiguous rows: offsets width/2..1). A masked span
// names its lanes in `mask`, so rows whose guard fails elsewhere in the warp
// are not waited for.
struct LaneSpan {
  int first_offset = 16, last_offset = 1;
  bool masked = false;
  std::string describe;
};

LaneSpan lane_span(std::int64_t lanes, bool contiguous);

// A butterfly over the lanes of `span` (sum, max, min and their `if`
// forms), the result in each of them.
std::string shuffle_helper(const std::string& name, Combine op, const LaneSpan& span);
// The same over the whole block, calling the warp helper `warp`.
std::string block_helper(const std::string& name, const std::string& warp, Combine op);
// An online softmax's (maximum, rescaled sum) pair, over the span / a block.
std::string online_warp_helper(const std::string& name, const Accumulator& sum, const LaneSpan& span);
std::string online_block_helper(const std::string& name, const std::string& warp, const Accumulator& sum);
// An arg-max/arg-min's (value, index) pair, over the span / a block.
std::string arg_warp_helper(const std::string& name, Combine op, const LaneSpan& span);
std::string arg_block_helper(const std::string& name, const std::string& warp, Combine op);

}  // namespace warplens::agent::rw
