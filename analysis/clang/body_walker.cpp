// Statement walk of one function body: guards, early exits, accesses,
// barriers and calls. Loops live in loop_walker.cpp.
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

#include "analysis/clang/ir_build.h"

using namespace clang;

namespace warplens::clang_frontend {

namespace {

std::string name_of(const FunctionDecl* fd) {
  if (!fd) return "";
  if (auto* id = fd->getIdentifier()) return id->getName().str();
  return fd->getNameAsString();
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

bool is_jump(const Stmt* s) {
  if (auto* c = dyn_cast_or_null<CompoundStmt>(s)) return c->size() == 1 && is_jump(c->body_front());
  return isa_and_nonnull<ReturnStmt>(s) || isa_and_nonnull<BreakStmt>(s) || isa_and_nonnull<ContinueStmt>(s);
}

bool in_namespace(const Decl* d, llvm::StringRef ns) {
  for (const DeclContext* dc = d->getDeclContext(); dc; dc = dc->getParent())
    if (auto* n = dyn_cast<NamespaceDecl>(dc); n && n->getName() == ns) return true;
  return false;
}

std::string record_of(QualType t) {
  t = t.getNonReferenceType();
  if (t->isPointerType()) t = t->getPointeeType();
  if (auto* rd = t->getAsCXXRecordDecl()) return rd->getNameAsString();
  return "";
}

bool is_cg_type(QualType t) {
  t = t.getNonReferenceType();
  if (t->isPointerType()) t = t->getPointeeType();
  auto* rd = t->getAsCXXRecordDecl();
  return rd && in_namespace(rd, "cooperative_groups");
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

bool BodyWalker::contains_effects(const clang::Expr* e) const {
  if (!e) return false;
  e = e->IgnoreParenImpCasts();
  if (isa<ArraySubscriptExpr>(e) || isa<CallExpr>(e)) return true;
  if (auto* m = dyn_cast<MemberExpr>(e); m && m->isArrow()) return true;
  if (auto* u = dyn_cast<UnaryOperator>(e); u && (u->getOpcode() == UO_Deref || u->isIncrementDecrementOp()))
    return true;
  if (auto* b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp()) return true;
  for (const Stmt* c : e->children())
    if (auto* ce = dyn_cast_or_null<clang::Expr>(c); ce && contains_effects(ce)) return true;
  return false;
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

// ------------------------------------------------------------- expressions

void BodyWalker::visit(const clang::Expr* e, Use use) {
  if (!e) return;
  e = e->IgnoreParens();

  if (auto* cast = dyn_cast<ImplicitCastExpr>(e)) {
    switch (cast->getCastKind()) {
      case CK_LValueToRValue: return visit(cast->getSubExpr(), Use::Load);
      case CK_ArrayToPointerDecay:
        // An array used as a pointer value (passed on, stored, offset).
        if (auto a = lowering_.address_of_lvalue(cast->getSubExpr())) escape_if_shared(*a);
        return visit_lvalue_parts(cast->getSubExpr());
      case CK_NoOp: return visit(cast->getSubExpr(), use);
      default: return visit(cast->getSubExpr(), Use::Value);
    }
  }
  if (isa<ArraySubscriptExpr>(e) || (isa<UnaryOperator>(e) && cast<UnaryOperator>(e)->getOpcode() == UO_Deref) ||
      (isa<MemberExpr>(e) && isa<FieldDecl>(cast<MemberExpr>(e)->getMemberDecl()))) {
    if (use == Use::Load || use == Use::Store || use == Use::LoadStore || use == Use::Atomic) record_access(e, use);
    return visit_lvalue_parts(e);
  }
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    if (auto* var = dyn_cast<VarDecl>(ref->getDecl())) {
      if (var->hasAttr<CUDASharedAttr>()) note_shared(var);
      // Compile-time constants (constexpr, const int = 32) are folded, not loaded,
      // although Clang makes namespace-scope ones implicitly __constant__.
      if (var->isUsableInConstantExpressions(ctx_)) return;
      if (use == Use::Load || use == Use::Store || use == Use::LoadStore || use == Use::Atomic) record_access(e, use);
    }
    return;
  }
  if (auto* bo = dyn_cast<BinaryOperator>(e)) {
    if (bo->isAssignmentOp()) {
      visit(bo->getRHS(), Use::Value);
      visit(bo->getLHS(), bo->getOpcode() == BO_Assign ? Use::Store : Use::LoadStore);
      apply_assignment(bo);
      return;
    }
    if (bo->isLogicalOp()) {
      visit(bo->getLHS(), Use::Value);
      if (!contains_effects(bo->getRHS())) return visit(bo->getRHS(), Use::Value);
      int id = add_condition(ConditionKind::ShortCircuit, lowering_.lower(bo->getLHS()), bo->getLHS(), bo);
      guards_.push_back({id, bo->getOpcode() == BO_LAnd});
      Env before = env_;
      visit(bo->getRHS(), Use::Value);
      guards_.pop_back();
      merge_env(env_, before, out_.conditions[id].expr);
      return;
    }
    visit(bo->getLHS(), Use::Value);
    visit(bo->getRHS(), Use::Value);
    return;
  }
  if (auto* uo = dyn_cast<UnaryOperator>(e)) {
    if (uo->isIncrementDecrementOp()) {
      visit(uo->getSubExpr(), Use::LoadStore);
      apply_increment(uo);
      return;
    }
    if (uo->getOpcode() == UO_AddrOf) {
      const clang::Expr* sub = uo->getSubExpr();
      if (auto a = lowering_.address_of_lvalue(sub)) escape_if_shared(*a);
      if (auto* v = as_local_variable(sub)) invalidate(v);
      return visit_lvalue_parts(sub);
    }
    return visit(uo->getSubExpr(), Use::Value);
  }
  if (auto* co = dyn_cast<AbstractConditionalOperator>(e)) {
    visit(co->getCond(), Use::Value);
    if (!contains_effects(co->getTrueExpr()) && !contains_effects(co->getFalseExpr())) {
      visit(co->getTrueExpr(), use);
      visit(co->getFalseExpr(), use);
      return;
    }
    ExprRef c = lowering_.lower(co->getCond());
    int id = add_condition(ConditionKind::Ternary, c, co->getCond(), co);
    Env before = env_;
    guards_.push_back({id, true});
    visit(co->getTrueExpr(), use);
    guards_.back().taken = false;
    Env after_true = env_;
    env_ = before;
    visit(co->getFalseExpr(), use);
    guards_.pop_back();
    merge_env(after_true, env_, c);
    return;
  }
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(e)) {
    OverloadedOperatorKind k = op->getOperator();
    bool assign = k == OO_Equal;
    bool compound = k == OO_PlusEqual || k == OO_MinusEqual || k == OO_StarEqual || k == OO_SlashEqual ||
                    k == OO_PercentEqual || k == OO_AmpEqual || k == OO_PipeEqual || k == OO_CaretEqual ||
                    k == OO_LessLessEqual || k == OO_GreaterGreaterEqual;
    if ((assign || compound) && op->getNumArgs() == 2) {
      visit(op->getArg(1), op->getArg(1)->isGLValue() ? Use::Load : Use::Value);
      visit(op->getArg(0), assign ? Use::Store : Use::LoadStore);
      if (auto* v = as_local_variable(op->getArg(0))) invalidate(v);
      return;
    }
    return visit_call(op);
  }
  if (auto* call = dyn_cast<CallExpr>(e)) return visit_call(call);
  if (auto* ctor = dyn_cast<CXXConstructExpr>(e)) {
    const CXXConstructorDecl* cd = ctor->getConstructor();
    // A copy (float4 v = a[i]; Particle p = ps[i]) reads the whole object.
    if (cd && cd->isCopyOrMoveConstructor() && ctor->getNumArgs() >= 1) {
      const clang::Expr* arg = ctor->getArg(0);
      auto* rd = arg->getType()->getAsCXXRecordDecl();
      bool empty = rd && rd->isEmpty();
      visit(arg, arg->isGLValue() && !empty ? Use::Load : Use::Value);
      return;
    }
    for (unsigned i = 0; i < ctor->getNumArgs(); ++i) {
      const clang::Expr* arg = ctor->getArg(i);
      QualType param = cd && i < cd->getNumParams() ? cd->getParamDecl(i)->getType() : QualType();
      visit(arg, !param.isNull() && param->isReferenceType() ? by_reference(param, arg) : Use::Value);
    }
    return;
  }
  if (isa<UnaryExprOrTypeTraitExpr>(e) || isa<LambdaExpr>(e) || isa<CXXNoexceptExpr>(e) ||
      isa<CXXTypeidExpr>(e))
    return;  // unevaluated, or a separate function body
  if (auto* se = dyn_cast<StmtExpr>(e)) {
    walk(se->getSubStmt());
    return;
  }
  if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) return visit(m->getSubExpr(), use);
  if (auto* fe = dyn_cast<FullExpr>(e)) return visit(fe->getSubExpr(), use);
  for (const Stmt* child : e->children())
    if (auto* ce = dyn_cast_or_null<clang::Expr>(child)) visit(ce, Use::Value);
}

// A pointer operand of an access (`p`, `p + i`, `(float4*)q`, `&a[i]`): its
// evaluated parts, without counting the array decay as an escape.
void BodyWalker::visit_pointer_operand(const clang::Expr* p) {
  p = p->IgnoreParens();
  while (true) {
    if (auto* c = dyn_cast<ImplicitCastExpr>(p); c && c->getCastKind() == CK_ArrayToPointerDecay)
      return visit_lvalue_parts(c->getSubExpr());
    if (auto* c = dyn_cast<CastExpr>(p); c && c->getCastKind() != CK_LValueToRValue) {
      p = c->getSubExpr()->IgnoreParens();
      continue;
    }
    if (auto* b = dyn_cast<BinaryOperator>(p); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub) &&
                                               b->getType()->isPointerType()) {
      const clang::Expr* ptr = b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS();
      const clang::Expr* off = ptr == b->getLHS() ? b->getRHS() : b->getLHS();
      visit(off, Use::Value);
      p = ptr->IgnoreParens();
      continue;
    }
    if (auto* u = dyn_cast<UnaryOperator>(p); u && u->getOpcode() == UO_AddrOf)
      return visit_lvalue_parts(u->getSubExpr());
    return visit(p, Use::Value);
  }
}

// The parts of an lvalue chain that are evaluated: indices and pointer bases.
void BodyWalker::visit_lvalue_parts(const clang::Expr* e) {
  e = e->IgnoreParens();
  if (auto* ase = dyn_cast<ArraySubscriptExpr>(e)) {
    visit_pointer_operand(ase->getBase());
    visit(ase->getIdx(), Use::Value);
  } else if (auto* uo = dyn_cast<UnaryOperator>(e); uo && uo->getOpcode() == UO_Deref) {
    visit_pointer_operand(uo->getSubExpr());
  } else if (auto* m = dyn_cast<MemberExpr>(e)) {
    if (m->isArrow()) visit_pointer_operand(m->getBase());
    else visit_lvalue_parts(m->getBase());
  } else if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    if (auto* var = dyn_cast<VarDecl>(ref->getDecl()); var && var->hasAttr<CUDASharedAttr>()) note_shared(var);
  } else if (auto* c = dyn_cast<ImplicitCastExpr>(e); c && c->getCastKind() == CK_NoOp) {
    visit_lvalue_parts(c->getSubExpr());
  } else {
    visit(e, Use::Value);
  }
}

