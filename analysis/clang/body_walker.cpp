// Statement walk of one function body: conditions, guards, early exits and
// the values of locals. Loops live in loop_walker.cpp; expressions (accesses,
// barriers, calls) in access_visitor.cpp.
//
// Guards are a conjunction (outermost first). An early exit
// (`if (c) return;`) guards the rest of its block with `!c`; exits nested in
// branches are lifted outwards as combined conditions (`a && b`), so a
// barrier after `if (a) { if (b) return; }` is still seen as conditional.
#include "analysis/clang/body_walker.h"

#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include "analysis/clang/ast_helpers.h"
#include "analysis/clang/ir_build.h"

using namespace clang;

namespace warplens::clang_frontend {

namespace {

bool is_jump(const Stmt* s) {
  if (auto* c = dyn_cast_or_null<CompoundStmt>(s)) return c->size() == 1 && is_jump(c->body_front());
  return isa_and_nonnull<ReturnStmt>(s) || isa_and_nonnull<BreakStmt>(s) || isa_and_nonnull<ContinueStmt>(s);
}

}  // namespace

BodyWalker::BodyWalker(ASTContext& ctx, const SourceMapper& map, const FunctionDecl* fn, Function& out, KeyOf key_of)
    : ctx_(ctx), map_(map), fn_(fn), out_(out), key_of_(std::move(key_of)), lowering_(ctx, map, fn) {
  lowering_.set_env(&env_);
  in_kernel_ = fn->hasAttr<CUDAGlobalAttr>();
}

void BodyWalker::run() {
  if (const Stmt* body = fn_->getBody()) walk(body);
}

// ------------------------------------------------------------- conditions

int BodyWalker::add_condition(ConditionKind kind, ExprRef expr, const clang::Expr* cond, const Stmt* statement) {
  Condition c;
  c.kind = kind;
  c.expr = std::move(expr);
  if (cond) {
    cond = cond->IgnoreParens();
    c.spelling = map_.text(cond->getSourceRange());
    c.range = map_.range(cond->getSourceRange());
  }
  if (statement) c.statement_range = map_.range(statement->getSourceRange());
  c.parent = guards_.empty() ? -1 : guards_.back().condition;
  out_.conditions.push_back(std::move(c));
  return static_cast<int>(out_.conditions.size()) - 1;
}

int BodyWalker::combine_exit(int outer, bool outer_taken, const ExitPath& inner, const Stmt* where) {
  const Condition& o = out_.conditions[outer];
  const Condition& i = out_.conditions[inner.condition];
  auto side = [](const Condition& c, bool taken) {
    ExprRef e = taken ? c.expr : ir_not(c.expr);
    std::string s = c.spelling.empty() ? "…" : c.spelling;
    return std::make_pair(e, taken ? "(" + s + ")" : "!(" + s + ")");
  };
  auto [oe, os] = side(o, outer_taken);
  auto [ie, is] = side(i, inner.taken);
  Condition c;
  c.kind = ConditionKind::EarlyExit;
  c.expr = (o.expr && i.expr) ? ir_and(oe, ie) : nullptr;
  c.spelling = os + " && " + is;
  c.range = i.range;
  c.statement_range = where ? map_.range(where->getSourceRange()) : i.statement_range;
  c.parent = o.parent;
  out_.conditions.push_back(std::move(c));
  return static_cast<int>(out_.conditions.size()) - 1;
}

BodyWalker::Exits BodyWalker::lift_exits(const Exits& inner, int condition, bool taken, const Stmt* where) {
  Exits out;
  for (const auto& e : inner) {
    ExitPath l = e;
    if (e.condition < 0) {
      l.condition = condition;
      l.taken = taken;
    } else {
      l.condition = combine_exit(condition, taken, e, where);
      l.taken = true;
    }
    out.push_back(l);
  }
  return out;
}

// ------------------------------------------------------------- statements

BodyWalker::Exits BodyWalker::walk(const Stmt* s) {
  if (!s) return {};
  if (auto* c = dyn_cast<CompoundStmt>(s)) return walk_compound(c);
  if (auto* i = dyn_cast<IfStmt>(s)) return walk_if(i);
  if (auto* sw = dyn_cast<SwitchStmt>(s)) return walk_switch(sw);
  if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s))
    return walk_loop(s, std::nullopt);
  if (auto* a = dyn_cast<AttributedStmt>(s)) {
    std::optional<int> unroll;
    for (const Attr* attr : a->getAttrs())
      if (auto* hint = dyn_cast<LoopHintAttr>(attr)) {
        if (hint->getOption() == LoopHintAttr::UnrollCount && hint->getValue()) {
          clang::Expr::EvalResult r;
          if (hint->getValue()->EvaluateAsInt(r, ctx_)) unroll = static_cast<int>(r.Val.getInt().getExtValue());
        } else if (hint->getOption() == LoopHintAttr::Unroll) {
          unroll = hint->getState() == LoopHintAttr::Disable ? 1 : 0;
        }
      }
    const Stmt* sub = a->getSubStmt();
    if (isa<ForStmt>(sub) || isa<WhileStmt>(sub) || isa<DoStmt>(sub) || isa<CXXForRangeStmt>(sub))
      return walk_loop(sub, unroll);
    return walk(sub);
  }
  if (auto* r = dyn_cast<ReturnStmt>(s)) {
    visit(r->getRetValue(), Use::Value);
    return {ExitPath{-1, true, true, false}};
  }
  if (isa<BreakStmt>(s)) return {ExitPath{-1, true, false, true}};
  if (isa<ContinueStmt>(s)) return {ExitPath{-1, true, false, false}};
  if (auto* d = dyn_cast<DeclStmt>(s)) {
    for (const Decl* decl : d->decls())
      if (auto* v = dyn_cast<VarDecl>(decl)) walk_decl(v);
    return {};
  }
  if (auto* e = dyn_cast<clang::Expr>(s)) {
    visit(e, Use::Value);
    return {};
  }
  if (auto* asmst = dyn_cast<GCCAsmStmt>(s)) {
    std::string text = asmst->getAsmString()->getString().str();
    if (text.find("bar.sync") != std::string::npos || text.find("barrier.sync") != std::string::npos ||
        text.find("bar.red") != std::string::npos) {
      Barrier b;
      b.kind = BarrierKind::SyncThreads;
      b.spelling = map_.text(s->getSourceRange());
      b.range = map_.range(s->getSourceRange());
      b.guards = guards_;
      b.loops = loops_;
      out_.barriers.push_back(std::move(b));
    }
    for (unsigned i = 0; i < asmst->getNumOutputs(); ++i)
      if (auto* v = as_local_variable(asmst->getOutputExpr(i))) invalidate(v);
    for (unsigned i = 0; i < asmst->getNumInputs(); ++i) visit(asmst->getInputExpr(i), Use::Value);
    return {};
  }
  if (auto* l = dyn_cast<LabelStmt>(s)) {
    // A goto target: control can arrive with any values (like a loop head).
    for (auto& [var, value] : env_.values) value = Expr::sym({SymbolKind::Local, 0, var->getNameAsString(), false});
    for (auto& [var, addr] : env_.pointers) addr.offset_unknown = true;
    return walk(l->getSubStmt());
  }
  if (auto* c = dyn_cast<SwitchCase>(s)) return walk(c->getSubStmt());
  Exits all;
  for (const Stmt* child : s->children()) {
    auto ex = walk(child);
    all.insert(all.end(), ex.begin(), ex.end());
  }
  return all;
}

