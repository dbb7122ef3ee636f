// Which thread-block shape(s) a kernel runs with, and how we know.
//
// Shared by the occupancy analysis and the static memory analyses (lane ->
// thread mapping), so both name the same shape and the same reason in their
// hovers. Resolution order (first that yields a shape wins):
//
//   1. LaunchSite     constant-evaluable `<<<grid, block, smem>>>` launches of
//                     this kernel in the translation unit (KernelModel::launches
//                     with a Dim3Value::value). Every distinct (shape, dynamic
//                     shared memory) pair becomes one candidate, in source order.
//   2. LaunchBounds   `__launch_bounds__(N, ...)`: N threads, assumed 1-D
//                     (N x 1 x 1, `dims_known == false`).
//   3. KernelSetting  AnalysisOptions::kernel_blocks, looked up by the kernel's
//                     name, then by its Function::key.
//   4. DefaultSetting AnalysisOptions::default_block (the user's default).
//   5. BuiltinDefault kBuiltinDefaultBlock = 256 x 1 x 1: the most common block
//                     size in CUDA code and the one NVIDIA's guides start from.
//
// Launch sites whose block is not a constant (`dim3 b(n)`, a parameter) are
// listed in `unresolved_launches` so a hover can say why a later source was
// used. Launch sites are matched to the kernel by Function::key; when a launch
// has no key (indirect or unresolved callee) or the kernel is a template
// pattern, by name (and, for an instantiation, by template arguments).
//
// Consumers that only need shapes (the lane model) use distinct_shapes();
// occupancy also uses each candidate's dynamic shared memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/kernel_model.h"

namespace warplens {

enum class BlockShapeSource : std::uint8_t {
  LaunchSite,
  LaunchBounds,
  KernelSetting,
  DefaultSetting,
  BuiltinDefault,
};

// Stable machine names: "launch", "launch_bounds", "setting", "default_setting", "default".
const char* to_string(BlockShapeSource s);

inline constexpr BlockShape kBuiltinDefaultBlock{256, 1, 1};

struct BlockShapeCandidate {
  BlockShape shape;
  BlockShapeSource source = BlockShapeSource::BuiltinDefault;
  // False when only the thread count is known (launch bounds): the shape is
  // then N x 1 x 1 by assumption, and a 2-D lane model should say so.
  bool dims_known = true;
  // LaunchSite: the indices into KernelModel::launches with this shape and
  // this dynamic shared memory, in source order.
  std::vector<int> launch_indices;
  // Dynamic shared memory per block: the launch's third argument when it is
  // a constant, 0 when the launch has none; nullopt when it is not constant
  // (`dynamic_shared_spelling` then holds it) or not known (non-launch sources).
  std::optional<std::int64_t> dynamic_shared_bytes;
  std::string dynamic_shared_spelling;
  // One line for hovers: "launch at line 42: <<<grid, dim3(16, 16)>>>",
  // "__launch_bounds__(256, 2)", "setting kernelBlockSizes[\"k\"]", "default 256×1×1".
  std::string description;
};

struct BlockShapeResolution {
  std::vector<BlockShapeCandidate> candidates;  // never empty
  BlockShapeSource source = BlockShapeSource::BuiltinDefault;  // shared by all candidates
  std::vector<int> unresolved_launches;  // this kernel's launches with a non-constant block

  // The distinct shapes, in candidate order (candidates differing only in
  // dynamic shared memory collapse).
  std::vector<BlockShape> distinct_shapes() const;
  // The largest thread count among the candidates.
  std::int64_t max_threads() const;
  // True when the shape came from the code or the user, not a built-in guess.
  bool is_known() const { return source != BlockShapeSource::BuiltinDefault; }
};

// Launch sites of `kernel` in `model`, as indices into model.launches.
std::vector<int> launches_of(const KernelModel& model, const Function& kernel);

BlockShapeResolution resolve_block_shapes(const KernelModel& model, const Function& kernel,
                                          const AnalysisOptions& options);

// "256", "16×16", "8×8×4" (x first; trailing 1s dropped).
std::string format_block_shape(const BlockShape& shape);

}  // namespace warplens
