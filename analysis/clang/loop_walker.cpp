// Loops: induction variables and loop-carried locals.
//
// `for (int i = init; cond; i += step)` with a loop-invariant step gives
// i = init + step * i#iter inside the body (i#iter: the iteration counter,
// the same on every lane), so a grid-stride loop keeps its per-lane start.
// Other locals a loop changes become symbols: induction-like ones
// (`j += 4` once per iteration) follow the counter, the rest are Local
// symbols whose uniformity is a fixed point over the assignments in the
// body. Everything the loop changed is unknown after it.
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include "analysis/clang/body_walker.h"
#include "analysis/clang/ir_build.h"

using namespace clang;

namespace warplens::clang_frontend {

namespace {

struct Modification {
  const VarDecl* var = nullptr;
  const clang::Expr* rhs = nullptr;  // assignments
  BinaryOperatorKind op = BO_Assign;
  int delta = 0;                     // ++ / --
  bool unknown = false;              // address taken, non-const reference, asm output
  bool every_iteration = false;      // once per iteration, unconditionally
  std::vector<const clang::Expr*> conditions;
};

bool contains_jump(const Stmt* s, int loop_depth = 0) {
  if (!s) return false;
  if (isa<ReturnStmt>(s)) return true;
  if ((isa<BreakStmt>(s) || isa<ContinueStmt>(s)) && loop_depth == 0) return true;
  if (isa<LambdaExpr>(s)) return false;
  bool nested = isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s) ||
                isa<SwitchStmt>(s);
  for (const Stmt* c : s->children())
    if (contains_jump(c, loop_depth + (nested ? 1 : 0))) return true;
  return false;
}

// Collects the assignments to locals inside a loop (body and increment).
class ModificationScan {
 public:
  std::vector<Modification> mods;
  std::set<const VarDecl*> declared;

  void scan(const Stmt* s, bool every) {
    if (!s) return;
    if (auto* c = dyn_cast<CompoundStmt>(s)) {
      bool jumped = false;
      for (const Stmt* child : c->body()) {
        scan(child, every && !jumped);
        if (contains_jump(child)) jumped = true;
      }
      return;
    }
    if (auto* i = dyn_cast<IfStmt>(s)) {
      scan(i->getInit(), every);
      scan(i->getCond(), every);
      conds_.push_back(i->getCond());
      scan(i->getThen(), false);
      scan(i->getElse(), false);
      conds_.pop_back();
      return;
    }
    if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s)) {
      const clang::Expr* cond = nullptr;
      if (auto* f = dyn_cast<ForStmt>(s)) scan(f->getInit(), every), cond = f->getCond();
      if (auto* w = dyn_cast<WhileStmt>(s)) cond = w->getCond();
      if (auto* d = dyn_cast<DoStmt>(s)) cond = d->getCond();
      if (cond) conds_.push_back(cond);
      for (const Stmt* c : s->children())
        if (!isa_and_nonnull<DeclStmt>(c) || !isa<ForStmt>(s) || c != cast<ForStmt>(s)->getInit()) scan(c, false);
      if (cond) conds_.pop_back();
      return;
    }
    if (auto* sw = dyn_cast<SwitchStmt>(s)) {
      scan(sw->getCond(), every);
      conds_.push_back(sw->getCond());
      scan(sw->getBody(), false);
      conds_.pop_back();
      return;
    }
    if (auto* d = dyn_cast<DeclStmt>(s)) {
      for (const Decl* decl : d->decls())
        if (auto* v = dyn_cast<VarDecl>(decl)) {
          declared.insert(v);
          if (v->getInit()) scan(v->getInit(), every);
        }
      return;
    }
    if (auto* b = dyn_cast<BinaryOperator>(s)) {
      if (b->isAssignmentOp()) {
        scan(b->getRHS(), every);
        if (auto* v = as_local_variable(b->getLHS())) add({v, b->getRHS(), b->getOpcode(), 0, false, every, conds_});
        else scan(b->getLHS(), every);
        return;
      }
      if (b->isLogicalOp()) {
        scan(b->getLHS(), every);
        conds_.push_back(b->getLHS());
        scan(b->getRHS(), false);
        conds_.pop_back();
        return;
      }
    }
    if (auto* co = dyn_cast<AbstractConditionalOperator>(s)) {
      scan(co->getCond(), every);
      conds_.push_back(co->getCond());
      scan(co->getTrueExpr(), false);
      scan(co->getFalseExpr(), false);
      conds_.pop_back();
      return;
    }
    if (auto* u = dyn_cast<UnaryOperator>(s)) {
      if (u->isIncrementDecrementOp())
        if (auto* v = as_local_variable(u->getSubExpr())) {
          add({v, nullptr, BO_AddAssign, u->isIncrementOp() ? 1 : -1, false, every, conds_});
          return;
        }
      if (u->getOpcode() == UO_AddrOf)
        if (auto* v = as_local_variable(u->getSubExpr())) add({v, nullptr, BO_Assign, 0, true, every, conds_});
    }
    if (auto* call = dyn_cast<CallExpr>(s)) {
      const FunctionDecl* fd = call->getDirectCallee();
      unsigned shift = isa<CXXOperatorCallExpr>(call) && isa_and_nonnull<CXXMethodDecl>(fd) ? 1 : 0;
      if (shift && call->getNumArgs() > 0)
        if (auto* v = as_local_variable(call->getArg(0))) add({v, nullptr, BO_Assign, 0, true, every, conds_});
      for (unsigned i = shift; fd && i < call->getNumArgs(); ++i) {
        if (i - shift >= fd->getNumParams()) break;
        QualType p = fd->getParamDecl(i - shift)->getType();
        if (p->isReferenceType() && !p->getPointeeType().isConstQualified())
          if (auto* v = as_local_variable(call->getArg(i))) add({v, nullptr, BO_Assign, 0, true, every, conds_});
      }
    }
    if (auto* a = dyn_cast<GCCAsmStmt>(s)) {
      for (unsigned i = 0; i < a->getNumOutputs(); ++i)
        if (auto* v = as_local_variable(a->getOutputExpr(i))) add({v, nullptr, BO_Assign, 0, true, every, conds_});
    }
    if (isa<LambdaExpr>(s)) return;
    for (const Stmt* c : s->children()) scan(c, every);
  }

 private:
  void add(Modification m) { mods.push_back(std::move(m)); }
  std::vector<const clang::Expr*> conds_;
};