// ------------------------------------------------------------- recording

void BodyWalker::note_shared(const VarDecl* var) {
  if (std::find(shared_vars_.begin(), shared_vars_.end(), var) == shared_vars_.end()) shared_vars_.push_back(var);
}

void BodyWalker::escape_if_shared(const Address& a) {
  if (a.kind == RootKind::Shared)
    if (auto* var = dyn_cast_or_null<VarDecl>(a.root)) {
      note_shared(var);
      escaped_.insert(var);
    }
}

void BodyWalker::record_access(const clang::Expr* lvalue, Use use) {
  if (!map_.in_target(lvalue->getBeginLoc())) return;
  std::optional<Address> addr = lowering_.address_of_lvalue(lvalue);
  if (addr && addr->kind == RootKind::LocalValue) return;  // a register, not memory
  MemoryAccess a;
  a.spelling = map_.text(lvalue->getSourceRange());
  a.range = map_.range(lvalue->getSourceRange());
  a.element_type = lowering_.type_name(lvalue->getType());
  a.element_bytes = static_cast<int>(lowering_.size_of(lvalue->getType()));
  if (!lvalue->getType()->isIncompleteType() && !lvalue->getType()->isDependentType())
    a.element_align = static_cast<int>(ctx_.getTypeAlignInChars(lvalue->getType()).getQuantity());
  a.in_macro = lvalue->getBeginLoc().isMacroID();
  a.guards = guards_;
  a.loops = loops_;
  if (addr) {
    a.space = addr->space(in_kernel_);
    a.base = addr->root_name;
    a.index = addr->index();
    a.byte_offset = addr->byte_offset();
    a.reinterpreted = addr->reinterpreted;
    a.through_pointer_arithmetic = addr->arithmetic;
    a.base_param = addr->param_index;
    if (addr->kind == RootKind::Shared) {
      a.shared_array = addr->root_name;
      if (auto* var = dyn_cast_or_null<VarDecl>(addr->root)) note_shared(var);
      if (addr->reinterpreted || addr->arithmetic) escape_if_shared(*addr);
    }
  } else {
    a.space = MemorySpace::Generic;
  }
  auto push = [&](AccessKind k) {
    MemoryAccess copy = a;
    copy.kind = k;
    out_.accesses.push_back(std::move(copy));
  };
  switch (use) {
    case Use::Load: push(AccessKind::Load); break;
    case Use::Store: push(AccessKind::Store); break;
    case Use::LoadStore: push(AccessKind::Load); push(AccessKind::Store); break;
    case Use::Atomic: push(AccessKind::Atomic); break;
    default: break;
  }
}

