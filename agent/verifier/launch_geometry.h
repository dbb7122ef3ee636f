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
#pragma once

#include <array>
#include <cstdint>
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

struct LaunchOverride {
  std::optional<Dim3> block;
  Dim3 coarsen{1, 1, 1};
  std::optional<std::uint32_t> dynamic_shared_bytes;
  bool empty() const { return !block && coarsen == Dim3{1, 1, 1} && !dynamic_shared_bytes; }
};

struct DirectiveParse {
  LaunchOverride value;
  std::vector<std::string> errors;  // "line 3: unknown key 'blok'"
};
DirectiveParse parse_launch_directives(const std::vector<Directive>& directives);

// The candidate's geometry, or nullopt with `error` when the override is
// invalid (zero sizes, more than 1024 threads per block, grid too large).
std::optional<LaunchGeometry> candidate_geometry(const LaunchGeometry& captured, const LaunchOverride& o,
                                                 std::string* error);

std::string to_string(const Dim3& d);  // "(256,1,1)"

}  // namespace warplens::verifier
