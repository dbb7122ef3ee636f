#include "analysis/warp_model.h"

#include <algorithm>
#include <bit>
#include <functional>

namespace warplens {

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool node_lane_varying(const Expr& e) {
  // A data_local (Expr::data_local) marked uniform varies when a dependency does.
  if (e.op == ExprOp::Opaque && e.uniform) {
    for (const auto& o : e.operands)
      if (is_lane_varying(o)) return true;
    return false;
  }
  if (e.uniform) return false;
  if (e.op == ExprOp::Opaque) return true;
  if (e.op == ExprOp::Load && e.operands.empty()) return true;
  for (const auto& o : e.operands)
    if (is_lane_varying(o)) return true;
  return false;
}

// Integer functions that real index code calls and that are exactly
// computable per lane.
std::optional<std::int64_t> call_value(const Expr& call, const std::vector<std::optional<std::int64_t>>& args) {
  const std::string& f = call.text;
  auto all = [&] {
    for (const auto& a : args)
      if (!a) return false;
    return !args.empty();
  };
  if (!all()) return std::nullopt;
  auto a0 = *args[0];
  if (args.size() == 2) {
    auto a1 = *args[1];
    if (f == "min" || f == "umin" || f == "imin" || f == "llmin" || f == "std::min" || f == "ullmin")
      return std::min(a0, a1);
    if (f == "max" || f == "umax" || f == "imax" || f == "llmax" || f == "std::max" || f == "ullmax")
      return std::max(a0, a1);
    if (f == "__mul24" || f == "__umul24") return a0 * a1;
  }
  if (args.size() == 1) {
    if (f == "abs" || f == "llabs" || f == "labs" || f == "std::abs") return a0 < 0 ? -a0 : a0;
  }
  return std::nullopt;
}

struct LaneEvaluator {
  const WarpLanes& w;
  const EvalContext& ctx;
  const std::map<const Expr*, std::string>* uniform_loads = nullptr;
  int lane = 0;

  std::optional<std::int64_t> symbol(const Symbol& s) const {
    const ThreadCoord& t = w.thread[lane];
    switch (s.kind) {
      case SymbolKind::ThreadIdx: return s.dim == 0 ? t.x : s.dim == 1 ? t.y : t.z;
      case SymbolKind::BlockDim: return s.dim == 0 ? w.shape.x : s.dim == 1 ? w.shape.y : w.shape.z;
      case SymbolKind::WarpSize: return kWarpSize;
      case SymbolKind::Param:
        if (ctx.known_params) {
          auto it = ctx.known_params->find(s.name);
          if (it != ctx.known_params->end()) return it->second;
        }
        return assumed_value(s.to_string(), ctx.assumption);
      case SymbolKind::Local:
        if (!s.uniform) return std::nullopt;
        return assumed_value(s.to_string(), ctx.assumption, true, ctx.variation);
      case SymbolKind::BlockIdx:
      case SymbolKind::LoopCounter:
        return assumed_value(s.to_string(), ctx.assumption, true, ctx.variation);
      case SymbolKind::GridDim:
        return assumed_value(s.to_string(), ctx.assumption);
      case SymbolKind::Iteration:
        if (ctx.iterations)
          if (auto it = ctx.iterations->find(s.name); it != ctx.iterations->end()) return it->second;
        return 0;
    }
    return std::nullopt;
  }

  std::optional<std::int64_t> opaque(const Expr& e) const {
    if (e.op == ExprOp::Call) {
      std::vector<std::optional<std::int64_t>> args;
      args.reserve(e.operands.size());
      for (const auto& o : e.operands) args.push_back(run(o));
      if (auto v = call_value(e, args)) return v;
    }
    if (uniform_loads)
      if (auto it = uniform_loads->find(&e); it != uniform_loads->end())
        return assumed_value(it->second, ctx.assumption, true, ctx.variation);
    if (ctx.random_draw > 0 && e.op == ExprOp::Load && node_lane_varying(e)) {
      // Per-lane data, drawn at random: the same value for the same load,
      // lane, warp and draw (so a value read twice agrees with itself).
      std::uint64_t h = fnv1a(e.text) ^ (std::uint64_t(lane) * 0x9E3779B97F4A7C15ull) ^
                        (std::uint64_t(w.warp + 1) << 40) ^ (std::uint64_t(ctx.random_draw) << 52);
      if (!e.operands.empty() && e.operands[0])
        if (auto idx = run(e.operands[0])) h ^= std::uint64_t(*idx) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
      h *= 0x94D049BB133111EBull;
      h ^= h >> 29;
      return std::int64_t(h & 0xFFFFFFFFull);
    }
    if (node_lane_varying(e)) return std::nullopt;
    // A warp-uniform value the model cannot compute: a uniform load
    // (`offsets[blockIdx.x]`), an opaque uniform call. It cancels like any
    // other uniform unknown.
    std::string key = e.text;
    if (e.op != ExprOp::Opaque)
      for (const auto& o : e.operands) {
        key.push_back('|');
        key.append(to_string(o));
      }
    return assumed_value(key, ctx.assumption, true, ctx.variation);
  }

