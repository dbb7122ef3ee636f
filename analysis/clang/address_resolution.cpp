// Lvalues and pointers -> Address: the root they are computed from (a
// parameter, a __shared__/__device__/__constant__ variable, a local array)
// and the byte offset from it, through casts, pointer arithmetic, pointer
// locals, struct fields, `this`, and one-line accessors.
#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>

#include "analysis/clang/ast_helpers.h"
#include "analysis/clang/expr_lowering.h"
#include "analysis/clang/ir_build.h"

using namespace clang;

namespace warplens::clang_frontend {

// ------------------------------------------------------------------ Address

ExprRef Address::byte_offset() const {
  if (offset_unknown) return nullptr;
  ExprRef sum = Expr::constant(0);
  for (const auto& t : terms) sum = ir_add(sum, ir_scale(t.index, t.scale));
  return sum;
}

ExprRef Address::index() const {
  if (index_unit <= 0) {
    // Element size unknown (a dependent type in a template pattern): a
    // single subscript is still an index in elements.
    const Term* only = nullptr;
    for (const auto& t : terms)
      if (t.subscript) {
        if (only) return nullptr;
        only = &t;
      }
    return only ? only->index : nullptr;
  }
  if (offset_unknown) return nullptr;
  ExprRef sum = Expr::constant(0);
  for (const auto& t : terms) {
    if (!t.subscript) continue;
    ExprRef part;
    if (t.scale % index_unit == 0) part = ir_scale(t.index, t.scale / index_unit);
    else if (index_unit % t.scale == 0) part = ir_divide_exact(t.index, index_unit / t.scale);
    if (!part) return nullptr;
    sum = ir_add(sum, part);
  }
  return sum;
}

MemorySpace Address::space(bool in_kernel) const {
  switch (kind) {
    case RootKind::Shared: return MemorySpace::Shared;
    case RootKind::GlobalVar: return MemorySpace::Global;
    case RootKind::ConstantVar: return MemorySpace::Constant;
    case RootKind::LocalArray: return MemorySpace::Local;
    // A kernel's pointer parameters point to global memory; a device
    // function's may point anywhere (the caller decides).
    case RootKind::Param: return in_kernel ? MemorySpace::Global : MemorySpace::Generic;
    default: return MemorySpace::Generic;
  }
}

std::optional<Address> Lowering::address_of_call_result(const CallExpr* call) {
  const FunctionDecl* callee = call->getDirectCallee();
  if (!callee || !callee->hasBody() || in_system_header(map_.sm(), callee->getLocation()) ||
      !callee->getReturnType()->isReferenceType())
    return std::nullopt;
  const ReturnStmt* ret = single_return(callee);
  if (!ret || !bind_call(call, callee)) return std::nullopt;
  std::optional<Address> a = address_of_lvalue(ret->getRetValue());
  bindings_.pop_back();
  if (a && a->kind == RootKind::LocalValue) return std::nullopt;
  return a;
}

// A helper that returns a pointer it computes from its arguments or from a
// __shared__ array it declares: CUDA's `SharedMemory<T>` idiom,
// `operator T*() { extern __shared__ int __smem[]; return (T*)__smem; }`,
// and `float* row(float* p, int r) { return p + r * ld; }`. Followed like a
// one-line accessor: the return expression in the caller's terms.
std::optional<Address> Lowering::address_of_pointer_result(const CallExpr* call) {
  const FunctionDecl* callee = call->getDirectCallee();
  if (!callee || !callee->hasBody() || in_system_header(map_.sm(), callee->getLocation()) ||
      !callee->getReturnType()->isPointerType())
    return std::nullopt;
  auto* body = dyn_cast_or_null<CompoundStmt>(callee->getBody());
  if (!body || body->body_empty()) return std::nullopt;
  // Only `extern __shared__` / `__shared__` declarations before the return.
  const ReturnStmt* ret = nullptr;
  for (const Stmt* s : body->body()) {
    if (ret) return std::nullopt;
    if (auto* r = dyn_cast<ReturnStmt>(s)) {
      ret = r;
      continue;
    }
    auto* ds = dyn_cast<DeclStmt>(s);
    if (!ds) return std::nullopt;
    for (const Decl* d : ds->decls()) {
      auto* v = dyn_cast<VarDecl>(d);
      if (!v || !v->hasAttr<CUDASharedAttr>()) return std::nullopt;
    }
  }
  if (!ret || !ret->getRetValue() || !bind_call(call, callee)) return std::nullopt;
  std::optional<Address> a = address_of_pointer(ret->getRetValue());
  bindings_.pop_back();
  if (a && !a->is_memory()) return std::nullopt;
  return a;
}

// `p.field.sub` or, inside an inlined member function, `this->field` with
// `this` bound to a by-value struct parameter: (that parameter, "p.field").
std::optional<std::pair<const ParmVarDecl*, std::string>> Lowering::parameter_field(const MemberExpr* m) {
  std::string path = m->getMemberDecl()->getNameAsString();
  const clang::Expr* b = m->getBase()->IgnoreParenImpCasts();
  size_t level = bindings_.size();
  for (int guard = 0; guard < 16; ++guard) {
    if (auto* inner = dyn_cast<MemberExpr>(b)) {
      bool through_this = inner->isArrow() && isa<CXXThisExpr>(inner->getBase()->IgnoreParenImpCasts());
      if (inner->isArrow() && !through_this) return std::nullopt;
      path = inner->getMemberDecl()->getNameAsString() + "." + path;
      b = inner->getBase()->IgnoreParenImpCasts();
      continue;
    }
    if (auto* deref = dyn_cast<UnaryOperator>(b);
        deref && deref->getOpcode() == UO_Deref && isa<CXXThisExpr>(deref->getSubExpr()->IgnoreParenImpCasts()))
      b = deref->getSubExpr()->IgnoreParenImpCasts();  // (*this)
    if (isa<CXXThisExpr>(b)) {
      // Up one inlining level: the object the member function was called on.
      while (level > 0 && !bindings_[level - 1].object) --level;
      if (level == 0) return std::nullopt;
      b = bindings_[--level].object->IgnoreParenImpCasts();
      continue;
    }
    break;
  }
  if (auto* ref = dyn_cast<DeclRefExpr>(b))
    if (auto* parm = dyn_cast<ParmVarDecl>(ref->getDecl()); parm && param_index(parm) >= 0 &&
                                                            !parm->getType()->isPointerType())
      return std::make_pair(parm, parm->getNameAsString() + "." + path);
  return std::nullopt;
}

// ---------------------------------------------------------------- addresses

std::optional<Address> Lowering::address_of_pointer(const clang::Expr* e) {
  if (!e || depth_ > kMaxDepth) return std::nullopt;
  e = e->IgnoreParens();
  if (auto* fc = dyn_cast<FullExpr>(e)) return address_of_pointer(fc->getSubExpr());
  if (auto* s = dyn_cast<SubstNonTypeTemplateParmExpr>(e)) return address_of_pointer(s->getReplacement());

  if (auto* cast = dyn_cast<CastExpr>(e)) {
    const clang::Expr* sub = cast->getSubExpr();
    switch (cast->getCastKind()) {
      case CK_ArrayToPointerDecay:
        return address_of_lvalue(sub);
      case CK_LValueToRValue:
      case CK_NoOp:
      case CK_BitCast:
      case CK_AddressSpaceConversion:
      case CK_UncheckedDerivedToBase:
      case CK_DerivedToBase: {
        std::optional<Address> a = cast->getCastKind() == CK_LValueToRValue ? address_of_pointer(sub)
                                                                             : address_of_pointer(sub);
        if (!a) return a;
        QualType from = sub->getType(), to = cast->getType();
        if (from->isPointerType() && to->isPointerType()) {
          QualType pf = from->getPointeeType().getUnqualifiedType().getCanonicalType();
          QualType pt = to->getPointeeType().getUnqualifiedType().getCanonicalType();
          if (pf != pt && !pt->isVoidType() && !pf->isVoidType()) a->reinterpreted = true;
          if (pf->isVoidType() && !pt->isVoidType() && a->index_unit > 0 &&
              size_of(to->getPointeeType()) != a->index_unit)
            a->reinterpreted = true;
          // Subscripts of the new view step over its element type.
          if (!pt->isVoidType())
            if (std::int64_t s = size_of(to->getPointeeType())) a->index_unit = s;
        }
        return a;
      }
      // `T* sdata = SharedMemory<T>();`: the conversion operator's result.
      case CK_UserDefinedConversion:
        return address_of_pointer(sub);
      default:
        return std::nullopt;
    }
  }
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    auto* var = dyn_cast<VarDecl>(ref->getDecl());
    if (!var) return std::nullopt;
    if (env_)
      if (auto it = env_->pointers.find(var); it != env_->pointers.end()) return it->second;
    if (auto* parm = dyn_cast<ParmVarDecl>(var); parm && param_index(parm) >= 0) {
      Address a;
      a.kind = RootKind::Param;
      a.root = parm;
      a.root_name = parm->getNameAsString();
      a.param_index = param_index(parm);
      a.index_unit = size_of(parm->getType()->isPointerType() ? parm->getType()->getPointeeType() : QualType());
      return a;
    }
    if (var->getType()->isArrayType()) return address_of_lvalue(ref);
    Address unknown;
    unknown.root_name = var->getNameAsString();
    if (var->getType()->isPointerType()) unknown.index_unit = size_of(var->getType()->getPointeeType());
    return unknown;
  }
  if (auto* m = dyn_cast<MemberExpr>(e); m && (!m->isArrow() || isa<CXXThisExpr>(m->getBase()->IgnoreParenImpCasts()))) {
    // A pointer field of a by-value struct parameter: params.data (or
    // this->data in an accessor called on one).
    if (auto pf = parameter_field(m)) {
      Address a;
      a.kind = RootKind::Param;
      a.root = pf->first;
      a.root_name = pf->second;
      a.param_index = param_index(pf->first);
      if (m->getType()->isPointerType()) a.index_unit = size_of(m->getType()->getPointeeType());
      return a;
    }
  }
  if (auto* bo = dyn_cast<BinaryOperator>(e)) {
    if (bo->getOpcode() == BO_Comma) return address_of_pointer(bo->getRHS());
    if (bo->isAssignmentOp()) return address_of_pointer(bo->getLHS());
    if (bo->getOpcode() != BO_Add && bo->getOpcode() != BO_Sub) return std::nullopt;
    const clang::Expr* ptr = bo->getLHS();
    const clang::Expr* off = bo->getRHS();
    if (!ptr->getType()->isPointerType()) std::swap(ptr, off);
    if (!ptr->getType()->isPointerType() || off->getType()->isPointerType()) return std::nullopt;
    auto a = address_of_pointer(ptr);
    if (!a) return a;
    ExprRef k = lower(off);
    if (bo->getOpcode() == BO_Sub) k = Expr::unary(ExprOp::Neg, k);
    std::int64_t elem = size_of(ptr->getType()->getPointeeType());
    if (elem == 0) a->offset_unknown = true;
    a->terms.push_back({k, elem, true});
    a->index_unit = elem;
    a->arithmetic = true;
    return a;
  }
  if (auto* uo = dyn_cast<UnaryOperator>(e)) {
    if (uo->getOpcode() == UO_AddrOf) return address_of_lvalue(uo->getSubExpr());
    if (uo->getOpcode() == UO_PostInc || uo->getOpcode() == UO_PostDec) return address_of_pointer(uo->getSubExpr());
    return std::nullopt;
  }
  if (auto* co = dyn_cast<ConditionalOperator>(e)) {
    auto a = address_of_pointer(co->getTrueExpr()), b = address_of_pointer(co->getFalseExpr());
    if (!a || !b || a->root != b->root || a->kind != b->kind) return std::nullopt;
    Address r = *a;
    r.terms.clear();
    ExprRef oa = a->byte_offset(), ob = b->byte_offset();
    r.terms.push_back({Expr::select(lower(co->getCond()), oa, ob), 1, true});
    r.offset_unknown = !oa || !ob;
    r.arithmetic = true;
    return r;
  }
  if (auto* call = dyn_cast<CallExpr>(e)) {
    // std::addressof / thrust::raw_pointer_cast-like identity helpers.
    std::string name = callee_name(call->getDirectCallee());
    if ((name == "addressof" || name == "__builtin_addressof") && call->getNumArgs() == 1)
      return address_of_lvalue(call->getArg(0));
    if (auto a = address_of_pointer_result(call)) return a;
  }
  // `this`: the object a member function runs on, modelled like a local
  // (reading its fields is not a memory access of the kernel's own).
  if (isa<CXXThisExpr>(e)) {
    // Inside an inlined member function: the address of the call's object,
    // evaluated at the level of inlining the call was made from.
    size_t level = bindings_.size();
    while (level > 0 && !bindings_[level - 1].object) --level;
    if (level > 0) {
      std::vector<Inlined> inner(bindings_.begin() + static_cast<long>(level) - 1, bindings_.end());
      const clang::Expr* object = bindings_[level - 1].object;
      bindings_.resize(level - 1);
      std::optional<Address> a = address_of_lvalue(object);
      bindings_.insert(bindings_.end(), inner.begin(), inner.end());
      return a;
    }
    Address self;
    self.kind = RootKind::LocalValue;
    self.root_name = "this";
    return self;
  }
  // A pointer the builder cannot follow (this->data, a call's result, a
  // pointer loaded from memory): an unknown root, but subscripts on it still
  // give an index and an offset relative to it.
  if (e->getType()->isPointerType()) {
    Address unknown;
    unknown.root_name = spelling(e);
    unknown.index_unit = size_of(e->getType()->getPointeeType());
    return unknown;
  }
  return std::nullopt;
}

