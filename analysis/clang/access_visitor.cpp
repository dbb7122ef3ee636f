// Expressions of a function body: memory accesses (with their kind: load,
// store, read-modify-write, atomic), barriers, calls to device functions,
// escapes of __shared__ arrays, and the side effects on tracked locals.
#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include "analysis/clang/ast_helpers.h"
#include "analysis/clang/body_walker.h"
#include "analysis/clang/ir_build.h"

using namespace clang;

namespace warplens::clang_frontend {

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
    record_arithmetic(bo);
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
    if (visit_accessor(op, use)) return;
    return visit_call(op);
  }
  if (auto* call = dyn_cast<CallExpr>(e)) {
    if (visit_accessor(call, use)) return;
    return visit_call(call);
  }
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

// `w[i] = x` / `m.at(r, c) += 1` through a one-line accessor returning a
// reference: the access happens here, at the call (see
// Lowering::address_of_call_result); the call is not a call site.
bool BodyWalker::visit_accessor(const CallExpr* call, Use use) {
  if (use != Use::Load && use != Use::Store && use != Use::LoadStore && use != Use::Atomic) return false;
  if (!call->isGLValue() || !lowering_.address_of_call_result(call)) return false;
  record_access(call, use);
  const clang::Expr* object = isa<CXXOperatorCallExpr>(call) ? nullptr : call_object(call);
  if (object) visit(object, Use::Address);
  for (unsigned i = 0; i < call->getNumArgs(); ++i)
    visit(call->getArg(i), i == 0 && isa<CXXOperatorCallExpr>(call) ? Use::Address : Use::Value);
  return true;
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
  std::string name = callee_name(callee);
  std::optional<BarrierKind> kind;
  if (name == "__syncthreads" || name == "__syncthreads_count" || name == "__syncthreads_and" ||
      name == "__syncthreads_or" || name == "__barrier_sync" || name == "__barrier_sync_count" ||
      name == "__nvvm_bar_sync" || name == "__nvvm_barrier_sync")
    kind = BarrierKind::SyncThreads;
  else if (name == "__syncwarp")
    kind = BarrierKind::SyncWarp;
  else if (const clang::Expr* object = call_object(call)) {
    QualType obj = object->getType();
    std::string group = record_name(obj);
    if (name == "sync" && is_cooperative_groups_type(obj))
      kind = (group == "thread_block_tile" || group == "coalesced_group" || starts_with(group, "__static_size"))
                 ? BarrierKind::SyncWarp
                 : BarrierKind::CooperativeGroup;
    else if (name == "arrive_and_wait" && group == "barrier")
      kind = BarrierKind::CooperativeGroup;
  } else if (name == "sync" && callee && in_namespace(callee, "cooperative_groups") && call->getNumArgs() == 1) {
    std::string group = record_name(call->getArg(0)->getType());
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
  site.callee = callee_name(callee);
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
    } else if (i < callee->getNumParams() && callee->getParamDecl(i)->getType()->isLValueReferenceType() &&
               arg->isGLValue() && lowering_.is_value_like(callee->getParamDecl(i)->getType())) {
      // `uint& keyA` bound to `s_key[pos]`: the callee reads and writes the
      // caller's memory through it, like a pointer `&s_key[pos]`.
      site.args.push_back(lowering_.lower(arg));
      auto addr = lowering_.address_of_lvalue(arg);
      if (addr && addr->is_memory()) {
        PointerTarget t;
        t.space = addr->space(in_kernel_);
        t.base = addr->root_name;
        t.base_param = addr->param_index;
        if (addr->kind == RootKind::Shared) t.shared_array = addr->root_name;
        t.byte_offset = addr->byte_offset();
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

void BodyWalker::visit_args(const CallExpr* call, const FunctionDecl* callee, unsigned first, bool inlined) {
  for (unsigned i = first; i < call->getNumArgs(); ++i) {
    const clang::Expr* arg = call->getArg(i);
    QualType param;
    if (callee && i < callee->getNumParams()) param = callee->getParamDecl(i)->getType();
    if (!param.isNull() && param->isReferenceType()) {
      // The inlined callee's own lines read and write a value-like
      // reference (record_call_site); here only the lvalue's parts run.
      bool in_callee = inlined && param->isLValueReferenceType() && arg->isGLValue() && lowering_.is_value_like(param);
      visit(arg, in_callee ? Use::Address : by_reference(param, arg));
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

// Floating-point + - * / (and their compound assignments) count one flop
// each, for the roofline's arithmetic intensity; integer arithmetic
// (indices) does not.
void BodyWalker::record_arithmetic(const clang::BinaryOperator* bo) {
  switch (bo->getOpcode()) {
    case BO_Add: case BO_Sub: case BO_Mul: case BO_Div:
    case BO_AddAssign: case BO_SubAssign: case BO_MulAssign: case BO_DivAssign: break;
    default: return;
  }
  QualType t = bo->isCompoundAssignmentOp() ? cast<CompoundAssignOperator>(bo)->getComputationResultType()
                                            : bo->getType();
  if (!t->isRealFloatingType()) return;
  out_.flops.push_back({1, ctx_.getTypeSize(t) > 32, loops_});
}

// Math library calls: a fused multiply-add is two flops; the other
// floating-point functions (sqrtf, expf, __fdividef, ...) count one
// operation each, as a roofline counts them.
void BodyWalker::record_math_call(const std::string& name, const clang::CallExpr* call) {
  if (!call->getType()->isRealFloatingType()) return;
  static const char* const kFma[] = {"fma", "fmaf", "__fmaf_rn", "__fmaf_rz", "__fmaf_ru", "__fmaf_rd",
                                     "__fma_rn", "__fma_rz", "__fma_ru", "__fma_rd", "__fmaf_ieee_rn"};
  int flops = 0;
  for (const char* f : kFma) flops = name == f ? 2 : flops;
  if (!flops) {
    const FunctionDecl* callee = call->getDirectCallee();
    if (!callee || !ctx_.getSourceManager().isInSystemHeader(ctx_.getSourceManager().getExpansionLoc(callee->getLocation())))
      return;  // the user's own functions are walked, not counted
    flops = 1;
  }
  out_.flops.push_back({flops, ctx_.getTypeSize(call->getType()) > 32, loops_});
}

void BodyWalker::visit_call(const CallExpr* call) {
  const FunctionDecl* callee = call->getDirectCallee();
  std::string name = callee_name(callee);
  record_math_call(name, call);
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
  bool inlined = false;
  if (def && def->hasBody() && !isa<CXXOperatorCallExpr>(call) &&
      (def->hasAttr<CUDADeviceAttr>() || def->hasAttr<CUDAGlobalAttr>()) &&
      !ctx_.getSourceManager().isInSystemHeader(ctx_.getSourceManager().getExpansionLoc(def->getLocation()))) {
    auto* method = dyn_cast<CXXMethodDecl>(def);
    if (!method || !method->getParent()->isLambda()) {
      record_call_site(call, def);
      inlined = map_.in_target(call->getBeginLoc()) && !def->hasAttr<CUDAGlobalAttr>();
    }
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
  visit_args(call, callee, first, inlined);
}

}  // namespace warplens::clang_frontend
