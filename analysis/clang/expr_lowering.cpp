// Clang expressions -> index IR; lvalues and pointers -> Address.
//
// The IR is what the warp model evaluates lane by lane, so the rules here
// decide the analyses' precision: constants are folded with Clang's own
// evaluator (constexpr, macros, template arguments, sizeof), the builtin
// index variables become symbols, locals are replaced by their current value
// (tracked by the body walker in Env), and anything else becomes an Opaque
// leaf whose only property is whether it is warp-uniform.
#include "analysis/clang/expr_lowering.h"

#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/RecordLayout.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>

#include "analysis/clang/ast_helpers.h"
#include "analysis/clang/ir_build.h"

using namespace clang;

namespace warplens::clang_frontend {

namespace {

// Intrinsics whose result differs per lane whatever their arguments.
bool is_lane_varying_intrinsic(const std::string& n) {
  return starts_with(n, "__shfl") || starts_with(n, "atomic") || starts_with(n, "__atomic") ||
         starts_with(n, "clock") || n == "__globaltimer" || starts_with(n, "curand") ||
         n == "__match_any_sync" || n == "__match32_any_sync" || n == "__match64_any_sync" ||
         n == "__lanemask_lt" || n == "__lanemask_le" || n == "__lanemask_gt" || n == "__lanemask_ge" ||
         n == "__nvvm_read_ptx_sreg_laneid" || starts_with(n, "__nvvm_read_ptx_sreg_tid") || n == "rand";
}

// Intrinsics whose result is the same on every active lane.
bool is_uniform_intrinsic(const std::string& n) {
  return n == "__ballot_sync" || n == "__all_sync" || n == "__any_sync" || n == "__activemask" ||
         n == "__ballot" || n == "__all" || n == "__any" || starts_with(n, "__reduce_") ||
         n == "__syncthreads_count" || n == "__syncthreads_and" || n == "__syncthreads_or";
}

const ClassTemplateSpecializationDecl* as_specialization(QualType t) {
  t = t.getNonReferenceType();
  if (t->isPointerType()) t = t->getPointeeType();
  if (auto* rd = t->getAsCXXRecordDecl()) return dyn_cast<ClassTemplateSpecializationDecl>(rd);
  return nullptr;
}

// Tile size of a cooperative_groups::thread_block_tile<N, ...> object.
std::optional<std::int64_t> tile_size(QualType t) {
  auto* spec = as_specialization(t);
  if (!spec || spec->getTemplateArgs().size() == 0) return std::nullopt;
  const auto& arg = spec->getTemplateArgs()[0];
  if (arg.getKind() != TemplateArgument::Integral) return std::nullopt;
  return arg.getAsIntegral().getExtValue();
}

// Finds lane-varying sources in a function body.
class LaneVarianceScan : public RecursiveASTVisitor<LaneVarianceScan> {
 public:
  explicit LaneVarianceScan(Lowering& l, int depth) : lowering_(l), depth_(depth) {}
  bool found = false;
  bool VisitPseudoObjectExpr(PseudoObjectExpr* e) {
    if (auto s = Lowering::builtin_index(e); s && s->kind == SymbolKind::ThreadIdx) found = true;
    return !found;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt*) {
    found = true;
    return false;
  }
  bool VisitCallExpr(CallExpr* c) {
    if (lowering_.call_varies_per_lane(c)) found = true;
    (void)depth_;
    return !found;
  }

 private:
  Lowering& lowering_;
  int depth_;
};

}  // namespace

const VarDecl* as_local_variable(const clang::Expr* e) {
  auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  if (!ref) return nullptr;
  auto* var = dyn_cast<VarDecl>(ref->getDecl());
  if (!var || var->hasAttr<CUDASharedAttr>() || var->hasAttr<CUDAConstantAttr>() || var->hasAttr<CUDADeviceAttr>())
    return nullptr;
  if (!var->isLocalVarDeclOrParm() || var->isStaticLocal()) return nullptr;
  return var;
}

const clang::Expr* call_object(const CallExpr* call) {
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(call)) return mc->getImplicitObjectArgument();
  if (isa<CXXOperatorCallExpr>(call)) return nullptr;
  if (auto* m = dyn_cast<MemberExpr>(call->getCallee()->IgnoreParenImpCasts())) return m->getBase();
  return nullptr;
}

