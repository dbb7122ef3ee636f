#include "analysis/divergence.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "analysis/lane_pattern.h"
#include "analysis/warp_model.h"

namespace warplens {

namespace {

bool is_comparison(ExprOp op) {
  return op == ExprOp::Lt || op == ExprOp::Le || op == ExprOp::Gt || op == ExprOp::Ge || op == ExprOp::Eq ||
         op == ExprOp::Ne;
}

bool is_ordering(ExprOp op) {
  return op == ExprOp::Lt || op == ExprOp::Le || op == ExprOp::Gt || op == ExprOp::Ge;
}

// An ordering whose two sides differ by a polynomial: monotone along the
// lanes of a warp, so it splits at most the warp where the threshold lies.
// A warp-uniform loop value walking by factors (`d >>= 1`: a Recur) is, for
// the ordering test, one more uniform unknown; so is a warp-uniform load
// (`tid < len` with `len` a __shared__ scalar thread 0 wrote).
ExprRef uniform_recurs_as_symbols(const ExprRef& e) {
  if (!e) return e;
  if (e->op == ExprOp::Recur && !is_lane_varying(e)) return Expr::sym({SymbolKind::Local, 0, e->text, true});
  if ((e->op == ExprOp::Load || e->op == ExprOp::Call) && !is_lane_varying(e))
    return Expr::sym({SymbolKind::Local, 0, to_string(e), true});
  if (e->operands.empty()) return e;
  bool changed = false;
  Expr copy = *e;
  for (auto& o : copy.operands) {
    ExprRef n = uniform_recurs_as_symbols(o);
    changed = changed || n != o;
    o = n;
  }
  return changed ? std::make_shared<const Expr>(std::move(copy)) : e;
}

bool boundary_only(const ExprRef& cond) {
  if (!cond) return false;
  if (cond->op == ExprOp::LogicalAnd || cond->op == ExprOp::LogicalOr)
    return boundary_only(cond->operands[0]) && boundary_only(cond->operands[1]);
  if (!is_ordering(cond->op)) return false;
  return to_polynomial(Expr::binary(ExprOp::Sub, uniform_recurs_as_symbols(cond->operands[0]),
                                    uniform_recurs_as_symbols(cond->operands[1])))
      .has_value();
}

// `__syncwarp(mask)` with a mask other than all lanes synchronises only the
// lanes it names; the model does not track masks, so it judges only the
// full-warp form.
bool full_warp_sync(const Barrier& b) {
  if (b.kind != BarrierKind::SyncWarp) return true;
  auto open = b.spelling.find('(');
  auto close = b.spelling.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close <= open) return true;
  std::string arg;
  for (char ch : b.spelling.substr(open + 1, close - open - 1))
    if (!std::isspace(static_cast<unsigned char>(ch))) arg.push_back(char(std::tolower(static_cast<unsigned char>(ch))));
  return arg.empty() || arg == "0xffffffff" || arg == "0xffffffffu" || arg == "-1" || arg == "~0" || arg == "~0u";
}

bool per_thread_symbol(const Symbol& s) {
  return s.kind == SymbolKind::ThreadIdx || (s.kind == SymbolKind::Local && !s.uniform);
}

// Can the value of `cond` differ between threads of one block?
//
// Evaluating at stand-in values is not enough here: `i < n` with i starting
// at threadIdx.x puts every thread on one side for almost any stand-in of n
// and the loop counter, yet some block straddles the boundary. So a
// comparison whose two sides differ by a polynomial with a per-thread term
// is thread-dependent; anything else is evaluated over the whole block.
bool thread_dependent(const ExprRef& cond, const KernelContexts& contexts) {
  if (!cond || !is_lane_varying(cond)) return false;
  switch (cond->op) {
    case ExprOp::LogicalAnd:
    case ExprOp::LogicalOr:
      return thread_dependent(cond->operands[0], contexts) || thread_dependent(cond->operands[1], contexts);
    case ExprOp::LogicalNot: return thread_dependent(cond->operands[0], contexts);
    default: break;
  }
  if (is_comparison(cond->op)) {
    auto diff = to_polynomial(Expr::binary(ExprOp::Sub, uniform_recurs_as_symbols(cond->operands[0]),
                                           uniform_recurs_as_symbols(cond->operands[1])));
    if (diff) {
      for (const auto& [monomial, coeff] : diff->terms)
        for (const auto& s : monomial)
          if (per_thread_symbol(s)) return true;
      return false;
    }
  }
  for (const auto& ctx : contexts.contexts) {
    const int warps = std::min(warps_per_block(ctx.shape), 32);
    for (Assumption a : {Assumption::LargeA, Assumption::LargeB, Assumption::Small}) {
      EvalContext ec{ctx.shape, a, &ctx.known_params};
      std::optional<bool> seen;
      for (int wi = 0; wi < warps; ++wi) {
        WarpLanes w = warp_lanes(ctx.shape, wi);
        LaneValues v = evaluate_lanes(cond, w, ec);
        if ((v.known & w.exists) != w.exists) return true;  // per-thread data
        for (int lane = 0; lane < kWarpSize; ++lane) {
          if (!lane_in(w.exists, lane)) continue;
          bool t = v.value[lane] != 0;
          if (!seen) seen = t;
          else if (*seen != t) return true;
        }
      }
    }
  }
  return false;
}

// Does `cond` split the lanes of some warp (not only at a boundary)?
bool splits_warp_lanes(const ExprRef& cond, const KernelContexts& contexts) {
  if (!cond || !is_lane_varying(cond)) return false;
  for (const auto& ctx : contexts.contexts) {
    EvalContext ec{ctx.shape, Assumption::LargeA, &ctx.known_params};
    for (int wi : representative_warps(ctx.shape)) {
      WarpLanes w = warp_lanes(ctx.shape, wi);
      ConditionLanes c = classify_condition(cond, w, w.exists, ec);
      if (c.split == LaneSplit::Split || c.splits_under_large) return true;
      if (c.split == LaneSplit::Unknown) return true;  // per-lane data
    }
  }
  return false;
}

std::string line_of(const Range& r) { return std::to_string(r.start.line + 1); }

bool inside_loop_with(const BoundBarrier& b, const BoundGuard& g) {
  const Condition& c = g.source();
  for (const auto& l : b.loops) {
    if (l.owner != g.owner || l.loop_id < 0) continue;
    const Range& lr = l.source().range;
    if (lr.contains(c.statement_range.start)) return true;
  }
  return false;
}

const char* barrier_name(const Barrier& b) {
  switch (b.kind) {
    case BarrierKind::SyncThreads: return "__syncthreads()";
    case BarrierKind::SyncWarp: return "__syncwarp()";
    case BarrierKind::CooperativeGroup: return "the cooperative-groups sync";
  }
  return "the barrier";
}

struct BarrierProblem {
  Severity severity = Severity::Error;
  std::string message;
  std::string why;
  Location related;
  std::string related_message;
};

}  // namespace

