// See window_plan.h.
#include "agent/rewrites/window_plan.h"

#include <map>
#include <set>

#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

constexpr std::int64_t kMaxSpan = 16;
constexpr std::int64_t kMaxLineSpan = 64;

// The read's index as a polynomial, each clamp of a coordinate replaced by
// the coordinate it clamps (the cell the read stands for), the clamps kept.
struct WindowIndex {
  Polynomial unclamped;
  std::vector<Clamp> clamps;
};

std::optional<WindowIndex> window_index(const ExprRef& flat) {
  WindowIndex w;
  auto same = [](const std::optional<Polynomial>& a, const std::optional<Polynomial>& b) {
    return a && b && (*a - *b).terms.empty();
  };
  // `v OP b` or `b OP v` as (OP with v on the left, b), for the comparisons.
  auto compare = [&](const ExprRef& c, const Polynomial& v) -> std::optional<std::pair<std::string, ExprRef>> {
    if (c->operands.size() != 2) return std::nullopt;
    static const std::map<ExprOp, std::pair<std::string, std::string>> ops = {
        {ExprOp::Lt, {"<", ">"}}, {ExprOp::Le, {"<=", ">="}}, {ExprOp::Gt, {">", "<"}}, {ExprOp::Ge, {">=", "<="}}};
    auto it = ops.find(c->op);
    if (it == ops.end()) return std::nullopt;
    if (same(to_polynomial(c->operands[0]), v)) return std::make_pair(it->second.first, c->operands[1]);
    if (same(to_polynomial(c->operands[1]), v)) return std::make_pair(it->second.second, c->operands[0]);
    return std::nullopt;
  };
  auto chain = [&](const ExprRef& e) -> std::optional<Symbol> {
    if (e->op != ExprOp::Select || e->operands.size() != 3) return std::nullopt;
    const ExprRef& inner_select = e->operands[2];
    if (inner_select->op != ExprOp::Select || inner_select->operands.size() != 3) return std::nullopt;
    auto v = to_polynomial(inner_select->operands[2]);
    if (!v || is_uniform(*v)) return std::nullopt;
    auto c1 = compare(e->operands[0], *v), c2 = compare(inner_select->operands[0], *v);
    if (!c1 || !c2) return std::nullopt;
    auto b1 = to_polynomial(e->operands[1]), b2 = to_polynomial(inner_select->operands[1]);
    if (!b1 || !b2 || !is_uniform(*b1) || !is_uniform(*b2) || !same(to_polynomial(c1->second), b1) ||
        !same(to_polynomial(c2->second), b2))
      return std::nullopt;
    const bool lo_first = c1->first[0] == '<';
    if (lo_first == (c2->first[0] == '<')) return std::nullopt;  // both bounds on one side
    Clamp c;
    c.symbol = Symbol{SymbolKind::Local, 0, "clamp#" + std::to_string(w.clamps.size()), false};
    c.inner = *v;
    c.form = Clamp::Form::Chain;
    c.lo_first = lo_first;
    c.first_op = c1->first;
    c.second_op = c2->first;
    c.lo = lo_first ? *b1 : *b2;
    c.hi = lo_first ? *b2 : *b1;
    w.clamps.push_back(c);
    return c.symbol;
  };
  auto atom = [&](const ExprRef& e) -> std::optional<Symbol> {
    if (e->op == ExprOp::Select) return chain(e);
    if ((e->op != ExprOp::Min && e->op != ExprOp::Max) || e->operands.size() != 2) return std::nullopt;
    const ExprOp inner_op = e->op == ExprOp::Min ? ExprOp::Max : ExprOp::Min;
    for (int outer = 0; outer < 2; ++outer) {
      const ExprRef& nested = e->operands[outer];
      const ExprRef& outer_bound = e->operands[1 - outer];
      if (nested->op != inner_op || nested->operands.size() != 2) continue;
      for (int in = 0; in < 2; ++in) {
        auto v = to_polynomial(nested->operands[in]);
        auto inner_bound = to_polynomial(nested->operands[1 - in]);
        auto ob = to_polynomial(outer_bound);
        if (!v || !inner_bound || !ob || !is_uniform(*inner_bound) || !is_uniform(*ob) || is_uniform(*v)) continue;
        Clamp c;
        c.symbol = Symbol{SymbolKind::Local, 0, "clamp#" + std::to_string(w.clamps.size()), false};
        c.inner = *v;
        const bool min_outside = e->op == ExprOp::Min;
        c.form = min_outside ? Clamp::Form::MinOfMax : Clamp::Form::MaxOfMin;
        c.hi = min_outside ? *ob : *inner_bound;
        c.lo = min_outside ? *inner_bound : *ob;
        w.clamps.push_back(c);
        return c.symbol;
      }
    }
    return std::nullopt;
  };
  auto poly = to_polynomial(flat, atom);
  if (!poly) return std::nullopt;
  w.unclamped = *poly;
  for (const Clamp& c : w.clamps) {
    auto k = coefficient(w.unclamped, c.symbol);
    if (!k) return std::nullopt;
    w.unclamped = w.unclamped - *k * Polynomial::symbol(c.symbol) + *k * c.inner;
  }
  return w;
}

