// Launch geometry of the candidate. A candidate may change the block size
// (and declare that each thread covers several of the original's threads);
// the grid is then recomputed so the candidate covers the same threads:
//
//   grid'[d] = ceil(grid[d] * block[d] / (block'[d] * coarsen[d]))
//
// The candidate declares this in its source with a comment directive
// (or the agent passes the same fields in the VerifyRequest):
//
//   // warplens: block=(256,1,1)            new block size (x[,y[,z]])
//   // warplens: coarsen=(4,1,1)            each thread covers 4 original threads in x
//   // warplens: dynamic_smem=8192          dynamic shared memory bytes (default: captured)
//
// Without a directive the candidate runs with the captured geometry.
//
// The optimize engine's launch changes (agent/candidate.h, LaunchChange:
// swapped x/y, more or fewer threads per original thread, persistent grids,
// applied in order) arrive as `reshapes`; per dimension d, after exchanging
// x and y of grid G and block B when swap_xy is set:
//
//   threads_d = ceil(G_d * B_d * scale_d.num / scale_d.den)
//   grid_d'   = max(1, ceil(threads_d / block_d'))      block' = block, or B
//   grid_x'   = min(grid_x', SMs * persistent)          when persistent > 0
//
// or, with `cover` (extents X and Y from the launch's arguments), grid' =
// (ceil(X / block'_x), ceil(Y / block'_y), 1) whatever the previous grid.
//
// The old block/coarsen fields are the special case block' with
// scale = 1/coarsen (ceil(ceil(x / a) / b) == ceil(x / (a * b))).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/verifier/source_tokens.h"

namespace warplens::verifier {

using Dim3 = std::array<std::uint32_t, 3>;

struct LaunchGeometry {
  Dim3 grid{1, 1, 1};
  Dim3 block{1, 1, 1};
  std::uint32_t dynamic_shared_bytes = 0;
  bool operator==(const LaunchGeometry&) const = default;
};

// Threads per original thread in one dimension: num/den (32/1 = a warp per
// original thread, 1/4 = each thread covers four).
struct Ratio {
  std::uint32_t num = 1, den = 1;
  bool operator==(const Ratio&) const = default;
};

// A thread count read from the launch: an integer parameter's value (by
// parameter index) or a constant.
struct Extent {
  int param = -1;             // >= 0: that parameter's value
  std::int64_t constant = 0;  // when param < 0
  bool operator==(const Extent&) const = default;
};

// The values of a launch's integer parameters, by parameter index
// (integer_params in input_generation.h reads them from a parameter buffer).
using ParamValues = std::map<int, std::int64_t>;

// One launch change, in the order the candidate's rewrites made them.
struct LaunchReshape {
  std::optional<Dim3> block;                 // nullopt keeps the (possibly swapped) block
  bool swap_xy = false;
  std::array<Ratio, 3> scale{};
  std::uint32_t persistent_blocks_per_sm = 0;
  // A grid sized from the arguments instead of the previous grid: x and y
  // blocks for cover[0] x cover[1] threads, z = 1 (a 1-D kernel over a
  // flattened M x N index made 2-D: the threads are N and M, not the
  // previous grid's). Applied before persistent.
  std::optional<std::array<Extent, 2>> cover;
  bool operator==(const LaunchReshape&) const = default;
};

struct LaunchOverride {
  std::optional<Dim3> block;
  Dim3 coarsen{1, 1, 1};
  std::optional<std::uint32_t> dynamic_shared_bytes;
  std::vector<LaunchReshape> reshapes;       // applied in order, after block/coarsen
  bool empty() const { return !block && coarsen == Dim3{1, 1, 1} && !dynamic_shared_bytes && reshapes.empty(); }
};

struct DirectiveParse {
  LaunchOverride value;
  std::vector<std::string> errors;  // "line 3: unknown key 'blok'"
};
DirectiveParse parse_launch_directives(const std::vector<Directive>& directives);

// The candidate's geometry, or nullopt with `error` when the override is
// invalid (zero sizes, more than 1024 threads per block, grid too large, a
// persistent grid without the SM count). `sm_count` is the replaying GPU's.
std::optional<LaunchGeometry> candidate_geometry(const LaunchGeometry& captured, const LaunchOverride& o,
                                                 int sm_count, std::string* error);
// The same for a reshape with `cover`: `params` holds the launch's integer
// arguments (an error when a named parameter is missing or not positive).
std::optional<LaunchGeometry> candidate_geometry(const LaunchGeometry& captured, const LaunchOverride& o,
                                                 int sm_count, const ParamValues& params, std::string* error);
std::optional<LaunchGeometry> candidate_geometry(const LaunchGeometry& captured, const LaunchOverride& o,
                                                 std::string* error);

// One reshape step of the rule above (no validation; a `cover` extent
// missing from `params` counts as 1 thread).
LaunchGeometry apply_reshape(const LaunchGeometry& g, const LaunchReshape& r, int sm_count,
                             const ParamValues& params = {});

// "block=same swap-xy=1 scale=32/1,1/1,1/1 persistent=0" (the body of a
// `// warplens-launch:` declaration without its kernel).
std::string to_string(const LaunchReshape& r);

std::string to_string(const Dim3& d);  // "(256,1,1)"

}  // namespace warplens::verifier