// ----------------------------------------------------------------- Lowering

Lowering::Lowering(ASTContext& ctx, const SourceMapper& map, const FunctionDecl* fn)
    : ctx_(ctx), map_(map), fn_(fn) {}

std::string Lowering::spelling(const clang::Expr* e) const {
  std::string s = map_.text(e->getSourceRange());
  if (s.empty()) {
    // Not in the target file (e.g. an inlined callee elsewhere): print it.
    llvm::raw_string_ostream os(s);
    e->printPretty(os, nullptr, ctx_.getPrintingPolicy());
  }
  return s;
}

std::int64_t Lowering::size_of(QualType t) const {
  // Callers pass getPointeeType() of arrays and non-pointers (a null type):
  // getNonReferenceType() would dereference it.
  if (t.isNull()) return 0;
  t = t.getNonReferenceType();
  if (t.isNull() || t->isDependentType() || t->isIncompleteType() || t->isFunctionType() ||
      t->containsErrors())
    return 0;
  if (auto* rt = t->getAs<RecordType>(); rt && rt->getDecl()->isInvalidDecl()) return 0;
  return ctx_.getTypeSizeInChars(t).getQuantity();
}

std::string Lowering::type_name(QualType t) const {
  PrintingPolicy pp = ctx_.getPrintingPolicy();
  pp.SuppressTagKeyword = true;
  pp.SuppressScope = false;
  pp.AnonymousTagLocations = false;
  return t.getUnqualifiedType().getAsString(pp);
}

int Lowering::param_index(const ParmVarDecl* p) const {
  if (!fn_) return -1;
  for (unsigned i = 0; i < fn_->getNumParams(); ++i)
    if (fn_->getParamDecl(i) == p) return static_cast<int>(i);
  return -1;
}

bool Lowering::is_value_like(QualType t) const {
  t = t.getNonReferenceType();
  if (t->isDependentType() || t->isIncompleteType()) return false;
  if (t->isScalarType()) return true;
  auto* rd = t->getAsCXXRecordDecl();
  if (!rd || !rd->hasDefinition() || !rd->isTriviallyCopyable() || !rd->bases().empty()) return false;
  int fields = 0;
  for (const FieldDecl* f : rd->fields()) {
    ++fields;
    if (!f->getType()->isScalarType() && !f->getType()->isRecordType()) return false;
  }
  std::int64_t size = size_of(t);
  return fields >= 1 && fields <= 4 && size > 0 && size <= 16;
}

bool Lowering::is_value_reference_param(const ParmVarDecl* p) const {
  if (!p || !p->getType()->isLValueReferenceType() || param_index(p) < 0) return false;
  if (fn_->hasAttr<CUDAGlobalAttr>()) return false;
  QualType t = p->getType().getNonReferenceType();
  return !t->isPointerType() && is_value_like(t);
}

std::optional<Symbol> Lowering::builtin_index(const clang::Expr* e) {
  e = e->IgnoreParenImpCasts();
  auto* pseudo = dyn_cast<PseudoObjectExpr>(e);
  if (!pseudo) return std::nullopt;
  auto* prop = dyn_cast<MSPropertyRefExpr>(pseudo->getSyntacticForm()->IgnoreParens());
  if (!prop) return std::nullopt;
  const clang::Expr* b = prop->getBaseExpr()->IgnoreParenImpCasts();
  if (auto* ov = dyn_cast<OpaqueValueExpr>(b); ov && ov->getSourceExpr()) b = ov->getSourceExpr()->IgnoreParenImpCasts();
  auto* base = dyn_cast<DeclRefExpr>(b);
  if (!base) return std::nullopt;
  std::string var = base->getDecl()->getName().str();
  // The property is `x` with getter `__fetch_builtin_x` (clang's builtin vars).
  std::string field = prop->getPropertyDecl()->getName().str();
  if (IdentifierInfo* getter = prop->getPropertyDecl()->getGetterId()) {
    llvm::StringRef g = getter->getName();
    if (g.starts_with("__fetch_builtin_")) field = g.drop_front(16).str();
  }
  Symbol s;
  if (var == "threadIdx") s.kind = SymbolKind::ThreadIdx, s.uniform = false;
  else if (var == "blockIdx") s.kind = SymbolKind::BlockIdx;
  else if (var == "blockDim") s.kind = SymbolKind::BlockDim;
  else if (var == "gridDim") s.kind = SymbolKind::GridDim;
  else return std::nullopt;
  if (field == "x") s.dim = 0;
  else if (field == "y") s.dim = 1;
  else if (field == "z") s.dim = 2;
  else return std::nullopt;
  return s;
}