void BodyWalker::record_pointer_access(const clang::Expr* pointer, AccessKind kind) {
  const clang::Expr* p = pointer->IgnoreParenImpCasts();
  const clang::Expr* shown = pointer;
  if (auto* u = dyn_cast<UnaryOperator>(p); u && u->getOpcode() == UO_AddrOf) {
    // atomicAdd(&a[i], v): the access is a[i], as written.
    Use use = kind == AccessKind::Atomic ? Use::Atomic : kind == AccessKind::Store ? Use::Store : Use::Load;
    return record_access(u->getSubExpr(), use);
  }
  if (!map_.in_target(pointer->getBeginLoc())) return;
  QualType elem = pointer->getType()->isPointerType() ? pointer->getType()->getPointeeType() : QualType();
  std::optional<Address> addr = lowering_.address_of_pointer(pointer);
  MemoryAccess a;
  a.kind = kind;
  a.spelling = map_.text(shown->getSourceRange());
  a.range = map_.range(shown->getSourceRange());
  if (!elem.isNull()) {
    a.element_type = lowering_.type_name(elem);
    a.element_bytes = static_cast<int>(lowering_.size_of(elem));
    if (!elem->isIncompleteType() && !elem->isDependentType())
      a.element_align = static_cast<int>(ctx_.getTypeAlignInChars(elem).getQuantity());
  }
  a.in_macro = pointer->getBeginLoc().isMacroID();
  a.guards = guards_;
  a.loops = loops_;
  if (addr && addr->kind != RootKind::LocalValue) {
    a.space = addr->space(in_kernel_);
    a.base = addr->root_name;
    a.index = addr->index();
    a.byte_offset = addr->byte_offset();
    a.reinterpreted = addr->reinterpreted;
    a.through_pointer_arithmetic = addr->arithmetic;
    a.base_param = addr->param_index;
    if (addr->kind == RootKind::Shared) {
      a.shared_array = addr->root_name;
      if (addr->reinterpreted || addr->arithmetic) escape_if_shared(*addr);
    }
  } else {
    a.space = MemorySpace::Generic;
    if (addr) a.base = addr->root_name;
  }
  out_.accesses.push_back(std::move(a));
}