bool path_to(const Stmt* from, const Stmt* target, std::vector<const Stmt*>& path) {
  if (!from) return false;
  path.push_back(from);
  if (from == target) return true;
  for (const Stmt* c : from->children())
    if (path_to(c, target, path)) return true;
  path.pop_back();
  return false;
}

// `for (T k = A; k < B (or <=); ++k / k++ / k += 1)` with A and B constants
// and k changed only by the header.
std::optional<WindowLoop> counted_loop(const KernelContext& ctx, const ForStmt* loop) {
  auto counter = ctx.for_counter(loop);
  if (!counter || !counter->declared_in_header) return std::nullopt;
  const VarDecl* k = counter->var;
  auto first = ctx.eval_int(counter->init);
  const auto* cond = dyn_cast_or_null<BinaryOperator>(loop->getCond() ? strip(loop->getCond()) : nullptr);
  if (!first || !cond || (cond->getOpcode() != BO_LT && cond->getOpcode() != BO_LE)) return std::nullopt;
  const auto* lhs = dyn_cast<DeclRefExpr>(strip(cond->getLHS()));
  auto bound = ctx.eval_int(cond->getRHS());
  if (!lhs || lhs->getDecl() != k || !bound) return std::nullopt;
  const Expr* inc = loop->getInc() ? strip(loop->getInc()) : nullptr;
  bool step_one = false;
  if (const auto* u = dyn_cast_or_null<UnaryOperator>(inc))
    step_one = u->isIncrementOp() && isa<DeclRefExpr>(strip(u->getSubExpr())) &&
               cast<DeclRefExpr>(strip(u->getSubExpr()))->getDecl() == k;
  if (const auto* c = dyn_cast_or_null<CompoundAssignOperator>(inc))
    step_one = c->getOpcode() == BO_AddAssign && isa<DeclRefExpr>(strip(c->getLHS())) &&
               cast<DeclRefExpr>(strip(c->getLHS()))->getDecl() == k && ctx.eval_int(c->getRHS()) == 1;
  if (!step_one || modified_variables(loop->getBody()).count(k)) return std::nullopt;
  const std::int64_t last = cond->getOpcode() == BO_LT ? *bound - 1 : *bound;
  if (last < *first || last - *first > 64) return std::nullopt;
  return WindowLoop{loop, k, *first, last};
}

// `if (C) continue;`
const Expr* skip_condition(const Stmt* s) {
  const auto* branch = dyn_cast<IfStmt>(s);
  if (!branch || branch->getElse() || branch->getInit() || branch->getConditionVariableDeclStmt()) return nullptr;
  auto then = statements_of(branch->getThen());
  return then.size() == 1 && isa<ContinueStmt>(then[0]) ? branch->getCond() : nullptr;
}

