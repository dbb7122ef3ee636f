// Shapes beyond the captured ones. A kernel correct only at the captured
// sizes (a tiled transpose without bounds checks, correct when n is a
// multiple of 32; a vectorised loop without a tail; a hard-coded size)
// passes every input set that keeps the captured integer arguments. So for a
// launch with integer scalar arguments the verifier adds differential runs
// with those arguments shrunk to odd values, the original computing the
// reference:
//
//   1. every size argument times 3/4, made odd          (n 1048576 -> 786431)
//   2. every size argument halved, made 17 modulo 32    (n 1048576 -> 524273)
//   3. when several size arguments are equal (a square matrix), each by a
//      different factor, made odd: rows and cols no longer interchangeable
//
// "Size arguments" are integer scalars of at least 8 (smaller ones are mostly
// modes, flags and strides of 1..7). Sizes only shrink, so the captured
// allocations stay large enough for every access that grows with them.
//
// The grid must shrink with the sizes, the same way for both sides. A grid
// dimension is linked to a size argument when the captured launch is the
// usual formula: grid = ceil(size / (block * k)) for a small k (elements per
// thread), or grid = size (a block per row). Linked dimensions get the same
// formula on the shrunk size (the largest, when several sizes fit, so the
// grid never covers too little), never more than captured; other dimensions
// stay. The candidate's launch follows from the original's by its declared
// launch change, as for a captured launch.
//
// Whether the original itself handles a variation is decided by replaying it
// (warplens-replay reference): a fault, a hang, a write into the guard bands,
// a result that depends on the poison, or one that changes when the grid is
// the captured one (no bounds checks for these sizes, or a grid that does not
// derive from them) skips the variation, and the evidence says so.
#pragma once

#include <string>
#include <vector>

#include "agent/verifier/input_generation.h"
#include "agent/verifier/launch_geometry.h"
#include "profiler/capture_format.h"

namespace warplens::verifier {

inline constexpr std::int64_t kMinSizeArgument = 8;

struct ShapeVariation {
  std::vector<ScalarValue> scalars;  // every size argument's new value
  LaunchGeometry geometry;           // the original's launch
  std::string description;           // "n 1048576 -> 786431; grid (8192,1,1) -> (6144,1,1)"
};

struct ShapePlan {
  std::vector<ShapeVariation> variations;
  std::string note;  // why there are none, or what could not be linked
};

ShapePlan plan_shape_variations(const capture::LaunchRecord& launch, const LaunchLayout& layout);

// Building blocks (exposed for tests): the largest odd value <= x (>= 1), and
// the largest value <= x that is r modulo m (falls back to odd_at_most).
std::int64_t odd_at_most(std::int64_t x);
std::int64_t residue_at_most(std::int64_t x, std::int64_t r, std::int64_t m);

}  // namespace warplens::verifier