  std::optional<std::int64_t> run(const ExprRef& e) const {
    return evaluate(
        e, [this](const Symbol& s) { return symbol(s); }, [this](const Expr& x) { return opaque(x); });
  }
};

// Loads whose index varies between threads but not between the lanes of
// this warp (`row_ptr[gid / 32]`, a warp-per-row kernel): the loaded value
// is warp-uniform, an unknown like blockIdx, keyed by the index value.
void collect_uniform_loads(const ExprRef& e, const WarpLanes& w, const EvalContext& ctx,
                           std::map<const Expr*, std::string>& out) {
  if (!e) return;
  for (const auto& o : e->operands) collect_uniform_loads(o, w, ctx, out);
  if (e->op != ExprOp::Load || e->operands.empty() || !node_lane_varying(*e)) return;
  LaneValues idx = evaluate_lanes(e->operands[0], w, ctx);
  if (idx.known != w.exists || w.exists == 0) return;
  const std::int64_t first = idx.value[std::size_t(std::countr_zero(w.exists))];
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (lane_in(w.exists, lane) && idx.value[std::size_t(lane)] != first) return;
  // Keyed without the variation, so all variations see the same load.
  EvalContext base = ctx;
  base.variation = 0;
  LaneValues base_idx = evaluate_lanes(e->operands[0], w, base);
  out[e.get()] = e->text + "[" + std::to_string(base_idx.value[std::size_t(std::countr_zero(w.exists))]) + "]";
}

// `e` with its warp-uniform subtrees replaced by their value (the same on
// every lane), and whether it still varies per lane (is_lane_varying's
// rule). A Recur's update is kept whole: its `#prev` symbol is not a value.
struct Folded {
  ExprRef e;
  bool varying = true;
};
Folded fold_uniform(const ExprRef& e, const LaneEvaluator& ev) {
  if (!e) return {e, true};
  bool varying = false;
  ExprRef node = e;
  switch (e->op) {
    case ExprOp::Const: return {e, false};
    case ExprOp::Sym: varying = !e->symbol.uniform; break;
    case ExprOp::Opaque: varying = is_lane_varying(e); break;
    default: {
      std::vector<ExprRef> ops;
      ops.reserve(e->operands.size());
      bool changed = false, any = false;
      for (std::size_t i = 0; i < e->operands.size(); ++i) {
        const ExprRef& o = e->operands[i];
        if (e->op == ExprOp::Recur && i == 1) {
          ops.push_back(o);
          any = any || is_lane_varying(o);
          continue;
        }
        Folded f = fold_uniform(o, ev);
        changed = changed || f.e != o;
        any = any || f.varying;
        ops.push_back(f.e);
      }
      if (e->op == ExprOp::Load || e->op == ExprOp::Call)
        varying = !e->uniform && (any || (e->op == ExprOp::Load && e->operands.empty()));
      else
        varying = any;
      if (changed) {
        Expr copy = *e;
        copy.operands = std::move(ops);
        node = std::make_shared<const Expr>(std::move(copy));
      }
    }
  }
  if (!varying)
    if (auto v = ev.run(node)) return {Expr::constant(*v), false};
  return {node, varying};
}

bool has_varying_load(const ExprRef& e) {
  if (!e) return false;
  if (e->op == ExprOp::Load && node_lane_varying(*e)) return true;
  for (const auto& o : e->operands)
    if (has_varying_load(o)) return true;
  return false;
}

}  // namespace

int lane_count(LaneMask m) { return std::popcount(m); }