std::vector<Finding> find_divergent_barriers(const KernelView& view, const KernelContexts& contexts,
                                             const std::string& file) {
  std::vector<Finding> out;
  for (const auto& b : view.barriers) {
    const Barrier& bar = *b.barrier;
    const std::string name = bar.spelling.empty() ? barrier_name(bar) : "`" + bar.spelling + "`";
    const bool warp_level = bar.kind == BarrierKind::SyncWarp;
    if (!full_warp_sync(bar)) continue;
    // The guards plus the exit conditions of enclosing loops, once each.
    std::vector<BoundGuard> conditions = b.guards;
    std::set<std::pair<const Function*, int>> seen;
    for (const auto& g : b.guards) seen.insert({g.owner, g.condition_id});
    for (const auto& l : b.loops) {
      int cid = l.source().condition;
      if (cid < 0 || !seen.insert({l.owner, cid}).second) continue;
      BoundGuard g;
      g.owner = l.owner;
      g.condition_id = cid;
      g.condition = l.exit_condition;
      g.taken = true;
      conditions.push_back(g);
    }

    std::optional<BarrierProblem> problem;
    for (const auto& g : conditions) {
      if (g.condition_id < 0 || !g.owner) continue;
      const Condition& c = g.source();
      bool dependent = warp_level ? splits_warp_lanes(g.condition, contexts) : thread_dependent(g.condition, contexts);
      if (!dependent) continue;
      BarrierProblem p;
      p.related = {file_of(*g.owner, file), c.statement_range.empty() ? c.range : c.statement_range};
      const std::string cond = "`" + c.spelling + "`";
      const char* who = warp_level ? "lanes of a warp" : "threads of a block";
      if (c.kind == ConditionKind::EarlyExit && !inside_loop_with(b, g)) {
        p.severity = Severity::Warning;
        p.message = name + " after a thread-dependent early exit (" + cond + ", line " + line_of(c.range) +
                    "): the threads that left never arrive";
        p.why = "The exited threads do not reach the barrier. The CUDA programming guide makes this undefined; "
                "on sm_70 and later exited threads no longer count toward the barrier, so it usually works, "
                "but any shared-memory elements the exited threads were meant to store are missing. Prefer "
                "guarding the work, not the thread: `if (i < n) { ... }` around the loads and stores, with "
                "the barrier outside.";
        p.related_message = "thread-dependent early exit";
      } else if (c.kind == ConditionKind::EarlyExit) {
        p.message = name + " in a loop after a thread-dependent early exit (" + cond + ", line " +
                    line_of(c.range) + "): the remaining threads reach more barriers than those that left";
        p.why = "A `break`, `continue` or `return` taken by some threads inside the loop makes the threads "
                "execute different numbers of barriers: undefined behaviour, in practice a hang or a race.";
        p.related_message = "thread-dependent exit from the loop";
      } else if (c.kind == ConditionKind::LoopExit) {
        p.message = name + " inside a loop whose trip count depends on the thread (" + cond +
                    "): threads leave the loop after different numbers of barriers";
        p.why = std::string("The loop condition differs between ") + who +
                ", so some leave the loop while others still wait at the barrier: undefined behaviour, in "
                "practice a hang or a race. Make the trip count uniform (loop to a bound rounded up to the "
                "block size and guard the body instead).";
        p.related_message = "loop condition that depends on the thread";
      } else {
        p.message = name + " under a thread-dependent condition (" + cond + "): " +
                    (warp_level ? "lanes" : "threads") + " for which it is false skip the barrier";
        p.why = std::string("A barrier must be reached by all ") + who +
                " or by none. Threads that skip it never arrive: undefined behaviour, in practice a hang "
                "or a race. Move the barrier out of the condition.";
        p.related_message = "condition that depends on the thread";
      }
      if (!problem || int(p.severity) < int(problem->severity)) problem = std::move(p);
      if (problem->severity == Severity::Error) break;
    }
    if (!problem) continue;

    Finding f;
    f.code = codes::kDivergentBarrier;
    f.severity = problem->severity;
    f.location = {file_of(*b.owner, file), bar.range};
    f.kernel = view.kernel->key;
    f.message = problem->message;
    if (!b.via.empty()) f.message += " (in kernel `" + view.kernel->name + "`, " + describe_chain(b.via) + ")";
    f.related.push_back({problem->related, problem->related_message});
    for (auto& r : call_chain_related(b.via, b.via_in, file)) f.related.push_back(std::move(r));
    f.explanation_markdown = "**Divergent barrier**: " + problem->message + "\n\n" + problem->why;
    f.data.set("barrier", std::string(barrier_name(bar)));
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> find_warp_divergence(const KernelView& view, const KernelContexts& contexts,
                                          const std::string& file) {
  std::vector<Finding> out;
  for (const auto& bc : view.conditions) {
    const Condition& c = bc.source();
    if (c.kind != ConditionKind::If && c.kind != ConditionKind::EarlyExit && c.kind != ConditionKind::Switch)
      continue;
    if (!bc.expr || !is_lane_varying(bc.expr)) continue;
    std::vector<LaneGuard> outer = lane_guards(bc.outer_guards);

    bool divergent = false, stable = true, single_lane = false;
    int taken = 0, considered = 0, cases = 0;
    const LaunchContext* used = nullptr;
    for (const auto& ctx : contexts.contexts) {
      EvalContext ec{ctx.shape, Assumption::LargeA, &ctx.known_params};
      for (int wi : representative_warps(ctx.shape)) {
        WarpLanes w = warp_lanes(ctx.shape, wi);
        LaneMask lanes = active_lanes(outer, w, ec);
        if (lane_count(lanes) < 2) continue;
        if (c.kind == ConditionKind::Switch) {
          // Lanes that disagree on the switch value take different cases.
          std::set<std::int64_t> a_values, b_values;
          EvalContext eb = ec;
          eb.assumption = Assumption::LargeB;
          LaneValues va = evaluate_lanes(bc.expr, w, ec), vb = evaluate_lanes(bc.expr, w, eb);
          if ((va.known & lanes) != lanes || (vb.known & lanes) != lanes) continue;
          for (int l = 0; l < kWarpSize; ++l)
            if (lane_in(lanes, l)) {
              a_values.insert(va.value[l]);
              b_values.insert(vb.value[l]);
            }
          if (a_values.size() > 1 && b_values.size() > 1) {
            divergent = true;
            cases = std::max(cases, int(a_values.size()));
            used = &ctx;
          }
          continue;
        }
        ConditionLanes cl = classify_condition(bc.expr, w, lanes, ec);
        if (cl.split == LaneSplit::Unknown || cl.split == LaneSplit::Uniform) continue;
        // `i < n`, `2 * s * tid < blockDim.x`: an ordering of an affine lane
        // function against a value the model does not know splits lanes only
        // in the one warp where the threshold falls.
        if (cl.split == LaneSplit::ValueDependent && boundary_only(bc.expr)) continue;
        // Under the assumptions that split the warp: is it more than one lane
        // against the rest (`if (lane == 0)`, the one-result-per-warp idiom)?
        const int n = lane_count(cl.considered);
        bool splits = false, wide = false;
        for (int t : cl.true_count) {
          if (t == 0 || t == n) continue;
          splits = true;
          wide |= std::min(t, n - t) >= 2;
        }
        if (!splits) continue;
        if (!wide) {
          single_lane = true;
          continue;
        }
        const int t = cl.split == LaneSplit::Split ? lane_count(cl.true_lanes) : -1;
        if (!divergent || (t >= 0 && (taken < 0 || std::abs(2 * t - n) < std::abs(2 * taken - considered)))) {
          taken = t;
          considered = n;
          stable = cl.split == LaneSplit::Split;
          used = &ctx;
        }
        divergent = true;
      }
    }
    (void)single_lane;
    if (!divergent || !used) continue;

    Finding f;
    f.code = codes::kWarpDivergence;
    f.severity = Severity::Hint;
    f.location = {file_of(*bc.owner, file), c.range};
    f.related = call_chain_related(bc.via, bc.via_in, file);
    f.kernel = view.kernel->key;
    std::ostringstream msg, md;
    if (c.kind == ConditionKind::Switch) {
      msg << "`switch (" << c.spelling << ")` sends the lanes of a warp to " << cases
          << " different cases, which run one after another";
    } else {
      msg << "branch on `" << c.spelling << "` splits warps: ";
      if (stable) {
        msg << taken << " of " << considered << " lanes (" << (100 * taken + considered / 2) / considered
            << "%) take it, " << considered - taken << " do not";
      } else {
        msg << "how many lanes take it depends on values not known statically";
      }
      msg << "; both sides run one after the other";
    }
    if (!bc.via.empty()) msg << " (in kernel `" << view.kernel->name << "`, " << describe_chain(bc.via) << ")";
    f.message = msg.str();
    md << "**Warp divergence**: " << f.message << ".\n\n"
       << "The 32 lanes of a warp execute one instruction stream. When a condition differs between lanes, "
          "the warp runs the taken side with the other lanes masked off, then the other side: each side "
          "costs the whole warp's time. Evaluated with block shape **"
       << format_block_shape(used->shape) << "** from " << used->source
       << ".\n\nIf the work per side is large, map the condition to whole warps instead (e.g. `(tid / 32) % 2` "
          "rather than `tid % 2`), or compact the active work onto the first lanes.";
    f.explanation_markdown = md.str();
    if (c.kind != ConditionKind::Switch && stable) {
      f.data.set("lanes_taken", std::int64_t(taken));
      f.data.set("lanes", std::int64_t(considered));
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace warplens