// The read is not under a condition inside its own statement: no branch of
// `?:`, no right side of `&&`/`||`, no if, loop or switch on the way.
bool unconditional_within(const std::vector<const Stmt*>& path, std::size_t from) {
  for (std::size_t i = from; i + 1 < path.size(); ++i) {
    const Stmt* s = path[i];
    const Stmt* next = path[i + 1];
    if (isa<IfStmt>(s) || isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<SwitchStmt>(s) ||
        isa<CXXForRangeStmt>(s) || isa<LambdaExpr>(s) || isa<StmtExpr>(s) || isa<BinaryConditionalOperator>(s))
      return false;
    if (const auto* co = dyn_cast<ConditionalOperator>(s); co && next != co->getCond()) return false;
    if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->isLogicalOp() && next == bo->getRHS()) return false;
  }
  return true;
}

// The read's element as base + pitch * (y + dy) + (x + dx) over the window
// counters (see the header).
bool split_index(const Polynomial& poly, WindowPlan& p, std::string& why) {
  const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0), ty = builtin_symbol(SymbolKind::ThreadIdx, 1);
  const Symbol bx = builtin_symbol(SymbolKind::BlockIdx, 0), by = builtin_symbol(SymbolKind::BlockIdx, 1);
  const Symbol bdx = builtin_symbol(SymbolKind::BlockDim, 0), bdy = builtin_symbol(SymbolKind::BlockDim, 1);
  auto cx = coefficient(poly, tx), cy = coefficient(poly, ty);
  if (p.line) {
    // A line: x plus offsets, no row (a pitch of 0 makes every counter a column's).
    if (!cx || !is_constant(*cx, 1) || !cy || !cy->terms.empty()) {
      why = "the window read is not at x plus offsets";
      return false;
    }
    cy = Polynomial::constant(0);
  } else if (!cx || !cy || !is_constant(*cx, 1) || !is_uniform(*cy) || cy->terms.empty()) {
    why = "the window read is not at (pitch * y + x) plus offsets";
    return false;
  }
  p.pitch = *cy;
  const Polynomial gy = Polynomial::symbol(by) * Polynomial::symbol(bdy) + Polynomial::symbol(ty);
  const Polynomial gx = Polynomial::symbol(bx) * Polynomial::symbol(bdx) + Polynomial::symbol(tx);
  Polynomial rest = poly - p.pitch * gy - gx;
  // `c == pitch * m` for a small integer m.
  auto pitch_multiple = [&](const Polynomial& c) -> std::optional<std::int64_t> {
    for (const auto& [mono, a] : p.pitch.terms) {
      if (a == 0) continue;
      auto it = c.terms.find(mono);
      const std::int64_t b = it == c.terms.end() ? 0 : it->second;
      if (b % a != 0) return std::nullopt;
      const std::int64_t m = b / a;
      if (m != 0 && (c - p.pitch.scaled(m)).terms.empty()) return m;
      return std::nullopt;
    }
    return std::nullopt;
  };
  for (const WindowLoop& l : p.loops) {
    const Symbol ks{SymbolKind::LoopCounter, 0, l.counter->getNameAsString(), true};
    auto ck = coefficient(rest, ks);
    if (!ck) {
      why = "the window read is not linear in the window counters";
      return false;
    }
    if (ck->terms.empty()) continue;
    rest = rest - *ck * Polynomial::symbol(ks);
    if (auto m = pitch_multiple(*ck)) {
      if (p.row_counter) {
        why = "two window counters move the read along y";
        return false;
      }
      p.row_counter = l.counter;
      p.row_coef = *m;
    } else if (ck->is_constant() && std::abs(ck->constant_term()) <= 4) {
      if (p.col_counter) {
        why = "two window counters move the read along x";
        return false;
      }
      p.col_counter = l.counter;
      p.col_coef = ck->constant_term();
    } else {
      why = "a window counter moves the read by neither a row nor a small column step";
      return false;
    }
  }
  // The fixed offsets: multiples of the pitch and the constant term; the
  // rest (a plane of a batch, a parameter offset) is the base.
  if (p.line) {
    p.oy = 0;
    p.ox = rest.constant_term();
  } else if (p.pitch.is_constant()) {
    const std::int64_t c = p.pitch.constant_term(), t = rest.constant_term();
    if (c <= 2 * kMaxSpan) {
      why = "the row pitch is too small to tell rows from columns";
      return false;
    }
    p.oy = (t >= 0 ? t + c / 2 : t - c / 2) / c;
    p.ox = t - p.oy * c;
  } else {
    const auto& [mono, a] = *p.pitch.terms.rbegin();
    auto it = rest.terms.find(mono);
    const std::int64_t b = it == rest.terms.end() ? 0 : it->second;
    if (a == 0 || b % a != 0) {
      why = "the read's row offset is not a whole number of rows";
      return false;
    }
    p.oy = b / a;
    p.ox = (rest - p.pitch.scaled(p.oy)).constant_term();
  }
  p.base = rest - p.pitch.scaled(p.oy) - Polynomial::constant(p.ox);
  for (const auto& [mono, c] : p.base.terms) {
    if (c == 0) continue;
    for (const Symbol& s : mono)
      if (s.kind != SymbolKind::Param && s.kind != SymbolKind::WarpSize &&
          !(p.sg.grid.batched && s.kind == SymbolKind::BlockIdx && s.dim == 2)) {
        why = "the window read's base varies with something other than parameters and the batch";
        return false;
      }
    for (const auto& [pm, pc] : p.pitch.terms)
      if (pc != 0 && pm == mono) {
        why = "the read's row offset is not a whole number of rows";
        return false;
      }
  }
  auto range = [](const WindowLoop* l, std::int64_t coef, std::int64_t off, std::int64_t& lo, std::int64_t& hi) {
    if (!l) {
      lo = hi = off;
      return;
    }
    lo = std::min(coef * l->first, coef * l->last) + off;
    hi = std::max(coef * l->first, coef * l->last) + off;
  };
  const WindowLoop *row = nullptr, *col = nullptr;
  for (const WindowLoop& l : p.loops) {
    if (l.counter == p.row_counter) row = &l;
    if (l.counter == p.col_counter) col = &l;
    p.taps *= l.last - l.first + 1;
  }
  range(row, p.row_coef, p.oy, p.dy_min, p.dy_max);
  range(col, p.col_coef, p.ox, p.dx_min, p.dx_max);
  if (!row && !col) {
    why = "the window counters do not move the read";
    return false;
  }
  // A line's window may be wider: its tile is one row.
  const std::int64_t span = p.line ? kMaxLineSpan : kMaxSpan;
  if (p.dy_max - p.dy_min > span || p.dx_max - p.dx_min > span || std::abs(p.dy_min) > span ||
      std::abs(p.dx_min) > span) {
    why = "the window spans more than " + std::to_string(span) + " rows or columns";
    return false;
  }
  return true;
}