bool references_any(const Stmt* s, const std::set<const VarDecl*>& vars) {
  if (!s) return false;
  if (auto* ref = dyn_cast<DeclRefExpr>(s))
    if (auto* v = dyn_cast<VarDecl>(ref->getDecl()); v && vars.count(v)) return true;
  for (const Stmt* c : s->children())
    if (references_any(c, vars)) return true;
  return false;
}

void collect_refs(const Stmt* s, std::vector<const VarDecl*>& out) {
  if (!s) return;
  if (auto* ref = dyn_cast<DeclRefExpr>(s))
    if (auto* v = dyn_cast<VarDecl>(ref->getDecl())) out.push_back(v);
  for (const Stmt* c : s->children()) collect_refs(c, out);
}

}  // namespace

BodyWalker::Exits BodyWalker::walk_loop(const Stmt* loop, std::optional<int> unroll) {
  const Stmt* init = nullptr;
  const Stmt* body = nullptr;
  const clang::Expr* cond = nullptr;
  const clang::Expr* inc = nullptr;
  if (auto* f = dyn_cast<ForStmt>(loop)) {
    init = f->getInit(), cond = f->getCond(), inc = f->getInc(), body = f->getBody();
  } else if (auto* w = dyn_cast<WhileStmt>(loop)) {
    cond = w->getCond(), body = w->getBody();
  } else if (auto* d = dyn_cast<DoStmt>(loop)) {
    cond = d->getCond(), body = d->getBody();
  } else if (auto* r = dyn_cast<CXXForRangeStmt>(loop)) {
    visit(r->getRangeInit(), Use::Value);
    body = r->getBody();
    if (auto* v = r->getLoopVariable()) env_.values[v] = Expr::sym({SymbolKind::Local, 0, v->getNameAsString(), false});
  }
  if (init) walk(init);

  ModificationScan scan;
  scan.scan(body, true);
  if (inc) scan.scan(inc, true);
  std::map<const VarDecl*, std::vector<const Modification*>> by_var;
  for (const auto& m : scan.mods)
    if (!scan.declared.count(m.var)) by_var[m.var].push_back(&m);
  std::set<const VarDecl*> carried;
  for (const auto& [v, ms] : by_var) carried.insert(v);

  // Step of an affine, once-per-iteration update `v += e` (e loop-invariant).
  auto affine_step = [&](const VarDecl* v) -> ExprRef {
    auto it = by_var.find(v);
    if (it == by_var.end() || it->second.size() != 1) return nullptr;
    const Modification& m = *it->second.front();
    if (m.unknown || !m.every_iteration) return nullptr;
    if (m.delta) return Expr::constant(m.delta);
    const clang::Expr* step = nullptr;
    bool negate = false;
    if (m.op == BO_AddAssign || m.op == BO_SubAssign) {
      step = m.rhs, negate = m.op == BO_SubAssign;
    } else if (m.op == BO_Assign) {
      auto* add = dyn_cast<BinaryOperator>(m.rhs->IgnoreParenImpCasts());
      if (!add || (add->getOpcode() != BO_Add && add->getOpcode() != BO_Sub)) return nullptr;
      if (as_local_variable(add->getLHS()) == v) step = add->getRHS(), negate = add->getOpcode() == BO_Sub;
      else if (add->getOpcode() == BO_Add && as_local_variable(add->getRHS()) == v) step = add->getLHS();
    }
    if (!step || references_any(step, carried)) return nullptr;
    ExprRef s = lowering_.lower(step);
    return negate ? Expr::unary(ExprOp::Neg, s) : s;
  };

  // The induction variable: declared/assigned by the for-init, else the
  // first variable of the condition that advances affinely.
  const VarDecl* iv = nullptr;
  bool iv_declared_here = false;
  if (auto* ds = dyn_cast_or_null<DeclStmt>(init); ds && ds->isSingleDecl()) {
    iv = dyn_cast<VarDecl>(ds->getSingleDecl());
    iv_declared_here = iv != nullptr;
  } else if (auto* bo = dyn_cast_or_null<BinaryOperator>(init); bo && bo->getOpcode() == BO_Assign) {
    iv = as_local_variable(bo->getLHS());
  }
  if (!iv && cond) {
    std::vector<const VarDecl*> refs;
    collect_refs(cond, refs);
    for (const VarDecl* v : refs)
      if (carried.count(v) && affine_step(v)) {
        iv = v;
        break;
      }
  }
  if (iv && iv->getType()->isPointerType()) iv = nullptr;  // pointer walks: offsets become unknown

  Env before = env_;
  ExprRef iv_init, iv_step;
  Symbol counter{SymbolKind::LoopCounter, 0, iv ? iv->getNameAsString() : "", true};
  if (iv) {
    auto it = env_.values.find(iv);
    if (it != env_.values.end()) iv_init = it->second;
    else if (isa<ParmVarDecl>(iv)) iv_init = Expr::param(iv->getNameAsString());
    else iv_init = Expr::sym({SymbolKind::Local, 0, iv->getNameAsString(), false});
    iv_step = carried.count(iv) ? affine_step(iv) : nullptr;
  }

  // Loop-carried locals other than the induction variable.
  std::map<const VarDecl*, ExprRef> secondary;  // follow the counter
  std::map<const VarDecl*, bool> uniform;       // the rest
  // Updated once per iteration from their own previous value alone
  // (`s >>= 1`, `offset <<= 1`, `pos = (pos + 4) & 63`): a Recur, computed
  // per iteration by the warp model.
  struct Recurrence {
    ExprRef start;
    const Modification* update = nullptr;
  };
  std::map<const VarDecl*, Recurrence> recurrences;
  const std::string loop_tag = "@L" + std::to_string(map_.range(loop->getSourceRange()).start.line + 1);
  Symbol iteration{SymbolKind::Iteration, 0, "", true};
  for (const VarDecl* v : carried) {
    if (v == iv && iv_step) continue;
    if (iv_step && v != iv) {
      if (ExprRef step = affine_step(v)) {
        if (v->getType()->isPointerType()) {
          if (auto it = env_.pointers.find(v); it != env_.pointers.end()) {
            std::int64_t elem = lowering_.size_of(v->getType()->getPointeeType());
            Address a = it->second;
            a.terms.push_back({ir_mul(step, Expr::sym(counter)), elem, true});
            a.arithmetic = true;
            env_.pointers[v] = a;
            continue;
          }
        } else if (auto it = env_.values.find(v); it != env_.values.end()) {
          secondary[v] = ir_add(it->second, ir_mul(step, Expr::sym(counter)));
          continue;
        }
      }
    }
    if (v->getType()->isPointerType()) {
      auto it = env_.pointers.find(v);
      if (it != env_.pointers.end()) it->second.offset_unknown = true;
      continue;
    }
    auto it = env_.values.find(v);
    ExprRef start = it != env_.values.end() ? it->second : nullptr;
    if (!start && isa<ParmVarDecl>(v)) start = Expr::param(v->getNameAsString());
    if (auto mods = by_var.find(v); start && mods != by_var.end() && mods->second.size() == 1 &&
                                    v->getType()->isIntegralOrEnumerationType()) {
      const Modification& m = *mods->second.front();
      std::set<const VarDecl*> others = carried;
      others.erase(v);
      if (!m.unknown && m.every_iteration && m.rhs && !references_any(m.rhs, others) &&
          (m.op != BO_Assign || references_any(m.rhs, {v}))) {
        recurrences[v] = {start, &m};
        if (iteration.name.empty()) iteration.name = v->getNameAsString() + loop_tag;
        continue;
      }
    }
    uniform[v] = start ? !is_lane_varying(start) : isa<ParmVarDecl>(v);
  }
  auto set_symbols = [&]() {
    for (const auto& [v, u] : uniform) env_.values[v] = Expr::sym({SymbolKind::Local, 0, v->getNameAsString(), u});
    for (const auto& [v, r] : recurrences) {
      const std::string name = v->getNameAsString();
      env_.values[v] = Expr::sym(Expr::previous(name, !is_lane_varying(r.start)));
      const Modification& m = *r.update;
      ExprRef rhs = lowering_.lower(m.rhs);
      ExprRef update = rhs;
      if (m.op != BO_Assign) {
        static const std::map<BinaryOperatorKind, ExprOp> ops = {
            {BO_AddAssign, ExprOp::Add}, {BO_SubAssign, ExprOp::Sub}, {BO_MulAssign, ExprOp::Mul},
            {BO_DivAssign, ExprOp::Div}, {BO_RemAssign, ExprOp::Rem}, {BO_ShlAssign, ExprOp::Shl},
            {BO_ShrAssign, ExprOp::Shr}, {BO_AndAssign, ExprOp::BitAnd}, {BO_OrAssign, ExprOp::BitOr},
            {BO_XorAssign, ExprOp::BitXor}};
        auto op = ops.find(m.op);
        update = op == ops.end() ? nullptr : Expr::binary(op->second, env_.values[v], rhs);
      }
      env_.values[v] = update ? Expr::recur(name, r.start, update, Expr::sym(iteration))
                              : Expr::sym({SymbolKind::Local, 0, name, false});
    }
    for (const auto& [v, e] : secondary) env_.values[v] = e;
    if (iv && iv_step) env_.values[iv] = ir_add(iv_init, ir_mul(iv_step, Expr::sym(counter)));
  };
  set_symbols();
  for (int round = 0; round < 4; ++round) {
    bool changed = false;
    for (auto& [v, u] : uniform) {
      if (!u) continue;
      for (const Modification* m : by_var[v]) {
        bool varies = m->unknown;
        for (const clang::Expr* c : m->conditions) varies = varies || is_lane_varying(lowering_.lower(c));
        if (m->rhs && !varies) varies = is_lane_varying(lowering_.lower(m->rhs));
        if (varies) {
          u = false;
          changed = true;
          break;
        }
      }
    }
    if (!changed) break;
    set_symbols();
  }
  // Loop-carried locals whose updates depend on data loaded from memory (a
  // binary search's `pos`, set under `if (data[pos + s] <= key)`): their
  // value is a data_local carrying those dependencies, so it turns per-lane
  // when a caller binds a per-lane argument (`key`), and a per-lane one
  // reads as a data-dependent address (is_indirect), not as an unknown.
  std::map<const VarDecl*, ExprRef> data_locals;
  for (const auto& [v, u] : uniform) {
    std::vector<ExprRef> deps;
    bool loads = false;
    auto add = [&](const clang::Expr* x) {
      ExprRef d = ir_bounded(lowering_.lower(x), "?", 512);
      loads = loads || contains_load(d);
      deps.push_back(d);
    };
    for (const Modification* m : by_var[v]) {
      if (m->unknown) continue;
      for (const clang::Expr* c : m->conditions) add(c);
      if (m->rhs) add(m->rhs);
    }
    if (loads) data_locals[v] = Expr::data_local(v->getNameAsString(), u, std::move(deps));
  }
  for (const auto& [v, e] : data_locals) env_.values[v] = e;

  Loop record;
  if (iv) {
    record.induction_variable = iv->getNameAsString();
    record.init = iv_init;
    record.step = iv_step;
  }
  record.range = map_.range(loop->getSourceRange());
  record.parent = loops_.empty() ? -1 : loops_.back();
  record.unroll = unroll;
  int id = static_cast<int>(out_.loops.size());
  out_.loops.push_back(record);
  loops_.push_back(id);

  ExprRef bound = cond ? lowering_.lower(cond) : Expr::constant(1);
  if (cond) visit(cond, Use::Value);
  int cid = add_condition(ConditionKind::LoopExit, bound, cond, loop);
  out_.loops[id].condition = cid;
  out_.loops[id].bound = bound;
  bool uniform_trip = !is_lane_varying(bound);

  guards_.push_back({cid, true});
  Exits exits = walk(body);
  if (inc) visit(inc, Use::Value);
  guards_.pop_back();
  loops_.pop_back();

  Exits returns;
  for (const auto& e : exits) {
    if (e.is_return) returns.push_back(e);
    else if (e.is_break && e.condition >= 0 && is_lane_varying(out_.conditions[e.condition].expr))
      uniform_trip = false;  // lanes leave the loop at different iterations
  }
  out_.loops[id].uniform_trip = uniform_trip;

  // After the loop: what it changed is unknown.
  env_ = before;
  for (const VarDecl* v : carried) {
    if (v == iv && iv_declared_here) continue;
    if (v->getType()->isPointerType()) {
      if (auto it = env_.pointers.find(v); it != env_.pointers.end()) it->second.offset_unknown = true;
      continue;
    }
    bool u = uniform_trip;
    if (auto it = uniform.find(v); it != uniform.end()) u = u && it->second;
    else if (auto r = recurrences.find(v); r != recurrences.end()) u = u && !is_lane_varying(r->second.start);
    else if (auto s = secondary.find(v); s != secondary.end()) u = u && !is_lane_varying(s->second);
    else if (v == iv) u = u && iv_init && !is_lane_varying(iv_init) && iv_step && !is_lane_varying(iv_step);
    if (auto d = data_locals.find(v); d != data_locals.end())
      env_.values[v] = Expr::data_local(v->getNameAsString(), u, d->second->operands);
    else
      env_.values[v] = Expr::sym({SymbolKind::Local, 0, v->getNameAsString(), u});
  }
  if (iv && iv_declared_here) env_.values.erase(iv);

  if (returns.empty()) return {};
  // Lanes that returned inside the loop skip everything after it.
  bool uniform_exit = uniform_trip;
  for (const auto& r : returns)
    if (r.condition >= 0 && is_lane_varying(out_.conditions[r.condition].expr)) uniform_exit = false;
  Condition c;
  c.kind = ConditionKind::EarlyExit;
  c.expr = Expr::opaque("return inside the loop", uniform_exit);
  c.spelling = "return inside the loop";
  c.range = returns.front().condition >= 0 ? out_.conditions[returns.front().condition].range
                                             : out_.conditions[cid].range;
  c.statement_range = map_.range(loop->getSourceRange());
  c.parent = guards_.empty() ? -1 : guards_.back().condition;
  out_.conditions.push_back(std::move(c));
  return {ExitPath{static_cast<int>(out_.conditions.size()) - 1, true, true, false}};
}

}  // namespace warplens::clang_frontend