ExprRef Lowering::opaque(const clang::Expr* e) {
  bool uniform = true;
  if (auto* call = dyn_cast<CallExpr>(e->IgnoreParenImpCasts()); call && call_varies_per_lane(call))
    uniform = false;
  if (isa<GCCAsmStmt>(e)) uniform = false;
  if (uniform) {
    for (const Stmt* child : e->children()) {
      auto* ce = dyn_cast_or_null<clang::Expr>(child);
      if (!ce) continue;
      if (is_lane_varying(lower(ce))) {
        uniform = false;
        break;
      }
    }
  }
  return Expr::opaque(spelling(e), uniform);
}

ExprRef Lowering::lower(const clang::Expr* e) {
  if (!e) return nullptr;
  if (depth_ > kMaxDepth) return Expr::opaque("…", false);
  ++depth_;
  ExprRef r = lower_uncached(e);
  --depth_;
  return r;
}

ExprRef Lowering::lower_uncached(const clang::Expr* e) {
  e = e->IgnoreParens();
  if (e->containsErrors()) return Expr::opaque(spelling(e), false);

  // Symbols before constants: `warpSize` is a const int 32 to Clang.
  if (auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreImpCasts()))
    if (ref->getDecl()->getName() == "warpSize" && ref->getDecl()->getDeclContext()->isFileContext())
      return Expr::sym({SymbolKind::WarpSize, 0, "", true});
  if (auto s = builtin_index(e)) return Expr::sym(*s);

  // Constants: literals, constexpr, enumerators, template arguments, sizeof.
  if (!e->isValueDependent() && !e->isTypeDependent() && e->getType()->isIntegralOrEnumerationType()) {
    clang::Expr::EvalResult result;
    if (e->EvaluateAsInt(result, ctx_) && result.Val.isInt()) {
      const llvm::APSInt& v = result.Val.getInt();
      if (v.getSignificantBits() <= 64) return Expr::constant(v.getExtValue());
    }
  }

  if (auto* cast = dyn_cast<CastExpr>(e)) {
    // `(int)(x * 0.5f)`: an explicit conversion of a non-integer is one
    // opaque value, spelled as written (Clang puts the real conversion in an
    // implicit cast underneath).
    if (isa<ExplicitCastExpr>(cast) && cast->getType()->isIntegralOrEnumerationType()) {
      QualType from = cast->getSubExpr()->IgnoreParenImpCasts()->getType();
      if (from->isRealFloatingType() || from->isPointerType()) return opaque(e);
    }
    switch (cast->getCastKind()) {
      case CK_FloatingToIntegral:
      case CK_FloatingToBoolean:
      case CK_PointerToIntegral:
      case CK_PointerToBoolean:
        return opaque(e);
      default:
        return lower(cast->getSubExpr());
    }
  }
  if (auto* fc = dyn_cast<FullExpr>(e)) return lower(fc->getSubExpr());
  if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) return lower(m->getSubExpr());
  if (auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) return lower(b->getSubExpr());
  if (auto* s = dyn_cast<SubstNonTypeTemplateParmExpr>(e)) return lower(s->getReplacement());
  if (auto* d = dyn_cast<CXXDefaultArgExpr>(e)) return lower(d->getExpr());
  if (auto* d = dyn_cast<CXXDefaultInitExpr>(e)) return lower(d->getExpr());
  if (auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() == 1 &&
                                                c->getConstructor()->isCopyOrMoveConstructor())
    return lower(c->getArg(0));

  if (auto* ref = dyn_cast<DeclRefExpr>(e)) return lower_decl_ref(ref);
  if (auto* m = dyn_cast<MemberExpr>(e)) return lower_member(m);

  if (auto* bo = dyn_cast<BinaryOperator>(e)) {
    if (bo->getOpcode() == BO_Comma) return lower(bo->getRHS());
    if (bo->isAssignmentOp()) return lower(bo->getLHS());  // the walker applies the effect
    if (bo->getLHS()->getType()->isPointerType() || bo->getRHS()->getType()->isPointerType() ||
        bo->getLHS()->getType()->isRealFloatingType() || bo->getRHS()->getType()->isRealFloatingType()) {
      if (!bo->isComparisonOp() && !bo->isLogicalOp()) return opaque(e);
    }
    ExprRef a = lower(bo->getLHS()), b = lower(bo->getRHS());
    switch (bo->getOpcode()) {
      case BO_Add: return ir_add(a, b);
      case BO_Sub: return ir_sub(a, b);
      case BO_Mul: return ir_mul(a, b);
      case BO_Div: return Expr::binary(ExprOp::Div, a, b);
      case BO_Rem: return Expr::binary(ExprOp::Rem, a, b);
      case BO_Shl: return Expr::binary(ExprOp::Shl, a, b);
      case BO_Shr: return Expr::binary(ExprOp::Shr, a, b);
      case BO_And: return Expr::binary(ExprOp::BitAnd, a, b);
      case BO_Or: return Expr::binary(ExprOp::BitOr, a, b);
      case BO_Xor: return Expr::binary(ExprOp::BitXor, a, b);
      case BO_LT: return Expr::binary(ExprOp::Lt, a, b);
      case BO_LE: return Expr::binary(ExprOp::Le, a, b);
      case BO_GT: return Expr::binary(ExprOp::Gt, a, b);
      case BO_GE: return Expr::binary(ExprOp::Ge, a, b);
      case BO_EQ: return Expr::binary(ExprOp::Eq, a, b);
      case BO_NE: return Expr::binary(ExprOp::Ne, a, b);
      case BO_LAnd: return Expr::binary(ExprOp::LogicalAnd, a, b);
      case BO_LOr: return Expr::binary(ExprOp::LogicalOr, a, b);
      default: return opaque(e);
    }
  }
  if (auto* uo = dyn_cast<UnaryOperator>(e)) {
    switch (uo->getOpcode()) {
      case UO_Plus: return lower(uo->getSubExpr());
      case UO_Minus: return Expr::unary(ExprOp::Neg, lower(uo->getSubExpr()));
      case UO_Not: return Expr::unary(ExprOp::BitNot, lower(uo->getSubExpr()));
      case UO_LNot: return ir_not(lower(uo->getSubExpr()));
      case UO_PostInc:
      case UO_PostDec: return lower(uo->getSubExpr());  // value before the update
      case UO_PreInc: return ir_add(lower(uo->getSubExpr()), Expr::constant(1));
      case UO_PreDec: return ir_sub(lower(uo->getSubExpr()), Expr::constant(1));
      case UO_Deref: break;  // a load: below
      default: return opaque(e);
    }
  }
  if (auto* co = dyn_cast<AbstractConditionalOperator>(e))
    return Expr::select(lower(co->getCond()), lower(co->getTrueExpr()), lower(co->getFalseExpr()));
  if (auto* call = dyn_cast<CallExpr>(e)) return lower_call(call);

  // Reads from memory: a[i], *p, p->f.
  if (isa<ArraySubscriptExpr>(e) || isa<UnaryOperator>(e)) {
    if (auto addr = address_of_lvalue(e); addr && addr->kind != RootKind::LocalValue) return load_from(*addr, e);
    return opaque(e);
  }
  return opaque(e);
}

