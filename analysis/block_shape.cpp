#include "analysis/block_shape.h"

#include <algorithm>

#include "analysis/kernel_symbols.h"

namespace warplens {

const char* to_string(BlockShapeSource s) {
  switch (s) {
    case BlockShapeSource::LaunchSite: return "launch";
    case BlockShapeSource::LaunchBounds: return "launch_bounds";
    case BlockShapeSource::KernelSetting: return "setting";
    case BlockShapeSource::DefaultSetting: return "default_setting";
    case BlockShapeSource::BuiltinDefault: return "default";
  }
  return "default";
}

std::string format_block_shape(const BlockShape& s) {
  std::string out = std::to_string(s.x);
  if (s.y != 1 || s.z != 1) out += "×" + std::to_string(s.y);
  if (s.z != 1) out += "×" + std::to_string(s.z);
  return out;
}

std::vector<BlockShape> BlockShapeResolution::distinct_shapes() const {
  std::vector<BlockShape> out;
  for (const auto& c : candidates)
    if (std::find(out.begin(), out.end(), c.shape) == out.end()) out.push_back(c.shape);
  return out;
}

std::int64_t BlockShapeResolution::max_threads() const {
  std::int64_t m = 0;
  for (const auto& c : candidates) m = std::max(m, c.shape.threads());
  return m;
}

namespace {

bool launch_targets(const LaunchSite& launch, const Function& kernel) {
  bool same_name = unqualified_name(launch.kernel) == unqualified_name(kernel.name);
  if (!launch.kernel_key.empty()) {
    if (launch.kernel_key == kernel.key) return true;
    // A launch of an instantiation carries the instantiation's key; the
    // template pattern owns all of its instantiations' launches.
    return kernel.is_template && same_name;
  }
  // An indirect launch (function pointer, kernel table): the kernels whose
  // address reaches its callee.
  if (!launch.kernel_candidates.empty()) {
    for (const auto& key : launch.kernel_candidates)
      if (key == kernel.key) return true;
    return false;
  }
  // The front end could not resolve the callee: match by name, and by
  // explicit template arguments when both sides have them.
  if (!same_name) return false;
  if (!kernel.template_args.empty() && !launch.template_args.empty())
    return normalize_template_args(kernel.template_args) ==
           normalize_template_args(launch.template_args);
  return true;
}

std::optional<BlockShape> constant_shape(const Dim3Value& v) {
  if (!v.value) return std::nullopt;
  const auto& a = *v.value;
  if (a[0] <= 0 || a[1] <= 0 || a[2] <= 0) return std::nullopt;
  return BlockShape{a[0], a[1], a[2]};
}

std::string launch_description(const LaunchSite& l) {
  std::string d = "launch at line " + std::to_string(l.range.start.line + 1) + ": <<<" +
                  l.grid.spelling + ", " + l.block.spelling;
  if (!l.shared_bytes_spelling.empty()) d += ", " + l.shared_bytes_spelling;
  d += ">>>";
  return d;
}

}  // namespace

std::vector<int> launches_of(const KernelModel& model, const Function& kernel) {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(model.launches.size()); ++i)
    if (launch_targets(model.launches[i], kernel)) out.push_back(i);
  return out;
}

BlockShapeResolution resolve_block_shapes(const KernelModel& model, const Function& kernel,
                                          const AnalysisOptions& options) {
  BlockShapeResolution r;
  // 1. Launch sites.
  for (int i : launches_of(model, kernel)) {
    const LaunchSite& l = model.launches[i];
    auto shape = constant_shape(l.block);
    if (!shape) {
      r.unresolved_launches.push_back(i);
      continue;
    }
    std::optional<std::int64_t> smem;
    if (l.shared_bytes_spelling.empty()) smem = 0;
    else if (l.shared_bytes) smem = *l.shared_bytes;
    auto same = [&](const BlockShapeCandidate& c) {
      return c.shape == *shape && c.dynamic_shared_bytes == smem &&
             (smem || c.dynamic_shared_spelling == l.shared_bytes_spelling);
    };
    auto it = std::find_if(r.candidates.begin(), r.candidates.end(), same);
    if (it != r.candidates.end()) {
      it->launch_indices.push_back(i);
      continue;
    }
    BlockShapeCandidate c;
    c.shape = *shape;
    c.source = BlockShapeSource::LaunchSite;
    c.launch_indices = {i};
    c.dynamic_shared_bytes = smem;
    if (!smem) c.dynamic_shared_spelling = l.shared_bytes_spelling;
    c.description = launch_description(l);
    r.candidates.push_back(std::move(c));
  }
  if (!r.candidates.empty()) {
    r.source = BlockShapeSource::LaunchSite;
    return r;
  }
  auto single = [&](BlockShape shape, BlockShapeSource source, bool dims_known, std::string desc) {
    BlockShapeCandidate c;
    c.shape = shape;
    c.source = source;
    c.dims_known = dims_known;
    c.description = std::move(desc);
    r.candidates.push_back(std::move(c));
    r.source = source;
    return r;
  };
  // 2. __launch_bounds__.
  if (kernel.launch_bounds && kernel.launch_bounds->max_threads && *kernel.launch_bounds->max_threads > 0) {
    std::string spelling = kernel.launch_bounds->spelling;
    if (spelling.empty())
      spelling = "__launch_bounds__(" + std::to_string(*kernel.launch_bounds->max_threads) + ")";
    return single({*kernel.launch_bounds->max_threads, 1, 1}, BlockShapeSource::LaunchBounds, false,
                  spelling);
  }
  // 3. Per-kernel setting.
  for (const std::string* k : {&kernel.name, &kernel.key}) {
    auto it = options.kernel_blocks.find(*k);
    if (it != options.kernel_blocks.end() && it->second.threads() > 0)
      return single(it->second, BlockShapeSource::KernelSetting, true,
                    "setting kernelBlockSizes[\"" + *k + "\"] = " + format_block_shape(it->second));
  }
  // 4. The user's default, 5. ours.
  if (options.default_block && options.default_block->threads() > 0)
    return single(*options.default_block, BlockShapeSource::DefaultSetting, true,
                  "setting defaultBlockSize = " + format_block_shape(*options.default_block));
  return single(kBuiltinDefaultBlock, BlockShapeSource::BuiltinDefault, true,
                "default " + format_block_shape(kBuiltinDefaultBlock) +
                    " threads (no launch site, __launch_bounds__ or setting gives one)");
}

}  // namespace warplens
