#include "analysis/launch_contexts.h"

#include <algorithm>
#include <cctype>

namespace warplens {

namespace {

bool uses_dim(const ExprRef& e, int dim) {
  return mentions(e, [dim](const Symbol& s) {
    return (s.kind == SymbolKind::ThreadIdx || s.kind == SymbolKind::BlockDim) && s.dim >= dim;
  });
}

std::optional<std::int64_t> integer_literal(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
  while (!s.empty() && (s.back() == 'u' || s.back() == 'U' || s.back() == 'l' || s.back() == 'L')) s.pop_back();
  if (s.empty()) return std::nullopt;
  std::size_t pos = 0;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    pos = 2;
  }
  std::int64_t v = 0;
  for (; pos < s.size(); ++pos) {
    char c = s[pos];
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else if (c == '\'') continue;
    else return std::nullopt;
    v = v * base + d;
    if (v > (std::int64_t{1} << 40)) return std::nullopt;
  }
  return v;
}

bool launch_targets(const LaunchSite& l, const Function& kernel) {
  if (!l.kernel_key.empty()) return l.kernel_key == kernel.key;
  if (l.kernel != kernel.name) return false;
  return l.template_args.empty() || kernel.template_args.empty() || l.template_args == kernel.template_args;
}

std::map<std::string, std::int64_t> literal_params(const LaunchSite& l, const Function& kernel) {
  std::map<std::string, std::int64_t> out;
  for (std::size_t i = 0; i < l.args.size() && i < kernel.params.size(); ++i) {
    const Parameter& p = kernel.params[i];
    if (p.is_pointer || p.is_reference) continue;
    if (auto v = integer_literal(l.args[i])) out[p.name] = *v;
  }
  return out;
}

// Plausible shapes for a kernel of `dims` dimensions and (optionally) a
// known thread count. The first is the documented default.
std::vector<BlockShape> guessed_shapes(int dims, std::optional<std::int64_t> threads) {
  std::vector<BlockShape> out;
  auto add = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    BlockShape s{x, y, z};
    if (x < 1 || y < 1 || z < 1) return;
    if (threads && s.threads() != *threads) return;
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  if (dims <= 1) {
    if (threads) add(*threads, 1, 1);
    add(256, 1, 1);
    add(128, 1, 1);
    add(1024, 1, 1);
  } else if (dims == 2) {
    if (threads) {
      if (*threads % 16 == 0 && *threads / 16 == 16) add(16, 16, 1);
      if (*threads % 32 == 0) add(32, *threads / 32, 1);
      if (*threads % 16 == 0) add(16, *threads / 16, 1);
      if (*threads % 8 == 0) add(8, *threads / 8, 1);
    }
    add(16, 16, 1);
    add(32, 8, 1);
    add(32, 32, 1);
  } else {
    if (threads) {
      if (*threads % 64 == 0) add(8, 8, *threads / 64);
      if (*threads % 128 == 0) add(32, 4, *threads / 128);
    }
    add(8, 8, 4);
    add(32, 4, 2);
    add(16, 4, 4);
  }
  return out;
}

}  // namespace

std::string shape_text(const BlockShape& s) {
  if (s.y == 1 && s.z == 1) return std::to_string(s.x);
  std::string t = std::to_string(s.x) + "×" + std::to_string(s.y);
  if (s.z != 1) t += "×" + std::to_string(s.z);
  return t;
}

BlockShape default_block_shape(int dims) {
  if (dims <= 1) return {256, 1, 1};
  if (dims == 2) return {16, 16, 1};
  return {8, 8, 4};
}

int thread_dimensions(const KernelView& view) {
  int dims = 1;
  auto scan = [&](const ExprRef& e) {
    if (dims < 3 && uses_dim(e, 2)) dims = 3;
    else if (dims < 2 && uses_dim(e, 1)) dims = 2;
  };
  for (const auto& a : view.accesses) {
    scan(a.byte_offset);
    for (const auto& g : a.guards) scan(g.condition);
  }
  for (const auto& c : view.conditions) scan(c.expr);
  return dims;
}

KernelContexts launch_contexts(const KernelModel& model, const Function& kernel, const KernelView& view,
                               const AnalysisOptions& options) {
  KernelContexts out;
  const int dims = thread_dimensions(view);

  // 1. Launch sites with a constant block.
  std::string unresolved;  // a launch whose block is not constant, for the message
  for (const auto& l : model.launches) {
    if (!launch_targets(l, kernel)) continue;
    if (!l.block.value) {
      if (unresolved.empty())
        unresolved = "the launch at line " + std::to_string(l.range.start.line + 1) + " (block `" +
                     l.block.spelling + "` is not a constant)";
      continue;
    }
    const auto& v = *l.block.value;
    LaunchContext c;
    c.shape = {std::max<std::int64_t>(v[0], 1), std::max<std::int64_t>(v[1], 1), std::max<std::int64_t>(v[2], 1)};
    c.origin = ShapeOrigin::LaunchSite;
    c.source = "the launch at line " + std::to_string(l.range.start.line + 1) + " (block `" + l.block.spelling + "`)";
    c.known_params = literal_params(l, kernel);
    bool duplicate = false;
    for (const auto& o : out.contexts)
      duplicate |= o.shape == c.shape && o.known_params == c.known_params;
    if (!duplicate) out.contexts.push_back(std::move(c));
  }
  if (!out.contexts.empty()) {
    out.shape_known = true;
    return out;
  }

  // 2. The per-kernel setting (the user's word: known).
  if (auto it = options.kernel_blocks.find(kernel.name); it != options.kernel_blocks.end()) {
    out.contexts.push_back({it->second, ShapeOrigin::Setting,
                            "the block-shape setting for `" + kernel.name + "`", {}, true});
    out.shape_known = true;
    return out;
  }

  // 3. __launch_bounds__: the thread count, so the shape of a 1-D kernel.
  std::optional<std::int64_t> bound;
  if (kernel.launch_bounds && kernel.launch_bounds->max_threads) bound = kernel.launch_bounds->max_threads;
  std::string why = unresolved.empty() ? "no launch of this kernel in this file" : unresolved;
  if (bound && dims == 1) {
    out.contexts.push_back({{*bound, 1, 1}, ShapeOrigin::LaunchBounds,
                            "`" + kernel.launch_bounds->spelling + "`", {}, true});
    out.shape_known = true;
    return out;
  }

  // 4. The configured default block: the user's word too.
  if (options.default_block) {
    out.contexts.push_back({*options.default_block, ShapeOrigin::Setting, "the default block-shape setting", {}, true});
    out.shape_known = true;
    return out;
  }

  // 5. Guesses.
  bool first = true;
  for (const auto& s : guessed_shapes(dims, bound)) {
    LaunchContext c;
    c.shape = s;
    c.origin = bound ? ShapeOrigin::LaunchBounds : ShapeOrigin::Default;
    std::string what = first ? "the default block " : "the alternative block ";
    c.source = bound ? what + shape_text(s) + " guessed from `" + kernel.launch_bounds->spelling + "` (" + why + ")"
                     : what + shape_text(s) + " (" + why + ")";
    c.primary = first;
    first = false;
    out.contexts.push_back(std::move(c));
  }
  out.shape_known = false;
  return out;
}

}  // namespace warplens