// A value read from memory: Load(root, element index), falling back to the
// byte offset, or an opaque per-lane index when neither is known.
ExprRef Lowering::load_from(const Address& a, const clang::Expr* e) {
  ExprRef idx = a.index();
  if (!idx) idx = a.byte_offset();
  if (!idx) idx = Expr::opaque(spelling(e), false);
  return Expr::load(a.root_name, idx);
}

ExprRef Lowering::lower_decl_ref(const DeclRefExpr* ref) {
  const ValueDecl* d = ref->getDecl();
  if (auto* parm = dyn_cast<ParmVarDecl>(d)) {
    for (auto it = bindings_.rbegin(); it != bindings_.rend(); ++it)
      if (auto b = it->params.find(parm); b != it->params.end()) return b->second;
  }
  if (auto* var = dyn_cast<VarDecl>(d)) {
    // __shared__/__device__/__constant__ scalars: one address for every lane,
    // so every lane of a warp reads the same value (`s[len + tid]` after thread
    // 0 wrote `len` is a contiguous run, not a gather). Index 0, not null: a
    // null index means an unknown (possibly per-lane) address.
    if (var->hasAttr<CUDASharedAttr>() || var->hasAttr<CUDAConstantAttr>() ||
        (var->hasGlobalStorage() && !var->isStaticLocal() && var->hasAttr<CUDADeviceAttr>()))
      return Expr::load(var->getNameAsString(), Expr::constant(0));
    if (env_)
      if (auto it = env_->values.find(var); it != env_->values.end()) return it->second;
    if (auto* parm = dyn_cast<ParmVarDecl>(var)) {
      if (param_index(parm) >= 0) return Expr::param(parm->getNameAsString());
      return Expr::opaque(parm->getNameAsString(), false);
    }
    if (var->hasGlobalStorage() && !var->isStaticLocal()) return Expr::opaque(var->getNameAsString(), true);
    if (var->getType().isConstQualified() && var->hasInit() && depth_ < kMaxDepth / 2)
      return lower(var->getInit());
    // A local the walker has not seen: unknown, assumed to vary.
    return Expr::sym({SymbolKind::Local, 0, var->getNameAsString(), false});
  }
  if (isa<NonTypeTemplateParmDecl>(d)) return Expr::opaque(d->getNameAsString(), true);
  return Expr::opaque(d->getNameAsString(), true);
}