// Each clamp must be a whole coordinate: the column's (`gx + dx`, weight 1
// in the index) or the row's (`gy + dy`, weight the pitch), at most one each.
bool place_clamps(const std::vector<Clamp>& clamps, WindowPlan& p, std::string& why) {
  const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0), ty = builtin_symbol(SymbolKind::ThreadIdx, 1);
  for (const Clamp& c : clamps) {
    auto cx = coefficient(c.inner, tx), cy = coefficient(c.inner, ty);
    const bool column = cx && is_constant(*cx, 1) && cy && cy->terms.empty();
    const bool row = cy && is_constant(*cy, 1) && cx && cx->terms.empty();
    std::optional<Clamp>& slot = column ? p.col_clamp : p.row_clamp;
    if ((!column && !row) || slot) {
      why = "a clamp in the window read is not one whole row or column coordinate";
      return false;
    }
    // What it clamps is exactly the thread's coordinate moved by its own
    // window counter and a constant: then the cell's coordinate is that
    // value, and the load clamps the cell's coordinate.
    const int d = column ? 0 : 1;
    const Polynomial global = Polynomial::symbol(builtin_symbol(SymbolKind::BlockIdx, d)) *
                                  Polynomial::symbol(builtin_symbol(SymbolKind::BlockDim, d)) +
                              Polynomial::symbol(builtin_symbol(SymbolKind::ThreadIdx, d));
    const VarDecl* counter = column ? p.col_counter : p.row_counter;
    for (const auto& [mono, k] : (c.inner - global).terms) {
      if (k == 0 || mono.empty()) continue;
      if (mono.size() != 1 || mono[0].kind != SymbolKind::LoopCounter || !counter ||
          mono[0].name != counter->getNameAsString()) {
        why = "a clamp in the window read clamps more than the thread's coordinate and its window offset";
        return false;
      }
    }
    slot = c;
  }
  return true;
}