std::vector<std::string> iteration_symbols(const ExprRef& e) {
  std::vector<std::string> out;
  std::function<void(const ExprRef&)> walk = [&](const ExprRef& x) {
    if (!x || int(out.size()) >= kMaxSampledLoops) return;
    if (x->op == ExprOp::Sym && x->symbol.kind == SymbolKind::Iteration &&
        std::find(out.begin(), out.end(), x->symbol.name) == out.end())
      out.push_back(x->symbol.name);
    for (const auto& o : x->operands) walk(o);
  };
  walk(e);
  return out;
}

WarpLanes warp_lanes(const BlockShape& shape, int warp) {
  WarpLanes w;
  w.shape = shape;
  w.warp = warp;
  const std::int64_t bx = std::max<std::int64_t>(shape.x, 1);
  const std::int64_t by = std::max<std::int64_t>(shape.y, 1);
  const std::int64_t total = shape.threads();
  for (int lane = 0; lane < kWarpSize; ++lane) {
    std::int64_t tid = std::int64_t(warp) * kWarpSize + lane;
    ThreadCoord& t = w.thread[lane];
    t.x = tid % bx;
    t.y = (tid / bx) % by;
    t.z = tid / (bx * by);
    if (tid < total) w.exists |= (1u << lane);
  }
  return w;
}

int warps_per_block(const BlockShape& shape) {
  return int((shape.threads() + kWarpSize - 1) / kWarpSize);
}

std::vector<int> representative_warps(const BlockShape& shape) {
  std::vector<int> warps{0};
  if (shape.x % kWarpSize != 0 && warps_per_block(shape) > 1) warps.push_back(1);
  return warps;
}

std::int64_t assumed_value(const std::string& key, Assumption a, bool position, int variation) {
  std::uint64_t h = fnv1a(key);
  std::int64_t offset = 0;
  if (position && variation) offset = (std::int64_t(variation) * std::int64_t(1 + 2 * ((h >> 16) % 2))) % kVariations;
  // Sizes are far larger than positions, so a position stays inside the
  // sizes it indexes (a clamp `min(x, W - 1)` does not saturate, a block
  // index times a tile stays below the row length).
  const std::int64_t unit = position ? kPositionUnit : kSizeUnit;
  switch (a) {
    case Assumption::LargeA: return unit * std::int64_t(1 + h % 8) + offset;
    case Assumption::LargeB: return unit * std::int64_t(9 + (h >> 8) % 8) + offset;
    case Assumption::Small: return 1 + 2 * std::int64_t(h % 3);
    case Assumption::Edge: return position ? 0 : 32;
  }
  return unit;
}

LaneValues evaluate_lanes(const ExprRef& e, const WarpLanes& w, const EvalContext& ctx) {
  LaneValues out;
  if (!e || w.exists == 0) return out;
  // The warp-uniform parts once, not once per lane (a Recur walking a loop's
  // iterations is the expensive case).
  LaneEvaluator first{w, ctx, nullptr, std::countr_zero(w.exists)};
  const ExprRef folded = fold_uniform(e, first).e;
  std::map<const Expr*, std::string> uniform_loads;
  if (has_varying_load(folded)) collect_uniform_loads(folded, w, ctx, uniform_loads);
  LaneEvaluator ev{w, ctx, uniform_loads.empty() ? nullptr : &uniform_loads};
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!lane_in(w.exists, lane)) continue;
    ev.lane = lane;
    if (auto v = ev.run(folded)) {
      out.value[lane] = *v;
      out.known |= (1u << lane);
    }
  }
  return out;
}