ExprRef Lowering::lower_member(const MemberExpr* m) {
  const clang::Expr* base = m->getBase()->IgnoreParenImpCasts();
  std::string field = m->getMemberDecl()->getNameAsString();

  // Cooperative groups: block.thread_index().x, block.group_index().y, ...
  if (auto* call = dyn_cast<CallExpr>(base); call && call_object(call) && !m->isArrow()) {
    auto* md = dyn_cast_or_null<CXXMethodDecl>(call->getDirectCallee());
    QualType obj = call_object(call)->getType();
    if (md && !obj.isNull() && is_cooperative_groups_type(obj)) {
      std::string method = md->getNameAsString();
      int dim = field == "x" ? 0 : field == "y" ? 1 : field == "z" ? 2 : -1;
      if (dim >= 0) {
        if (method == "thread_index") return Expr::thread_idx(dim);
        if (method == "group_index" || method == "block_index") return Expr::block_idx(dim);
        if (method == "dim_threads" || method == "group_dim") return Expr::block_dim(dim);
        if (method == "dim_blocks") return Expr::grid_dim(dim);
      }
    }
  }

  // A field of a by-value (or const &) struct parameter: a uniform value
  // (also `this->ld` in an inlined member function called on one).
  if (!m->isArrow() || isa<CXXThisExpr>(base))
    if (auto pf = parameter_field(m))
      if (!env_ || !env_->values.count(pf->first)) return Expr::param(pf->second);

  // A field of a local struct that holds a loaded value (uchar4 v = data[i];
  // v.x): the value comes from that load.
  if (!m->isArrow())
    if (auto* var = as_local_variable(base); var && env_)
      if (auto it = env_->values.find(var); it != env_->values.end() && it->second) {
        if (it->second->op == ExprOp::Load) return Expr::load(it->second->text, it->second->operands.at(0));
        return ir_opaque_like(spelling(m), it->second);
      }

  // Through memory (p->f, a[i].f): a load.
  if (auto addr = address_of_lvalue(m); addr && addr->kind != RootKind::LocalValue) return load_from(*addr, m);
  return opaque(m);
}