// Follows the way from the outermost window loop down to the read (see the
// header): window loops, compound statements whose statements before the
// way are declarations, `if (C) continue;` or statements that never leave,
// and `if (C) ...` without else (C then required), down to the statement
// that reads, in which the read is unconditional. Collects the checks.
bool walk_to_read(const KernelContext& ctx, const std::vector<const Stmt*>& path, WindowPlan& q, std::string& why) {
  std::set<const ValueDecl*> allowed = {q.sg.grid.x.var, q.sg.grid.y.var};
  auto pure_condition = [&](const Expr* c) {
    return collect_accesses(c).empty() && !c->HasSideEffects(ctx.ctx(), true) && names_only(c, allowed);
  };
  for (std::size_t at = 0; at < path.size(); ++at) {
    const Stmt* s = path[at];
    const Stmt* next = at + 1 < path.size() ? path[at + 1] : nullptr;
    if (const auto* loop = dyn_cast<ForStmt>(s)) {
      auto w = counted_loop(ctx, loop);
      if (!w) {
        why = "a loop around the read is not `for (k = A; k < B; ++k)` with constant bounds";
        return false;
      }
      if (next != loop->getBody()) {
        why = "the read is in a window loop's header";
        return false;
      }
      q.loops.push_back(*w);
      allowed.insert(w->counter);
      continue;
    }
    if (const auto* branch = dyn_cast<IfStmt>(s); branch && next == branch->getThen()) {
      if (branch->getElse() || branch->getInit() || branch->getConditionVariableDeclStmt() ||
          !pure_condition(branch->getCond())) {
        why = "the read is under an `if` whose condition reads memory, has effects, names locals the window does "
              "not define, or has an else";
        return false;
      }
      q.checks.push_back({nullptr, branch->getCond()});
      continue;
    }
    if (const auto* compound = dyn_cast<CompoundStmt>(s)) {
      bool before = true;
      for (const Stmt* t : compound->body()) {
        if (t == next) {
          before = false;
          continue;
        }
        if (before) {
          if (const Expr* c = skip_condition(t)) {
            if (!pure_condition(c)) {
              why = "a `continue` before the read depends on memory, effects or locals the window does not define";
              return false;
            }
            q.checks.push_back({t, nullptr});
            continue;
          }
          if (const auto* ds = dyn_cast<DeclStmt>(t);
              ds && only_pure_declarations(ctx, {t}) && collect_accesses(t).empty() && names_only(t, allowed)) {
            for (const Decl* d : ds->decls())
              if (const auto* v = dyn_cast<VarDecl>(d); v && !ctx.modified.count(v)) allowed.insert(v);
            q.checks.push_back({t, nullptr});
            continue;
          }
        }
        if (may_leave(t)) {
          why = "the window loops leave early other than by `if (...) continue;` before the read";
          return false;
        }
      }
      continue;
    }
    // The statement that reads.
    if (q.loops.empty()) break;
    if (may_leave(s)) {
      why = "the statement reading the window may leave the loop";
      return false;
    }
    if (!unconditional_within(path, at)) {
      why = "the read is under a condition in its statement";
      return false;
    }
    return true;
  }
  why = "the read is not inside a window loop";
  return false;
}

}  // namespace