ConditionLanes classify_condition(const ExprRef& cond, const WarpLanes& w, LaneMask lanes,
                                  const EvalContext& ctx) {
  ConditionLanes r;
  r.considered = lanes & w.exists;
  if (!cond || r.considered == 0) return r;
  LaneMask truth[3] = {0, 0, 0};
  const Assumption order[3] = {Assumption::LargeA, Assumption::LargeB, Assumption::Small};
  for (int i = 0; i < 3; ++i) {
    EvalContext c = ctx;
    c.assumption = order[i];
    LaneValues v = evaluate_lanes(cond, w, c);
    if ((v.known & r.considered) != r.considered) return r;  // Unknown
    for (int lane = 0; lane < kWarpSize; ++lane)
      if (lane_in(r.considered, lane) && v.value[lane] != 0) truth[i] |= (1u << lane);
  }
  auto uniform = [&](LaneMask t) { return t == 0 || t == r.considered; };
  r.true_lanes = truth[0];
  for (int i = 0; i < 3; ++i) r.true_count[std::size_t(i)] = lane_count(truth[i]);
  r.splits_under_large = !uniform(truth[0]) && !uniform(truth[1]);
  r.count_stable = lane_count(truth[0]) == lane_count(truth[1]) && lane_count(truth[0]) == lane_count(truth[2]);
  if (uniform(truth[0]) && uniform(truth[1]) && uniform(truth[2]))
    r.split = LaneSplit::Uniform;
  else if (truth[0] == truth[1] && truth[1] == truth[2])
    r.split = LaneSplit::Split;
  else
    r.split = LaneSplit::ValueDependent;
  return r;
}

LaneMask active_lanes(const std::vector<LaneGuard>& guards, const WarpLanes& w, const EvalContext& ctx) {
  LaneMask mask = w.exists;
  for (const auto& g : guards) {
    if (mask == 0) break;
    ConditionLanes c = classify_condition(g.condition, w, mask, ctx);
    if (c.split != LaneSplit::Split) continue;
    mask &= g.taken ? c.true_lanes : (c.considered & ~c.true_lanes);
  }
  return mask;
}

bool guards_cut_edge_warps(const std::vector<LaneGuard>& guards, const WarpLanes& w, const EvalContext& ctx) {
  EvalContext edge = ctx;
  edge.assumption = Assumption::Edge;
  edge.variation = 0;
  edge.known_params = nullptr;
  // Each conjunct alone: in `x > 0 && y > 0` the first block row is switched
  // off whole by `y > 0`, but every row's first warp loses lane 0 to `x > 0`.
  std::vector<ExprRef> conjuncts;
  std::function<void(const ExprRef&)> split = [&](const ExprRef& e) {
    if (e && e->op == ExprOp::LogicalAnd) {
      split(e->operands[0]);
      split(e->operands[1]);
    } else if (e) {
      conjuncts.push_back(e);
    }
  };
  for (const auto& g : guards) split(g.condition);
  for (const auto& cond : conjuncts) {
    if (!is_lane_varying(cond)) continue;
    LaneValues v = evaluate_lanes(cond, w, edge);
    if ((v.known & w.exists) != w.exists || w.exists == 0) continue;
    const bool first = v.value[std::size_t(std::countr_zero(w.exists))] != 0;
    for (int lane = 0; lane < kWarpSize; ++lane)
      if (lane_in(w.exists, lane) && (v.value[std::size_t(lane)] != 0) != first) return true;
  }
  return false;
}

AccessLanes evaluate_access(const ExprRef& byte_offset, const std::vector<LaneGuard>& guards,
                            const WarpLanes& w, const EvalContext& ctx) {
  AccessLanes r;
  if (!byte_offset) return r;
  r.active = active_lanes(guards, w, ctx);
  if (r.active == 0) return r;
  EvalContext a = ctx, b = ctx;
  a.assumption = Assumption::LargeA;
  b.assumption = Assumption::LargeB;
  r.offsets = evaluate_lanes(byte_offset, w, a);
  if ((r.offsets.known & r.active) != r.active) return r;
  LaneValues vb = evaluate_lanes(byte_offset, w, b);
  if ((vb.known & r.active) != r.active) return r;
  r.modelled = true;
  int first = std::countr_zero(r.active);
  for (int lane = first + 1; lane < kWarpSize; ++lane) {
    if (!lane_in(r.active, lane)) continue;
    if (r.offsets.value[lane] - r.offsets.value[first] != vb.value[lane] - vb.value[first]) {
      r.depends_on_unknown = true;
      break;
    }
  }
  return r;
}

int access_chunk_bytes(int element_bytes, int element_align) {
  if (element_bytes <= 0) return 1;
  int align = element_align > 0 ? element_align : (element_bytes & -element_bytes);
  int chunk = std::min({align, 16, element_bytes});
  while (chunk > 1 && element_bytes % chunk != 0) chunk /= 2;
  return std::max(chunk, 1);
}

