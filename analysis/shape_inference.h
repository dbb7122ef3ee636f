// The block shape a kernel's shared tiles imply, when no launch gives one.
//
// `__shared__ float As[BLOCK][BLOCK]; As[threadIdx.y][threadIdx.x] = ...`
// only makes sense with a BLOCK × BLOCK block: a smaller block leaves the
// tile partly unwritten, a larger one writes past it. So a 2-D array indexed
// exactly `[threadIdx.y (+ c)][threadIdx.x (+ c)]` gives both extents (each
// template instance its own: `MatrixMulCUDA<32>` 32×32), and one whose
// innermost subscript is exactly `threadIdx.x` (`tile[threadIdx.y + j][threadIdx.x]`)
// gives the x extent alone. A 1-D array written at `threadIdx.x + c`
// (`s[tid]`, `s[tid + N/2]`) gives blockDim.x = size − the largest c, as a
// first guess only: a 1-D tile is often larger than the block.
//
// Plain C++ over the bound kernel (device_call_inlining.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "analysis/device_call_inlining.h"

namespace warplens {

struct InferredShape {
  std::optional<std::int64_t> x;
  std::optional<std::int64_t> y;
  bool from_2d_tile = false;  // x (and y, when set) from a 2-D tile: what the code says
  std::string evidence;       // "`As[threadIdx.y][threadIdx.x]` of `float As[32][32]`"
};

// nullopt when no shared access pins an extent, or accesses disagree.
std::optional<InferredShape> infer_block_shape(const KernelView& view);

}  // namespace warplens