std::optional<WindowPlan> plan_window(const KernelContext& ctx, bool line, std::string& why) {
  WindowPlan p;
  p.line = line;
  auto sg = line ? match_stencil_line(ctx, why) : match_stencil_grid(ctx, why);
  if (!sg) return std::nullopt;
  p.sg = *sg;
  const auto& body = p.sg.grid.region.body;
  // The window read: a parameter read once in the work at an index that
  // moves with a loop counter and with x at unit stride.
  // In source order, so that the refusal names the first one.
  std::vector<std::pair<const ParmVarDecl*, std::vector<Access>>> candidates;
  auto slot = [&](const ParmVarDecl* param) -> std::vector<Access>& {
    for (auto& [q, list] : candidates)
      if (q == param) return list;
    return candidates.emplace_back(param, std::vector<Access>{}).second;
  };
  for (const Stmt* s : body)
    for (const Access& a : accesses_in(ctx, s)) {
      const auto* param = dyn_cast_or_null<ParmVarDecl>(a.root);
      if (!param || !a.root_is_param || !a.read || a.write || a.member || !a.flat_index) continue;
      auto index = window_index(a.flat_index);
      if (!index) continue;
      const Polynomial* poly = &index->unclamped;
      bool counters = false;
      for (const auto& [mono, c] : poly->terms)
        for (const Symbol& sym : mono) counters |= sym.kind == SymbolKind::LoopCounter;
      auto cx = coefficient(*poly, builtin_symbol(SymbolKind::ThreadIdx, 0));
      if (counters && cx && is_constant(*cx, 1)) slot(param).push_back(a);
    }
  std::string first_why, why_here;
  const ParmVarDecl* previous = nullptr;
  for (const auto& [param, list] : candidates) {
    if (!why_here.empty() && first_why.empty()) first_why = "`" + previous->getNameAsString() + "`: " + why_here;
    why_here.clear();
    previous = param;
    if (list.size() != 1) {
      why_here = "it is read more than once inside the window loops";
      continue;
    }
    WindowPlan q = p;
    q.array = param;
    q.read = list.front().expr;
    // The way from the work to the read: window loops and their bodies.
    std::vector<const Stmt*> path;
    std::size_t top = 0;
    for (; top < body.size(); ++top)
      if (path_to(body[top], q.read, path)) break;
    if (top == body.size() || !isa<ForStmt>(body[top])) {
      why_here = "the read of `" + param->getNameAsString() + "` is not inside a window loop of the work";
      continue;
    }
    bool ok = true;
    for (std::size_t i = 0; i < top && ok; ++i)
      if (may_leave(body[i])) {
        why_here = "the work may leave before the window loops";
        ok = false;
      }
    if (ok && !walk_to_read(ctx, path, q, why_here)) ok = false;
    if (!ok) continue;
    if (q.loops.empty()) continue;
    auto index = window_index(list.front().flat_index);
    if (!index || !split_index(index->unclamped, q, why_here) || !place_clamps(index->clamps, q, why_here)) continue;
    if (!stencil_input_unwritten(ctx, param, why_here)) continue;
    p = q;
    break;
  }
  if (!p.array) {
    if (first_why.empty() && !why_here.empty()) first_why = "`" + previous->getNameAsString() + "`: " + why_here;
    why = first_why.empty() ? "no input read inside loops with constant bounds around (x, y) (a window)" : first_why;
    return std::nullopt;
  }
  if (!stencil_launches_cover(ctx, p.sg.grid, why)) return std::nullopt;
  p.type = pointee_spelling(p.array);
  return p;
}

}  // namespace warplens::agent::rw
