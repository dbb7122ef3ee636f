// The launch contexts a kernel is analysed under: block shapes (and, where
// the launch passes integer literals, parameter values).
//
// The block shape comes from resolve_block_shapes (block_shape.h): constant
// launch sites in the translation unit, `__launch_bounds__`, the per-kernel
// setting, the configured default, a built-in default. Launch sites and
// settings give a shape we know; `__launch_bounds__` gives one for a kernel
// that only uses threadIdx.x (N x 1 x 1). Otherwise the kernel is analysed
// under a few plausible shapes for its dimensionality (256/128/1024 threads
// for 1-D kernels, 16x16/32x8/32x32 for 2-D ones, with the thread count of
// `__launch_bounds__` when there is one), and an analysis whose verdict
// differs between them reports at information level, not as a warning: the
// verdict depends on a shape we only guessed. Before guessing, the kernel's
// shared tiles are asked (shape_inference.h): `As[threadIdx.y][threadIdx.x]`
// of `float As[32][32]` says 32×32 (a shape the code gives, not a guess);
// an innermost subscript of exactly `threadIdx.x` fixes the guesses' width.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/block_shape.h"
#include "analysis/device_call_inlining.h"
#include "analysis/kernel_model.h"

namespace warplens {

// Inferred: from the kernel's shared tiles (shape_inference.h).
enum class ShapeOrigin : std::uint8_t { LaunchSite, LaunchBounds, Setting, Inferred, Default };

struct LaunchContext {
  BlockShape shape;
  ShapeOrigin origin = ShapeOrigin::Default;
  std::string source;  // for messages: "the launch at line 88 (`dim3(32, 8)`)"
  std::map<std::string, std::int64_t> known_params;  // integer-literal launch arguments
  bool primary = true;  // for guessed shapes: the documented default (others are alternatives)
};

inline constexpr std::size_t kMaxLaunchContexts = 8;

struct KernelContexts {
  std::vector<LaunchContext> contexts;
  bool shape_known = false;  // false: the shapes are guesses (see above)
};

// `view` tells the kernel's dimensionality (does it use threadIdx.y / .z?).
KernelContexts launch_contexts(const KernelModel& model, const Function& kernel, const KernelView& view,
                               const AnalysisOptions& options);

// How many thread-index dimensions the kernel's code uses (1, 2 or 3).
int thread_dimensions(const KernelView& view);

// The lane model's default for a kernel of `dims` dimensions, when nothing
// gives a shape: 256 threads for 1-D kernels (block_shape.h's built-in
// default), 16×16 for 2-D, 8×8×4 for 3-D: a 2-D kernel run as 256×1 would
// hide exactly the row-crossing warps the model is for.
BlockShape default_block_shape(int dims);

}  // namespace warplens