bool BodyWalker::record_barrier(const CallExpr* call) {
  const FunctionDecl* callee = call->getDirectCallee();
  std::string name = name_of(callee);
  std::optional<BarrierKind> kind;
  if (name == "__syncthreads" || name == "__syncthreads_count" || name == "__syncthreads_and" ||
      name == "__syncthreads_or" || name == "__barrier_sync" || name == "__barrier_sync_count" ||
      name == "__nvvm_bar_sync" || name == "__nvvm_barrier_sync")
    kind = BarrierKind::SyncThreads;
  else if (name == "__syncwarp")
    kind = BarrierKind::SyncWarp;
  else if (const clang::Expr* object = call_object(call)) {
    QualType obj = object->getType();
    std::string group = record_of(obj);
    if (name == "sync" && is_cg_type(obj))
      kind = (group == "thread_block_tile" || group == "coalesced_group" || starts_with(group, "__static_size"))
                 ? BarrierKind::SyncWarp
                 : BarrierKind::CooperativeGroup;
    else if (name == "arrive_and_wait" && group == "barrier")
      kind = BarrierKind::CooperativeGroup;
  } else if (name == "sync" && callee && in_namespace(callee, "cooperative_groups") && call->getNumArgs() == 1) {
    std::string group = record_of(call->getArg(0)->getType());
    kind = (group == "thread_block_tile" || group == "coalesced_group") ? BarrierKind::SyncWarp
                                                                         : BarrierKind::CooperativeGroup;
  }
  if (!kind) return false;
  if (!map_.in_target(call->getBeginLoc())) return true;
  Barrier b;
  b.kind = *kind;
  b.spelling = map_.text(call->getSourceRange());
  b.range = map_.range(call->getSourceRange());
  b.guards = guards_;
  b.loops = loops_;
  out_.barriers.push_back(std::move(b));
  return true;
}