std::optional<Address> Lowering::address_of_lvalue(const clang::Expr* e) {
  if (!e || depth_ > kMaxDepth) return std::nullopt;
  e = e->IgnoreParens();
  if (auto* cast = dyn_cast<ImplicitCastExpr>(e); cast && cast->getCastKind() == CK_NoOp)
    return address_of_lvalue(cast->getSubExpr());
  if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) return address_of_lvalue(m->getSubExpr());

  if (auto* ase = dyn_cast<ArraySubscriptExpr>(e)) {
    auto a = address_of_pointer(ase->getBase());
    if (!a) return a;
    std::int64_t elem = size_of(ase->getType());
    ++depth_;
    ExprRef idx = lower(ase->getIdx());
    --depth_;
    if (elem == 0) a->offset_unknown = true;
    a->terms.push_back({idx, elem, true});
    a->index_unit = elem;
    return a;
  }
  if (auto* uo = dyn_cast<UnaryOperator>(e); uo && uo->getOpcode() == UO_Deref) {
    auto a = address_of_pointer(uo->getSubExpr());
    if (!a) return a;
    a->index_unit = size_of(uo->getType());
    return a;
  }
  if (auto* m = dyn_cast<MemberExpr>(e)) {
    std::optional<Address> a = m->isArrow() ? address_of_pointer(m->getBase()) : address_of_lvalue(m->getBase());
    if (!a) return a;
    if (m->isArrow()) a->index_unit = size_of(m->getBase()->getType()->getPointeeType());
    auto* field = dyn_cast<FieldDecl>(m->getMemberDecl());
    if (!field || field->getParent()->isDependentType() || field->getParent()->isInvalidDecl() ||
        !field->getParent()->isCompleteDefinition()) {
      if (!field) return std::nullopt;  // a method or static member: not an lvalue we follow
      a->offset_unknown = true;
      return a;
    }
    std::int64_t offset = static_cast<std::int64_t>(ctx_.getFieldOffset(field) / ctx_.getCharWidth());
    a->terms.push_back({Expr::constant(offset), 1, false});
    return a;
  }
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    auto* var = dyn_cast<VarDecl>(ref->getDecl());
    if (!var) return std::nullopt;
    if (auto* parm = dyn_cast<ParmVarDecl>(var); parm && is_value_reference_param(parm)) {
      Address a;
      a.kind = RootKind::Param;
      a.root = parm;
      a.root_name = parm->getNameAsString();
      a.param_index = param_index(parm);
      a.index_unit = size_of(parm->getType().getNonReferenceType());
      return a;
    }
    Address a;
    a.root = var;
    a.root_name = var->getNameAsString();
    QualType t = var->getType();
    if (var->hasAttr<CUDASharedAttr>()) a.kind = RootKind::Shared;
    else if (var->hasAttr<CUDAConstantAttr>()) a.kind = RootKind::ConstantVar;
    else if (var->hasGlobalStorage() && !var->isStaticLocal() &&
             (var->hasAttr<CUDADeviceAttr>() || var->hasAttr<HIPManagedAttr>()))
      a.kind = RootKind::GlobalVar;
    else if (var->isLocalVarDeclOrParm() && t->isArrayType()) a.kind = RootKind::LocalArray;
    else a.kind = RootKind::LocalValue;
    // Element size of the innermost element, for scalars and arrays alike.
    QualType elem = t;
    while (auto* at = ctx_.getAsArrayType(elem)) elem = at->getElementType();
    a.index_unit = size_of(elem);
    return a;
  }
  if (auto* call = dyn_cast<CallExpr>(e)) return address_of_call_result(call);
  return std::nullopt;
}

}  // namespace warplens::clang_frontend