BodyWalker::Exits BodyWalker::walk_compound(const CompoundStmt* s) {
  size_t mark = guards_.size();
  Exits all;
  for (const Stmt* child : s->body()) {
    Exits ex = walk(child);
    bool unreachable = false;
    for (const auto& e : ex) {
      all.push_back(e);
      if (e.condition < 0) unreachable = true;
      else guards_.push_back({e.condition, !e.taken});  // the rest runs only when it did not exit
    }
    if (unreachable) break;
  }
  guards_.resize(mark);
  return all;
}

BodyWalker::Exits BodyWalker::walk_if(const IfStmt* s) {
  if (s->getInit()) walk(s->getInit());
  if (auto* v = s->getConditionVariable()) walk_decl(v);
  const clang::Expr* cond = s->getCond();
  // The value is taken before the condition's own side effects (`++j < 4`).
  ExprRef c = lowering_.lower(cond);
  visit(cond, Use::Value);
  if (s->isConsteval()) c = Expr::constant(1);
  bool early_exit = !s->getElse() && is_jump(s->getThen());
  int id = add_condition(early_exit ? ConditionKind::EarlyExit : ConditionKind::If, c, cond, s);

  Env before = env_;
  guards_.push_back({id, true});
  Exits then_exits = walk(s->getThen());
  guards_.pop_back();
  Env after_then = env_;
  env_ = before;
  Exits else_exits;
  if (s->getElse()) {
    guards_.push_back({id, false});
    else_exits = walk(s->getElse());
    guards_.pop_back();
  }
  Env after_else = env_;
  auto always = [](const Exits& ex) {
    return std::any_of(ex.begin(), ex.end(), [](const ExitPath& e) { return e.condition < 0; });
  };
  bool then_leaves = always(then_exits), else_leaves = always(else_exits);
  if (then_leaves && !else_leaves) env_ = after_else;
  else if (else_leaves && !then_leaves) env_ = after_then;
  else merge_env(after_then, after_else, c);

  Exits out = lift_exits(then_exits, id, true, s);
  Exits more = lift_exits(else_exits, id, false, s);
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

BodyWalker::Exits BodyWalker::walk_switch(const SwitchStmt* s) {
  if (s->getInit()) walk(s->getInit());
  if (auto* v = s->getConditionVariable()) walk_decl(v);
  const clang::Expr* cond = s->getCond();
  ExprRef c = lowering_.lower(cond);
  visit(cond, Use::Value);
  auto* body = dyn_cast_or_null<CompoundStmt>(s->getBody());
  if (!body) return walk(s->getBody());

  // Label values, for `default` (= none of them).
  std::vector<ExprRef> labels;
  for (const SwitchCase* sc = s->getSwitchCaseList(); sc; sc = sc->getNextSwitchCase())
    if (auto* cs = dyn_cast<CaseStmt>(sc)) labels.push_back(lowering_.lower(cs->getLHS()));
  std::reverse(labels.begin(), labels.end());  // the list is in reverse source order

  Env before = env_;
  std::vector<Env> case_envs;
  Exits out;
  size_t mark = guards_.size();
  int current = -1;
  bool open = false;
  auto close_case = [&]() {
    if (open) case_envs.push_back(env_);
    env_ = before;
    guards_.resize(mark);
    open = false;
  };
  for (const Stmt* child : body->body()) {
    const Stmt* stmt = child;
    if (isa<SwitchCase>(child)) {
      // `case 1: case 2: stmt` -> one condition for the run of labels.
      close_case();
      ExprRef expr;
      const Stmt* first = child;
      while (auto* sc = dyn_cast<SwitchCase>(stmt)) {
        ExprRef e;
        if (auto* cs = dyn_cast<CaseStmt>(sc)) {
          e = Expr::binary(ExprOp::Eq, c, lowering_.lower(cs->getLHS()));
        } else {
          for (const auto& l : labels) e = ir_and(e, Expr::binary(ExprOp::Ne, c, l));
          if (!e) e = Expr::constant(1);
        }
        expr = expr ? Expr::binary(ExprOp::LogicalOr, expr, e) : e;
        stmt = sc->getSubStmt();
      }
      current = add_condition(ConditionKind::Switch, expr, cond, first);
      guards_.push_back({current, true});
      open = true;
    }
    if (current < 0) continue;  // statements before the first label never run
    Exits ex = walk(stmt);
    bool ended = false;
    for (const auto& e : ex) {
      if (e.is_break && e.condition < 0) {
        ended = true;  // leaves this case
        continue;
      }
      if (e.is_break) continue;  // conditional break: the rest of the case is guarded
      ExitPath l = e;
      if (e.condition < 0) {
        l.condition = current;
        l.taken = true;
        ended = true;
      } else {
        l.condition = combine_exit(current, true, e, s);
      }
      out.push_back(l);
    }
    if (ended) close_case();
  }
  close_case();
  // Locals changed by any case: unknown afterwards (uniform when the switch
  // value and every assigned value are).
  env_ = before;
  for (const auto& ce : case_envs) {
    for (const auto& [var, value] : ce.values) {
      auto it = env_.values.find(var);
      if (it == env_.values.end() || it->second == value) continue;
      bool uniform = !is_lane_varying(c) && !is_lane_varying(value) && !is_lane_varying(it->second);
      it->second = Expr::sym({SymbolKind::Local, 0, var->getNameAsString(), uniform});
    }
    for (const auto& [var, addr] : ce.pointers) {
      auto it = env_.pointers.find(var);
      if (it == env_.pointers.end()) continue;
      if (it->second.root != addr.root) it->second.kind = RootKind::Unknown;
      else if (it->second.terms.size() != addr.terms.size()) it->second.offset_unknown = true;
    }
  }
  return out;
}

void BodyWalker::walk_decl(const VarDecl* var) {
  if (var->hasAttr<CUDASharedAttr>()) {
    note_shared(var);
    return;
  }
  if (var->isStaticLocal() || var->hasGlobalStorage()) return;
  const clang::Expr* init = var->getInit();
  if (init) visit(init, var->getType()->isReferenceType() ? Use::Load : Use::Value);
  QualType t = var->getType();
  if (t->isPointerType()) {
    std::optional<Address> a = init ? lowering_.address_of_pointer(init) : std::nullopt;
    if (a) {
      a->arithmetic = true;  // accessed through a pointer local from now on
      escape_if_shared(*a);
      env_.pointers[var] = *a;
    } else {
      Address unknown;
      unknown.root_name = var->getNameAsString();
      env_.pointers[var] = unknown;
    }
    return;
  }
  if (t->isReferenceType() || t->isArrayType()) return;
  if (init) env_.values[var] = ir_bounded(lowering_.lower(init), var->getNameAsString());
  else env_.values[var] = Expr::sym({SymbolKind::Local, 0, var->getNameAsString(), false});
}

// ------------------------------------------------------------- locals

void BodyWalker::invalidate(const VarDecl* var) {
  if (var->getType()->isPointerType()) {
    Address unknown;
    unknown.root_name = var->getNameAsString();
    env_.pointers[var] = unknown;
  } else {
    env_.values[var] = Expr::sym({SymbolKind::Local, 0, var->getNameAsString(), false});
  }
}

void BodyWalker::merge_env(const Env& a, const Env& b, const ExprRef& cond) {
  Env merged = a;
  for (auto& [var, va] : merged.values) {
    auto it = b.values.find(var);
    if (it == b.values.end() || it->second == va) continue;
    va = ir_bounded(Expr::select(cond, va, it->second), var->getNameAsString());
  }
  for (auto& [var, pa] : merged.pointers) {
    auto it = b.pointers.find(var);
    if (it == b.pointers.end()) continue;
    const Address& pb = it->second;
    if (pa.root != pb.root || pa.kind != pb.kind) {
      pa.kind = RootKind::Unknown;
      continue;
    }
    ExprRef oa = pa.byte_offset(), ob = pb.byte_offset();
    if (oa && ob && oa == ob) continue;
    pa.terms.clear();
    pa.offset_unknown = !oa || !ob;
    if (oa && ob) pa.terms.push_back({Expr::select(cond, oa, ob), 1, true});
    pa.index_unit = pa.index_unit == pb.index_unit ? pa.index_unit : 1;
    pa.reinterpreted |= pb.reinterpreted;
  }
  env_ = std::move(merged);
}

void BodyWalker::apply_assignment(const BinaryOperator* bo) {
  const VarDecl* var = as_local_variable(bo->getLHS());
  if (!var || var->getType()->isReferenceType()) return;
  BinaryOperatorKind op = bo->getOpcode();
  if (var->getType()->isPointerType()) {
    if (op == BO_Assign) {
      auto a = lowering_.address_of_pointer(bo->getRHS());
      if (a) {
        a->arithmetic = true;
        escape_if_shared(*a);
        env_.pointers[var] = *a;
      } else {
        invalidate(var);
      }
    } else if (op == BO_AddAssign || op == BO_SubAssign) {
      auto a = lowering_.address_of_pointer(bo->getLHS());
      if (!a) return invalidate(var);
      ExprRef k = lowering_.lower(bo->getRHS());
      if (op == BO_SubAssign) k = Expr::unary(ExprOp::Neg, k);
      std::int64_t elem = lowering_.size_of(var->getType()->getPointeeType());
      if (!elem) a->offset_unknown = true;
      a->terms.push_back({k, elem, true});
      a->arithmetic = true;
      env_.pointers[var] = *a;
    } else {
      invalidate(var);
    }
    return;
  }
  ExprRef rhs = lowering_.lower(bo->getRHS());
  if (op == BO_Assign) {
    env_.values[var] = ir_bounded(rhs, var->getNameAsString());
    return;
  }
  ExprRef cur = lowering_.lower(bo->getLHS());
  ExprRef v;
  switch (op) {
    case BO_AddAssign: v = ir_add(cur, rhs); break;
    case BO_SubAssign: v = ir_sub(cur, rhs); break;
    case BO_MulAssign: v = ir_mul(cur, rhs); break;
    case BO_DivAssign: v = Expr::binary(ExprOp::Div, cur, rhs); break;
    case BO_RemAssign: v = Expr::binary(ExprOp::Rem, cur, rhs); break;
    case BO_ShlAssign: v = Expr::binary(ExprOp::Shl, cur, rhs); break;
    case BO_ShrAssign: v = Expr::binary(ExprOp::Shr, cur, rhs); break;
    case BO_AndAssign: v = Expr::binary(ExprOp::BitAnd, cur, rhs); break;
    case BO_OrAssign: v = Expr::binary(ExprOp::BitOr, cur, rhs); break;
    case BO_XorAssign: v = Expr::binary(ExprOp::BitXor, cur, rhs); break;
    default: break;
  }
  if (var->getType()->isRealFloatingType() || !v) v = ir_opaque_like(var->getNameAsString(), ir_add(cur, rhs));
  env_.values[var] = ir_bounded(v, var->getNameAsString());
}

void BodyWalker::apply_increment(const UnaryOperator* uo) {
  const VarDecl* var = as_local_variable(uo->getSubExpr());
  if (!var || var->getType()->isReferenceType()) return;
  bool inc = uo->isIncrementOp();
  if (var->getType()->isPointerType()) {
    auto a = lowering_.address_of_pointer(uo->getSubExpr());
    if (!a) return invalidate(var);
    std::int64_t elem = lowering_.size_of(var->getType()->getPointeeType());
    if (!elem) a->offset_unknown = true;
    a->terms.push_back({Expr::constant(inc ? 1 : -1), elem, true});
    a->arithmetic = true;
    env_.pointers[var] = *a;
    return;
  }
  ExprRef cur = lowering_.lower(uo->getSubExpr());
  env_.values[var] = inc ? ir_add(cur, Expr::constant(1)) : ir_sub(cur, Expr::constant(1));
}

}  // namespace warplens::clang_frontend
