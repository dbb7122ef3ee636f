#include "analysis/launch_contexts.h"

#include <algorithm>
#include <cctype>

#include "analysis/shape_inference.h"

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

// Contexts from the shape the shared tiles imply (shape_inference.h): a 2-D
// tile indexed [threadIdx.y][threadIdx.x] gives the shape; its width alone
// narrows the guesses; a 1-D tile gives the first 1-D guess. False when the
// tiles say nothing (or contradict `__launch_bounds__`' thread count).
bool inferred_contexts(const KernelView& view, int dims, std::optional<std::int64_t> threads, const std::string& why,
                       KernelContexts& out) {
  if (dims > 2) return false;
  auto inferred = infer_block_shape(view);
  if (!inferred) return false;
  const std::string from = " implied by " + inferred->evidence + " (" + why + ")";
  if (dims == 2 && inferred->from_2d_tile && inferred->y) {
    BlockShape s{*inferred->x, *inferred->y, 1};
    if (threads && s.threads() != *threads) return false;
    out.contexts.push_back({s, ShapeOrigin::Inferred, "the block " + format_block_shape(s) + from, {}, true});
    out.shape_known = true;
    return true;
  }
  std::vector<BlockShape> shapes;
  auto add = [&](std::int64_t x, std::int64_t y) {
    BlockShape s{x, y, 1};
    if (x < 1 || y < 1 || s.threads() > 1024 || (threads && s.threads() != *threads)) return;
    if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) shapes.push_back(s);
  };
  const std::int64_t x = *inferred->x;
  if (dims == 2 && inferred->from_2d_tile) {
    if (threads && *threads % x == 0) add(x, *threads / x);
    for (std::int64_t y : {std::int64_t(8), std::int64_t(16), std::int64_t(32), 256 / x}) add(x, y);
  } else if (dims == 1) {
    add(x, 1);
    for (std::int64_t t : {256, 128, 1024}) add(t, 1);
  }
  if (shapes.empty()) return false;
  bool first = true;
  for (const auto& s : shapes) {
    std::string what = first ? "the guessed block " : "the alternative block ";
    out.contexts.push_back({s, ShapeOrigin::Inferred, what + format_block_shape(s) + " (width" + from + ")", {}, first});
    first = false;
  }
  out.shape_known = false;
  return true;
}

}  // namespace

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
  const BlockShapeResolution res = resolve_block_shapes(model, kernel, options);
  std::string why = "no launch of this kernel in this file";
  if (!res.unresolved_launches.empty()) {
    const LaunchSite& l = model.launches[std::size_t(res.unresolved_launches.front())];
    why = "the launch at line " + std::to_string(l.range.start.line + 1) + " has the non-constant block `" +
          l.block.spelling + "`";
  }

  switch (res.source) {
    case BlockShapeSource::LaunchSite:
      // One context per distinct (shape, literal arguments).
      for (const auto& cand : res.candidates)
        for (int li : cand.launch_indices) {
          const LaunchSite& l = model.launches[std::size_t(li)];
          LaunchContext c;
          c.shape = cand.shape;
          c.origin = ShapeOrigin::LaunchSite;
          c.source = "the launch at line " + std::to_string(l.range.start.line + 1) + " (block `" +
                     l.block.spelling + "`)";
          c.known_params = literal_params(l, kernel);
          bool duplicate = false;
          for (const auto& o : out.contexts) duplicate |= o.shape == c.shape && o.known_params == c.known_params;
          // Every context multiplies the work; a file with dozens of launches
          // of one kernel is judged by its first distinct few.
          if (!duplicate && out.contexts.size() < kMaxLaunchContexts) out.contexts.push_back(std::move(c));
        }
      out.shape_known = true;
      return out;
    case BlockShapeSource::KernelSetting:
    case BlockShapeSource::DefaultSetting:
      for (const auto& cand : res.candidates)
        out.contexts.push_back({cand.shape, ShapeOrigin::Setting, "the " + cand.description, {}, true});
      out.shape_known = true;
      return out;
    case BlockShapeSource::LaunchBounds: {
      const BlockShapeCandidate& cand = res.candidates.front();
      if (dims == 1) {
        // N threads of a kernel that only uses threadIdx.x: N x 1 x 1.
        out.contexts.push_back({cand.shape, ShapeOrigin::LaunchBounds, "`" + cand.description + "`", {}, true});
        out.shape_known = true;
        return out;
      }
      if (inferred_contexts(view, dims, cand.shape.threads(), why, out)) return out;
      bool first = true;
      for (const auto& s : guessed_shapes(dims, cand.shape.threads())) {
        std::string what = first ? "the block " : "the alternative block ";
        out.contexts.push_back({s, ShapeOrigin::LaunchBounds,
                                what + format_block_shape(s) + " guessed from `" + cand.description + "` (" + why + ")",
                                {}, first});
        first = false;
      }
      out.shape_known = false;
      return out;
    }
    case BlockShapeSource::BuiltinDefault: break;
  }
  if (inferred_contexts(view, dims, std::nullopt, why, out)) return out;
  bool first = true;
  for (const auto& s : guessed_shapes(dims, std::nullopt)) {
    std::string what = first ? "the default block " : "the alternative block ";
    out.contexts.push_back({s, ShapeOrigin::Default, what + format_block_shape(s) + " (" + why + ")", {}, first});
    first = false;
  }
  out.shape_known = false;
  return out;
}

}  // namespace warplens