void BodyWalker::record_call_site(const CallExpr* call, const FunctionDecl* callee) {
  if (!map_.in_target(call->getBeginLoc())) return;
  CallSite site;
  site.callee = name_of(callee);
  site.callee_key = key_of_(callee);
  site.range = map_.range(call->getSourceRange());
  site.guards = guards_;
  site.loops = loops_;
  for (unsigned i = 0; i < call->getNumArgs(); ++i) {
    const clang::Expr* arg = call->getArg(i);
    if (arg->getType()->isPointerType() || arg->getType()->isArrayType()) {
      auto addr = lowering_.address_of_pointer(arg);
      ExprRef offset = addr ? addr->byte_offset() : nullptr;
      site.args.push_back(Expr::opaque(map_.text(arg->getSourceRange()), offset && !is_lane_varying(offset)));
      if (addr && addr->is_memory()) {
        PointerTarget t;
        t.space = addr->space(in_kernel_);
        t.base = addr->root_name;
        t.base_param = addr->param_index;
        if (addr->kind == RootKind::Shared) t.shared_array = addr->root_name;
        t.byte_offset = offset;
        site.pointer_args.push_back(std::move(t));
      } else {
        site.pointer_args.push_back(std::nullopt);
      }
    } else {
      site.args.push_back(lowering_.lower(arg));
      site.pointer_args.push_back(std::nullopt);
    }
  }
  out_.calls.push_back(std::move(site));
}

// An lvalue bound to a reference parameter. Scalars and small vector-like
// values (`min(a[i], b)`, `swap(x[i], x[j])`) are read (and, through a
// non-const reference, possibly written) by the callee as a value; larger
// objects (cub TempStorage, arrays, wmma fragments) are passed by address:
// no access here, and for __shared__ objects an escape.
BodyWalker::Use BodyWalker::by_reference(QualType param, const clang::Expr* arg) {
  if (!arg->isGLValue()) return Use::Value;
  QualType t = arg->getType();
  bool value_like = t->isScalarType();
  if (auto* rd = t->getAsCXXRecordDecl(); rd && rd->hasDefinition() && rd->isTriviallyCopyable()) {
    // Vector-like: float4, __half2, a small struct of scalars.
    int fields = 0;
    bool scalars = true;
    for (const FieldDecl* f : rd->fields()) {
      ++fields;
      scalars = scalars && (f->getType()->isScalarType() || f->getType()->isRecordType());
    }
    std::int64_t size = lowering_.size_of(t);
    value_like = scalars && fields >= 1 && fields <= 4 && size > 0 && size <= 16 && rd->bases().empty();
  }
  if (!value_like) {
    if (auto a = lowering_.address_of_lvalue(arg)) escape_if_shared(*a);
    return Use::Address;
  }
  bool is_const = param->getPointeeType().isConstQualified() || param->isRValueReferenceType();
  return is_const ? Use::Load : Use::LoadStore;
}