LaneValues shifted(const LaneValues& v, std::int64_t delta) {
  LaneValues out = v;
  for (auto& x : out.value) x += delta;
  return out;
}

std::int64_t sector_of(std::int64_t byte_offset) { return floor_div(byte_offset, kSectorBytes); }

SectorCount count_sectors(const LaneValues& offsets, LaneMask active, int element_bytes) {
  SectorCount r;
  const int bytes = std::max(element_bytes, 1);
  std::vector<std::int64_t> sectors;
  sectors.reserve(kWarpSize * 2);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!lane_in(active, lane)) continue;
    ++r.active;
    std::int64_t first = sector_of(offsets.value[lane]);
    std::int64_t last = sector_of(offsets.value[lane] + bytes - 1);
    for (std::int64_t s = first; s <= last; ++s) sectors.push_back(s);
  }
  std::sort(sectors.begin(), sectors.end());
  r.sectors = int(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
  r.ideal = int((std::int64_t(r.active) * bytes + kSectorBytes - 1) / kSectorBytes);
  return r;
}

int bank_of(std::int64_t byte_offset) {
  std::int64_t word = floor_div(byte_offset, kBankWidthBytes);
  return int(((word % kBankCount) + kBankCount) % kBankCount);
}

WavefrontCount count_wavefronts(const LaneValues& offsets, LaneMask active, int element_bytes) {
  WavefrontCount r;
  const int bytes = std::max(element_bytes, 1);
  r.phase_lanes = bytes <= 4 ? 32 : bytes <= 8 ? 16 : 8;
  const int phases = kWarpSize / r.phase_lanes;
  int worst = -1;
  for (int p = 0; p < phases; ++p) {
    std::array<std::vector<std::int64_t>, kBankCount> words;
    int phase_active = 0;
    for (int lane = p * r.phase_lanes; lane < (p + 1) * r.phase_lanes; ++lane) {
      if (!lane_in(active, lane)) continue;
      ++phase_active;
      std::int64_t first = floor_div(offsets.value[lane], kBankWidthBytes);
      std::int64_t last = floor_div(offsets.value[lane] + bytes - 1, kBankWidthBytes);
      for (std::int64_t word = first; word <= last; ++word) {
        auto& slot = words[std::size_t(((word % kBankCount) + kBankCount) % kBankCount)];
        if (std::find(slot.begin(), slot.end(), word) == slot.end()) slot.push_back(word);
      }
    }
    if (phase_active == 0) continue;
    int busiest = 0;
    for (const auto& slot : words) busiest = std::max(busiest, int(slot.size()));
    r.wavefronts += busiest;
    r.ideal += std::max(1, (phase_active * bytes + kBankCount * kBankWidthBytes - 1) /
                               (kBankCount * kBankWidthBytes));
    if (busiest > worst) {
      worst = busiest;
      r.worst_phase = p;
      for (int b = 0; b < kBankCount; ++b) r.words_per_bank[b] = int(words[b].size());
    }
  }
  r.degree = std::max(worst, 1);
  return r;
}

SectorCount count_access_sectors(const LaneValues& offsets, LaneMask active, int element_bytes, int element_align) {
  const int bytes = std::max(element_bytes, 1);
  const int chunk = access_chunk_bytes(bytes, element_align);
  SectorCount total;
  for (int piece = 0; piece < bytes / chunk; ++piece) {
    SectorCount sc = count_sectors(shifted(offsets, std::int64_t(piece) * chunk), active, chunk);
    total.sectors += sc.sectors;
    total.ideal += sc.ideal;
    total.active = sc.active;
  }
  return total;
}

WavefrontCount count_access_wavefronts(const LaneValues& offsets, LaneMask active, int element_bytes,
                                       int element_align) {
  const int bytes = std::max(element_bytes, 1);
  const int chunk = access_chunk_bytes(bytes, element_align);
  WavefrontCount total;
  int wavefronts = 0, ideal = 0;
  for (int piece = 0; piece < bytes / chunk; ++piece) {
    WavefrontCount wc = count_wavefronts(shifted(offsets, std::int64_t(piece) * chunk), active, chunk);
    if (piece == 0 || wc.degree > total.degree) total = wc;
    wavefronts += wc.wavefronts;
    ideal += wc.ideal;
  }
  total.wavefronts = wavefronts;
  total.ideal = ideal;
  return total;
}

}  // namespace warplens