ExprRef Lowering::linear_thread_rank() {
  // tx + ty * bdx + tz * bdx * bdy
  return ir_add(ir_add(Expr::thread_idx(0), ir_mul(Expr::thread_idx(1), Expr::block_dim(0))),
                ir_mul(ir_mul(Expr::thread_idx(2), Expr::block_dim(0)), Expr::block_dim(1)));
}

ExprRef Lowering::lower_cooperative_groups(const CallExpr* call) {
  auto* md = dyn_cast_or_null<CXXMethodDecl>(call->getDirectCallee());
  const clang::Expr* obj = call_object(call);
  if (!md || !obj || !is_cooperative_groups_type(obj->getType())) return nullptr;
  std::string method = md->getNameAsString();
  std::string group = record_name(obj->getType());
  ExprRef block_size = ir_mul(ir_mul(Expr::block_dim(0), Expr::block_dim(1)), Expr::block_dim(2));
  if (group == "thread_block") {
    if (method == "thread_rank") return linear_thread_rank();
    if (method == "size" || method == "num_threads") return block_size;
  } else if (group == "grid_group") {
    ExprRef block_rank =
        ir_add(ir_add(Expr::block_idx(0), ir_mul(Expr::block_idx(1), Expr::grid_dim(0))),
               ir_mul(ir_mul(Expr::block_idx(2), Expr::grid_dim(0)), Expr::grid_dim(1)));
    if (method == "thread_rank") return ir_add(ir_mul(block_rank, block_size), linear_thread_rank());
    if (method == "block_rank") return block_rank;
    if (method == "size" || method == "num_threads")
      return ir_mul(block_size, ir_mul(ir_mul(Expr::grid_dim(0), Expr::grid_dim(1)), Expr::grid_dim(2)));
  } else if (auto n = tile_size(obj->getType()); n && *n > 0) {
    if (method == "thread_rank") return Expr::binary(ExprOp::Rem, linear_thread_rank(), Expr::constant(*n));
    if (method == "meta_group_rank") return Expr::binary(ExprOp::Div, linear_thread_rank(), Expr::constant(*n));
    if (method == "size" || method == "num_threads") return Expr::constant(*n);
    if (method == "meta_group_size")
      return Expr::binary(ExprOp::Div, ir_add(block_size, Expr::constant(*n - 1)), Expr::constant(*n));
  }
  if (method == "thread_rank" || method == "thread_index") return Expr::opaque(spelling(call), false);
  return nullptr;
}

ExprRef Lowering::lower_call(const CallExpr* call) {
  const FunctionDecl* callee = call->getDirectCallee();
  std::string name = callee_name(callee);
  if (call_object(call))
    if (auto r = lower_cooperative_groups(call)) return r;

  unsigned n = call->getNumArgs();
  auto arg = [&](unsigned i) { return lower(call->getArg(i)); };
  bool integral = call->getType()->isIntegralOrEnumerationType();
  if (integral && n == 2 &&
      (name == "min" || name == "umin" || name == "llmin" || name == "ullmin" || name == "__min"))
    return Expr::binary(ExprOp::Min, arg(0), arg(1));
  if (integral && n == 2 &&
      (name == "max" || name == "umax" || name == "llmax" || name == "ullmax" || name == "__max"))
    return Expr::binary(ExprOp::Max, arg(0), arg(1));
  if (integral && n == 2 && (name == "__mul24" || name == "__umul24")) return ir_mul(arg(0), arg(1));

  // Loads through intrinsics: __ldg(&a[i]), __ldcg(p + i), ...
  if (n >= 1 && (name == "__ldg" || name == "__ldcg" || name == "__ldca" || name == "__ldcs" ||
                 name == "__ldlu" || name == "__ldcv")) {
    if (auto addr = address_of_pointer(call->getArg(0)); addr && addr->kind != RootKind::LocalValue)
      return load_from(*addr, call);
  }
  if (name == "__shfl_sync" && n >= 3) {
    // A broadcast from a uniform source lane (over the whole warp) is uniform.
    bool whole_warp = true;
    if (n >= 4) {
      auto width = const_value(arg(3));
      whole_warp = width && *width >= 32;
    }
    return Expr::opaque(spelling(call), whole_warp && !is_lane_varying(arg(2)));
  }
  if (is_uniform_intrinsic(name)) return Expr::opaque(spelling(call), true);
  if (callee && callee->hasBody() && !in_system_header(map_.sm(), callee->getLocation()))
    if (auto inlined = inline_single_return(call, callee)) return inlined;
  if (call_varies_per_lane(call)) return Expr::opaque(spelling(call), false);

  std::vector<ExprRef> args;
  for (unsigned i = 0; i < n; ++i) args.push_back(arg(i));
  if (!integral) {
    bool uniform = std::none_of(args.begin(), args.end(), [](const ExprRef& a) { return is_lane_varying(a); });
    return Expr::opaque(spelling(call), uniform);
  }
  return Expr::call(name.empty() ? spelling(call->getCallee()) : name, std::move(args));
}