void BodyWalker::visit_args(const CallExpr* call, const FunctionDecl* callee, unsigned first) {
  for (unsigned i = first; i < call->getNumArgs(); ++i) {
    const clang::Expr* arg = call->getArg(i);
    QualType param;
    if (callee && i < callee->getNumParams()) param = callee->getParamDecl(i)->getType();
    if (!param.isNull() && param->isReferenceType()) {
      visit(arg, by_reference(param, arg));
      bool is_const = param->getPointeeType().isConstQualified() || param->isRValueReferenceType();
      if (!is_const)
        if (auto* v = as_local_variable(arg)) invalidate(v);
      continue;
    }
    visit(arg, Use::Value);
    if (arg->getType()->isPointerType())
      if (auto a = lowering_.address_of_pointer(arg)) escape_if_shared(*a);
  }
}

void BodyWalker::visit_call(const CallExpr* call) {
  const FunctionDecl* callee = call->getDirectCallee();
  std::string name = name_of(callee);
  if (record_barrier(call)) {
    if (const clang::Expr* object = call_object(call)) visit(object, Use::Value);
    visit_args(call, callee, 0);
    return;
  }
  bool member = call_object(call) || isa<CXXOperatorCallExpr>(call);
  if (!member && call->getNumArgs() >= 1) {
    std::optional<AccessKind> kind;
    if (starts_with(name, "atomic") || starts_with(name, "__nv_atomic")) kind = AccessKind::Atomic;
    else if (name == "__ldg" || name == "__ldcg" || name == "__ldca" || name == "__ldcs" || name == "__ldlu" ||
             name == "__ldcv")
      kind = AccessKind::Load;
    else if (name == "__stcg" || name == "__stcs" || name == "__stwb" || name == "__stwt")
      kind = AccessKind::Store;
    if (kind && call->getArg(0)->getType()->isPointerType()) {
      record_pointer_access(call->getArg(0), *kind);
      visit_pointer_operand(call->getArg(0));
      for (unsigned i = 1; i < call->getNumArgs(); ++i) visit(call->getArg(i), Use::Value);
      return;
    }
  }
  if (const clang::Expr* object = call_object(call)) visit(object, Use::Value);
  const FunctionDecl* def = callee ? callee->getDefinition() : nullptr;
  if (def && def->hasBody() && !isa<CXXOperatorCallExpr>(call) &&
      (def->hasAttr<CUDADeviceAttr>() || def->hasAttr<CUDAGlobalAttr>()) &&
      !ctx_.getSourceManager().isInSystemHeader(ctx_.getSourceManager().getExpansionLoc(def->getLocation()))) {
    auto* method = dyn_cast<CXXMethodDecl>(def);
    if (!method || !method->getParent()->isLambda()) record_call_site(call, def);
  }
  unsigned first = 0;
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(call); op && isa_and_nonnull<CXXMethodDecl>(callee)) {
    // Member operators: argument 0 is the object.
    visit(op->getArg(0), Use::Value);
    first = 1;
    for (unsigned i = 1; i < call->getNumArgs(); ++i) {
      const clang::Expr* arg = call->getArg(i);
      QualType param = i - 1 < callee->getNumParams() ? callee->getParamDecl(i - 1)->getType() : QualType();
      visit(arg, !param.isNull() && param->isReferenceType() && arg->isGLValue() ? Use::Load : Use::Value);
    }
    return;
  }
  visit_args(call, callee, first);
}

}  // namespace warplens::clang_frontend