bool Lowering::bind_call(const CallExpr* call, const FunctionDecl* callee) {
  if (bindings_.size() >= 4) return false;
  Inlined inlined;
  unsigned first = 0;
  if (auto* md = dyn_cast<CXXMethodDecl>(callee); md && !md->isStatic()) {
    inlined.object = call_object(call);
    if (isa<CXXOperatorCallExpr>(call) && call->getNumArgs() > 0) {
      inlined.object = call->getArg(0);  // member operators: the object is argument 0
      first = 1;
    }
    if (!inlined.object) return false;
  }
  if (call->getNumArgs() - first != callee->getNumParams()) return false;
  for (unsigned i = 0; i < callee->getNumParams(); ++i)
    inlined.params[callee->getParamDecl(i)] = lower(call->getArg(i + first));
  bindings_.push_back(std::move(inlined));
  return true;
}

// `__device__ int idx(int r, int c) { return r * N + c; }` is lowered as its
// return expression with the arguments substituted, so helpers do not hide
// the index from the analyses. Member functions too, with `this` standing
// for the call's object (`m.index(r, c)` with `return r * ld + c;`).
ExprRef Lowering::inline_single_return(const CallExpr* call, const FunctionDecl* callee) {
  const ReturnStmt* ret = single_return(callee);
  if (!ret || callee->getReturnType()->isReferenceType() || !bind_call(call, callee)) return nullptr;
  ExprRef r = lower(ret->getRetValue());
  bindings_.pop_back();
  return r;
}

bool Lowering::call_varies_per_lane(const CallExpr* call) {
  const FunctionDecl* callee = call->getDirectCallee();
  std::string name = callee_name(callee);
  if (is_lane_varying_intrinsic(name)) return true;
  if (name == "__shfl_sync") return true;  // conservatively; lower_call refines broadcasts
  {
    if (const clang::Expr* obj = call_object(call); obj && is_cooperative_groups_type(obj->getType())) {
      std::string method = callee_name(callee);
      return method == "thread_rank" || method == "thread_index" || method == "shfl" ||
             method == "shfl_down" || method == "shfl_up" || method == "shfl_xor";
    }
  }
  if (!callee) return false;
  return function_varies_per_lane(callee, 0);
}

bool Lowering::function_varies_per_lane(const FunctionDecl* fd, int depth) {
  if (!fd->hasBody() || in_system_header(map_.sm(), fd->getLocation()) || depth > 3) return false;
  fd = fd->getDefinition() ? fd->getDefinition() : fd;
  if (auto it = varies_cache_.find(fd); it != varies_cache_.end()) return it->second;
  varies_cache_[fd] = false;  // breaks recursion
  LaneVarianceScan scan(*this, depth + 1);
  scan.TraverseStmt(const_cast<Stmt*>(fd->getBody()));
  varies_cache_[fd] = scan.found;
  return scan.found;
}

}  // namespace warplens::clang_frontend
