#include "agent/rewrites/clang_support.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/Error.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace warplens::agent::rw {

using namespace clang;
using clang::Expr;
using IR = ::warplens::Expr;

// ---- parsing --------------------------------------------------------------------

namespace {

class ErrorCollector : public DiagnosticConsumer {
 public:
  std::vector<std::string> errors;
  void HandleDiagnostic(DiagnosticsEngine::Level level, const Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < DiagnosticsEngine::Error) return;
    llvm::SmallString<256> msg;
    info.FormatDiagnostic(msg);
    std::string where;
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      PresumedLoc p = info.getSourceManager().getPresumedLoc(info.getLocation());
      if (p.isValid()) where = std::string(p.getFilename()) + ":" + std::to_string(p.getLine()) + ":" +
                               std::to_string(p.getColumn()) + ": ";
    }
    if (errors.size() < 20) errors.push_back(where + std::string(msg.str()));
  }
};

std::string cuda_path(const EngineOptions& o) {
  if (!o.cuda_path.empty()) return o.cuda_path;
  if (const char* env = std::getenv("CUDA_PATH"); env && *env) return env;
  return "/usr/local/cuda";
}

std::string resource_dir() {
  if (const char* env = std::getenv("WARPLENS_CLANG_RESOURCE_DIR"); env && *env) return env;
  return WARPLENS_CLANG_RESOURCE_DIR;
}

// Clang 19 on CUDA 13 headers (see docs/optimize.md): an empty
// texture_fetch_functions.h (removed in CUDA 13, still included by clang's
// wrapper), CCCL's new include directory, and the SDK version that makes
// device-side Sema use __cudaPushCallConfiguration.
constexpr const char* kShimDir = "/warplens-rewrite-shim";

}  // namespace

std::unique_ptr<ParsedFile> parse_file(const SourceFile& file, const EngineOptions& options, std::string& error) {
  const std::string cuda = cuda_path(options);
  std::string arch = options.arch.empty() ? "sm_90" : options.arch;
  // Clang 19 knows architectures up to sm_90a; newer ones parse as sm_90.
  if (arch.size() > 3 && arch.rfind("sm_", 0) == 0) {
    int n = std::atoi(arch.c_str() + 3);
    if (n >= 100) arch = "sm_90";
  }
  std::vector<std::string> args = {"-x",
                                   "cuda",
                                   "--cuda-path=" + cuda,
                                   "--cuda-gpu-arch=" + arch,
                                   "--cuda-device-only",
                                   "-nocudalib",
                                   "-std=c++17",
                                   "-isystem",
                                   cuda + "/include/cccl",
                                   "-isystem",
                                   kShimDir,
                                   "-Xclang",
                                   "-target-sdk-version=12.5",
                                   "-Wno-unknown-cuda-version",
                                   "-w",
                                   "-ferror-limit=0",
                                   "-resource-dir=" + resource_dir()};
  const std::string dir = std::filesystem::path(file.path).parent_path().string();
  if (!dir.empty()) args.push_back("-I" + dir);
  for (const auto& a : options.extra_args) args.push_back(a);
  auto parsed = std::make_unique<ParsedFile>();
  parsed->path = file.path;
  parsed->text = file.text;
  auto collector = std::make_unique<ErrorCollector>();
  tooling::FileContentMappings shims = {{std::string(kShimDir) + "/texture_fetch_functions.h", ""}};
  parsed->unit = tooling::buildASTFromCodeWithArgs(file.text, args, file.path, "warplens-rewrite",
                                                   std::make_shared<PCHContainerOperations>(),
                                                   tooling::getClangStripDependencyFileAdjuster(), shims,
                                                   collector.get());
  if (!parsed->unit) {
    error = "clang could not parse " + file.path;
    return nullptr;
  }
  parsed->errors = collector->errors;
  // The unit's diagnostics engine still points at the collector: detach it
  // before the collector goes away.
  parsed->unit->getDiagnostics().setClient(new IgnoringDiagConsumer(), /*ShouldOwnClient=*/true);
  if (!parsed->errors.empty()) {
    error = "the file does not compile, so it is not rewritten: " + parsed->errors.front();
    if (parsed->errors.size() > 1) error += " (and " + std::to_string(parsed->errors.size() - 1) + " more)";
    return nullptr;
  }
  return parsed;
}

bool is_main_file(const ParsedFile& f, SourceLocation loc) {
  return loc.isValid() && f.sm().isInMainFile(f.sm().getExpansionLoc(loc));
}

std::vector<const FunctionDecl*> kernels_in(const ParsedFile& file) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const ParsedFile* f;
    std::vector<const FunctionDecl*> found;
    bool VisitFunctionDecl(FunctionDecl* d) {
      if (d->hasAttr<CUDAGlobalAttr>() && d->doesThisDeclarationHaveABody() && is_main_file(*f, d->getLocation()) &&
          !d->isTemplateInstantiation())
        found.push_back(d);
      return true;
    }
  } finder;
  finder.f = &file;
  finder.TraverseDecl(file.ctx().getTranslationUnitDecl());
  return finder.found;
}

// ---- small AST helpers ------------------------------------------------------------

const Expr* strip(const Expr* e) {
  while (e) {
    const Expr* next = e->IgnoreParenImpCasts();
    if (const auto* c = dyn_cast<CStyleCastExpr>(next); c && c->getType()->isIntegerType())
      next = c->getSubExpr();
    else if (const auto* c = dyn_cast<CXXStaticCastExpr>(next); c && c->getType()->isIntegerType())
      next = c->getSubExpr();
    else if (const auto* c = dyn_cast<CXXFunctionalCastExpr>(next); c && c->getType()->isIntegerType())
      next = c->getSubExpr();
    if (next == e) return e;
    e = next;
  }
  return e;
}

std::optional<BuiltinRef> as_builtin(const Expr* e) {
  if (!e) return std::nullopt;
  e = e->IgnoreParenImpCasts();
  if (const auto* po = dyn_cast<PseudoObjectExpr>(e)) e = po->getSyntacticForm()->IgnoreParenImpCasts();
  const auto* prop = dyn_cast<MSPropertyRefExpr>(e);
  if (!prop) return std::nullopt;
  const Expr* base = prop->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto* ov = dyn_cast<OpaqueValueExpr>(base); ov && ov->getSourceExpr())
    base = ov->getSourceExpr()->IgnoreParenImpCasts();
  const auto* ref = dyn_cast<DeclRefExpr>(base);
  if (!ref) return std::nullopt;
  const std::string var = ref->getDecl()->getName().str();
  const std::string field = prop->getPropertyDecl()->getName().str();
  int dim = field == "x" ? 0 : field == "y" ? 1 : field == "z" ? 2 : -1;
  if (dim < 0) return std::nullopt;
  if (var == "threadIdx") return BuiltinRef{SymbolKind::ThreadIdx, dim};
  if (var == "blockIdx") return BuiltinRef{SymbolKind::BlockIdx, dim};
  if (var == "blockDim") return BuiltinRef{SymbolKind::BlockDim, dim};
  if (var == "gridDim") return BuiltinRef{SymbolKind::GridDim, dim};
  return std::nullopt;
}

namespace {

template <typename Pred>
bool any_stmt(const Stmt* root, Pred&& pred) {
  if (!root) return false;
  if (pred(root)) return true;
  for (const Stmt* child : root->children())
    if (child && any_stmt(child, pred)) return true;
  return false;
}

std::string callee_name(const CallExpr* call) {
  if (const FunctionDecl* fd = call->getDirectCallee()) return fd->getNameAsString();
  if (const auto* m = dyn_cast<CXXMemberCallExpr>(call))
    if (const auto* md = m->getMethodDecl()) return md->getNameAsString();
  return "";
}

}  // namespace

bool is_barrier_call(const Stmt* s) {
  const auto* call = dyn_cast<CallExpr>(s);
  if (!call) return false;
  const std::string name = callee_name(call);
  return name.rfind("__syncthreads", 0) == 0 || name == "__syncwarp" || name == "sync" || name == "barrier_sync" ||
         name == "__barrier_sync" || name == "bar_sync";
}

bool contains_barrier(const Stmt* s) { return any_stmt(s, [](const Stmt* x) { return is_barrier_call(x); }); }

bool contains_return(const Stmt* s) {
  return any_stmt(s, [](const Stmt* x) { return isa<ReturnStmt>(x) || isa<GotoStmt>(x); });
}

bool contains_thread_builtin(const Stmt* s) {
  return any_stmt(s, [](const Stmt* x) {
    const auto* e = dyn_cast<Expr>(x);
    if (!e) return false;
    auto b = as_builtin(e);
    return b && (b->kind == SymbolKind::ThreadIdx || b->kind == SymbolKind::BlockIdx);
  });
}

bool contains_call_named(const Stmt* s, const std::function<bool(const std::string&)>& pred) {
  return any_stmt(s, [&](const Stmt* x) {
    const auto* call = dyn_cast<CallExpr>(x);
    return call && !isa<CUDAKernelCallExpr>(call) && pred(callee_name(call));
  });
}

bool refers_to(const Stmt* s, const ValueDecl* d) {
  return any_stmt(s, [d](const Stmt* x) {
    const auto* r = dyn_cast<DeclRefExpr>(x);
    return r && r->getDecl()->getCanonicalDecl() == d->getCanonicalDecl();
  });
}

std::vector<const DeclRefExpr*> references_to(const Stmt* s, const ValueDecl* d) {
  std::vector<const DeclRefExpr*> out;
  any_stmt(s, [&](const Stmt* x) {
    if (const auto* r = dyn_cast<DeclRefExpr>(x); r && r->getDecl()->getCanonicalDecl() == d->getCanonicalDecl())
      out.push_back(r);
    return false;
  });
  return out;
}

// ---- accesses ---------------------------------------------------------------------

namespace {

const ValueDecl* base_decl(const Expr* base) {
  base = base->IgnoreParenImpCasts();
  if (const auto* r = dyn_cast<DeclRefExpr>(base)) return r->getDecl();
  return nullptr;
}

// The outermost subscript of an lvalue expression (through member access: p[i].x).
const ArraySubscriptExpr* subscript_of(const Expr* e, const MemberExpr** member) {
  e = e->IgnoreParenImpCasts();
  if (const auto* m = dyn_cast<MemberExpr>(e)) {
    if (member) *member = m;
    e = m->getBase()->IgnoreParenImpCasts();
  }
  return dyn_cast<ArraySubscriptExpr>(e);
}

}  // namespace

std::vector<Access> collect_accesses(const Stmt* root) {
  std::map<const ArraySubscriptExpr*, Access> found;
  std::set<const ArraySubscriptExpr*> inner;  // subscripts that are the base of another
  std::vector<const ArraySubscriptExpr*> order;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* a = dyn_cast<ArraySubscriptExpr>(s)) {
      if (!found.count(a)) {
        order.push_back(a);
        found[a].expr = a;
      }
      if (const auto* b = dyn_cast<ArraySubscriptExpr>(a->getBase()->IgnoreParenImpCasts())) inner.insert(b);
    }
    if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) {
      const MemberExpr* m = nullptr;
      if (const auto* a = subscript_of(bo->getLHS(), &m)) {
        auto& acc = found[a];
        if (!acc.expr) {
          order.push_back(a);
          acc.expr = a;
        }
        acc.write = true;
        if (bo->isCompoundAssignmentOp()) acc.read = true;
        acc.member = m;
      }
    }
    if (const auto* uo = dyn_cast<UnaryOperator>(s); uo && uo->isIncrementDecrementOp()) {
      const MemberExpr* m = nullptr;
      if (const auto* a = subscript_of(uo->getSubExpr(), &m)) {
        auto& acc = found[a];
        if (!acc.expr) {
          order.push_back(a);
          acc.expr = a;
        }
        acc.write = acc.read = true;
        acc.member = m;
      }
    }
    if (const auto* me = dyn_cast<MemberExpr>(s)) {
      if (const auto* a = dyn_cast<ArraySubscriptExpr>(me->getBase()->IgnoreParenImpCasts())) {
        auto& acc = found[a];
        if (!acc.expr) {
          order.push_back(a);
          acc.expr = a;
        }
        if (!acc.member) acc.member = me;
      }
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(root);
  std::vector<Access> out;
  for (const ArraySubscriptExpr* a : order) {
    if (inner.count(a)) continue;
    Access acc = found[a];
    if (!acc.write) acc.read = true;
    // A write through an assignment `x = ...` is only a write; anything that is
    // not an assignment target is a read (set above).
    std::vector<const Expr*> idx;
    const Expr* base = a;
    while (const auto* s = dyn_cast<ArraySubscriptExpr>(base->IgnoreParenImpCasts())) {
      idx.insert(idx.begin(), s->getIdx());
      base = s->getBase();
    }
    acc.indices = idx;
    acc.base = base_decl(base);
    if (const auto* vd = dyn_cast_or_null<VarDecl>(acc.base)) {
      acc.is_shared = vd->hasAttr<CUDASharedAttr>();
      acc.is_param = isa<ParmVarDecl>(vd);
    }
    out.push_back(acc);
  }
  return out;
}

std::set<const VarDecl*> modified_variables(const Stmt* body) {
  std::set<const VarDecl*> out;
  auto mark = [&](const Expr* e) {
    e = e->IgnoreParenImpCasts();
    if (const auto* r = dyn_cast<DeclRefExpr>(e))
      if (const auto* v = dyn_cast<VarDecl>(r->getDecl())) out.insert(v);
  };
  any_stmt(body, [&](const Stmt* s) {
    if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) mark(bo->getLHS());
    if (const auto* uo = dyn_cast<UnaryOperator>(s)) {
      if (uo->isIncrementDecrementOp() || uo->getOpcode() == UO_AddrOf) mark(uo->getSubExpr());
    }
    if (const auto* call = dyn_cast<CallExpr>(s)) {
      // Arguments bound to non-const references may be modified.
      if (const FunctionDecl* fd = call->getDirectCallee()) {
        for (unsigned i = 0; i < call->getNumArgs() && i < fd->getNumParams(); ++i) {
          QualType t = fd->getParamDecl(i)->getType();
          if (t->isReferenceType() && !t.getNonReferenceType().isConstQualified()) mark(call->getArg(i));
        }
      }
    }
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d); v && v->getType()->isReferenceType() && v->getInit() &&
                                                  !v->getType().getNonReferenceType().isConstQualified())
          mark(v->getInit());
    }
    return false;
  });
  return out;
}

// ---- kernel context ---------------------------------------------------------------

KernelContext::KernelContext(ParsedFile& f, const FunctionDecl* k)
    : file(f), kernel(k), body(dyn_cast_or_null<CompoundStmt>(k->getBody())) {
  modified = modified_variables(k->getBody());
  any_stmt(k->getBody(), [&](const Stmt* s) {
    if (const auto* fs = dyn_cast<ForStmt>(s))
      if (const auto* ds = dyn_cast_or_null<DeclStmt>(fs->getInit()))
        for (const Decl* d : ds->decls())
          if (const auto* v = dyn_cast<VarDecl>(d)) loop_variables_.insert(v);
    return false;
  });
  struct LaunchFinder : RecursiveASTVisitor<LaunchFinder> {
    const ParsedFile* f;
    const FunctionDecl* kernel;
    std::vector<const CUDAKernelCallExpr*> found;
    bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr* call) {
      const FunctionDecl* callee = call->getDirectCallee();
      if (callee && callee->getCanonicalDecl() == kernel->getCanonicalDecl() &&
          f->sm().isInMainFile(f->sm().getExpansionLoc(call->getBeginLoc())))
        found.push_back(call);
      return true;
    }
  } finder;
  finder.f = &f;
  finder.kernel = k;
  finder.TraverseDecl(f.ctx().getTranslationUnitDecl());
  launches = finder.found;
}

std::optional<CharSourceRange> KernelContext::char_range(SourceRange r) const {
  CharSourceRange cr =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(r), file.sm(), file.lang());
  if (cr.isInvalid() || !file.sm().isInMainFile(cr.getBegin())) return std::nullopt;
  return cr;
}

std::optional<std::string> KernelContext::text(SourceRange r) const {
  auto cr = char_range(r);
  if (!cr) return std::nullopt;
  return Lexer::getSourceText(*cr, file.sm(), file.lang()).str();
}

unsigned KernelContext::offset(SourceLocation loc) const {
  return file.sm().getFileOffset(file.sm().getExpansionLoc(loc));
}

unsigned KernelContext::offset_after_statement(const Stmt* s) const {
  SourceLocation end = file.sm().getExpansionLoc(s->getEndLoc());
  SourceLocation after_semi =
      Lexer::findLocationAfterToken(end, tok::semi, file.sm(), file.lang(), /*SkipTrailingWhitespaceAndNewLine=*/false);
  if (after_semi.isValid()) return file.sm().getFileOffset(after_semi);
  SourceLocation after = Lexer::getLocForEndOfToken(end, 0, file.sm(), file.lang());
  return file.sm().getFileOffset(after);
}

std::string KernelContext::indentation_at(SourceLocation loc) const {
  unsigned off = offset(loc);
  std::size_t line_start = file.text.rfind('\n', off == 0 ? 0 : off - 1);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  std::string indent;
  for (std::size_t i = line_start; i < file.text.size() && (file.text[i] == ' ' || file.text[i] == '\t'); ++i)
    indent += file.text[i];
  return indent;
}

int KernelContext::param_index(const ValueDecl* d) const {
  for (unsigned i = 0; i < kernel->getNumParams(); ++i)
    if (kernel->getParamDecl(i)->getCanonicalDecl() == d->getCanonicalDecl()) return static_cast<int>(i);
  return -1;
}

std::optional<std::int64_t> KernelContext::eval_int(const Expr* e) const {
  if (!e || e->isValueDependent() || e->isTypeDependent()) return std::nullopt;
  Expr::EvalResult r;
  if (e->EvaluateAsInt(r, ctx())) return r.Val.getInt().getExtValue();
  const Expr* s = strip(e);
  if (const auto* ref = dyn_cast<DeclRefExpr>(s))
    if (const auto* v = dyn_cast<VarDecl>(ref->getDecl()))
      if (v->hasLocalStorage() && !isa<ParmVarDecl>(v) && !modified.count(v) && !loop_variables_.count(v) && v->getInit())
        return eval_int(v->getInit());
  if (const auto* bo = dyn_cast<BinaryOperator>(s)) {
    auto a = eval_int(bo->getLHS()), b = eval_int(bo->getRHS());
    if (!a || !b) return std::nullopt;
    switch (bo->getOpcode()) {
      case BO_Add: return *a + *b;
      case BO_Sub: return *a - *b;
      case BO_Mul: return *a * *b;
      case BO_Div: return *b ? std::optional<std::int64_t>(*a / *b) : std::nullopt;
      case BO_Rem: return *b ? std::optional<std::int64_t>(*a % *b) : std::nullopt;
      case BO_Shl: return *a << *b;
      case BO_Shr: return *a >> *b;
      default: return std::nullopt;
    }
  }
  return std::nullopt;
}

ExprRef KernelContext::lower(const Expr* e) const {
  if (!e) return nullptr;
  if (!e->isValueDependent() && !e->isTypeDependent() && e->getType()->isIntegerType()) {
    Expr::EvalResult r;
    if (e->EvaluateAsInt(r, ctx())) return IR::constant(r.Val.getInt().getExtValue());
  }
  if (auto b = as_builtin(e)) {
    switch (b->kind) {
      case SymbolKind::ThreadIdx: return IR::thread_idx(b->dim);
      case SymbolKind::BlockIdx: return IR::block_idx(b->dim);
      case SymbolKind::BlockDim: return IR::block_dim(b->dim);
      case SymbolKind::GridDim: return IR::grid_dim(b->dim);
      default: break;
    }
  }
  const Expr* s = strip(e);
  if (s != e) return lower(s);
  if (const auto* ref = dyn_cast<DeclRefExpr>(s)) {
    const ValueDecl* d = ref->getDecl();
    if (d->getName() == "warpSize") return IR::constant(32);
    if (const auto* p = dyn_cast<ParmVarDecl>(d)) return IR::param(p->getNameAsString());
    if (const auto* v = dyn_cast<VarDecl>(d)) {
      if (loop_variables_.count(v)) {
        Symbol sym{SymbolKind::LoopCounter, 0, v->getNameAsString(), true};
        if (v->getInit()) sym.uniform = !is_lane_varying(lower(v->getInit()));
        return IR::sym(sym);
      }
      if (v->hasLocalStorage() && !modified.count(v) && v->getInit() && !lowering_.count(v) &&
          !v->getType()->isReferenceType()) {
        if (auto it = lowered_locals_.find(v); it != lowered_locals_.end()) return it->second;
        lowering_.insert(v);
        ExprRef r = lower(v->getInit());
        lowering_.erase(v);
        lowered_locals_[v] = r;
        return r;
      }
      return IR::sym(Symbol{SymbolKind::Local, 0, v->getNameAsString(), false});
    }
    return IR::opaque(ref->getNameInfo().getAsString(), false);
  }
  if (const auto* bo = dyn_cast<BinaryOperator>(s)) {
    ExprOp op;
    switch (bo->getOpcode()) {
      case BO_Add: op = ExprOp::Add; break;
      case BO_Sub: op = ExprOp::Sub; break;
      case BO_Mul: op = ExprOp::Mul; break;
      case BO_Div: op = ExprOp::Div; break;
      case BO_Rem: op = ExprOp::Rem; break;
      case BO_Shl: op = ExprOp::Shl; break;
      case BO_Shr: op = ExprOp::Shr; break;
      case BO_And: op = ExprOp::BitAnd; break;
      case BO_Or: op = ExprOp::BitOr; break;
      case BO_Xor: op = ExprOp::BitXor; break;
      case BO_LT: op = ExprOp::Lt; break;
      case BO_GT: op = ExprOp::Gt; break;
      case BO_LE: op = ExprOp::Le; break;
      case BO_GE: op = ExprOp::Ge; break;
      case BO_EQ: op = ExprOp::Eq; break;
      case BO_NE: op = ExprOp::Ne; break;
      case BO_LAnd: op = ExprOp::LogicalAnd; break;
      case BO_LOr: op = ExprOp::LogicalOr; break;
      default: return IR::opaque(text(s).value_or("?"), false);
    }
    return IR::binary(op, lower(bo->getLHS()), lower(bo->getRHS()));
  }
  if (const auto* uo = dyn_cast<UnaryOperator>(s)) {
    switch (uo->getOpcode()) {
      case UO_Minus: return IR::unary(ExprOp::Neg, lower(uo->getSubExpr()));
      case UO_Not: return IR::unary(ExprOp::BitNot, lower(uo->getSubExpr()));
      case UO_LNot: return IR::unary(ExprOp::LogicalNot, lower(uo->getSubExpr()));
      case UO_Plus: return lower(uo->getSubExpr());
      default: return IR::opaque(text(s).value_or("?"), false);
    }
  }
  if (const auto* co = dyn_cast<ConditionalOperator>(s))
    return IR::select(lower(co->getCond()), lower(co->getTrueExpr()), lower(co->getFalseExpr()));
  if (const auto* a = dyn_cast<ArraySubscriptExpr>(s)) {
    const ValueDecl* b = base_decl(a->getBase());
    return IR::load(b ? b->getNameAsString() : "?", lower(a->getIdx()));
  }
  if (const auto* call = dyn_cast<CallExpr>(s)) {
    std::string name = callee_name(call);
    std::vector<ExprRef> args;
    for (const Expr* arg : call->arguments()) args.push_back(lower(arg));
    if ((name == "min" || name == "max" || name == "umin" || name == "umax") && args.size() == 2)
      return IR::binary(name.find("min") != std::string::npos ? ExprOp::Min : ExprOp::Max, args[0], args[1]);
    return IR::call(name, std::move(args));
  }
  return IR::opaque(text(s).value_or("?"), false);
}

std::optional<Polynomial> KernelContext::polynomial(const Expr* e) const { return to_polynomial(lower(e)); }

// ---- polynomial shapes ------------------------------------------------------------

Symbol builtin_symbol(SymbolKind kind, int dim) {
  Symbol s;
  s.kind = kind;
  s.dim = dim;
  s.uniform = kind != SymbolKind::ThreadIdx;
  return s;
}

bool is_global_id(const Polynomial& p, int dim) {
  const Symbol bx = builtin_symbol(SymbolKind::BlockIdx, dim), bd = builtin_symbol(SymbolKind::BlockDim, dim),
               tx = builtin_symbol(SymbolKind::ThreadIdx, dim);
  Polynomial want = Polynomial::symbol(bx) * Polynomial::symbol(bd) + Polynomial::symbol(tx);
  return p.terms == want.terms;
}

std::optional<Polynomial> coefficient(const Polynomial& p, const Symbol& s) { return p.coefficient_of(s); }

bool is_constant(const Polynomial& p, std::int64_t value) { return p.is_constant() && p.constant_term() == value; }

bool is_uniform(const Polynomial& p) {
  for (const auto& [mono, coeff] : p.terms)
    for (const Symbol& s : mono)
      if (s.kind == SymbolKind::ThreadIdx || (s.kind == SymbolKind::Local && !s.uniform) ||
          (s.kind == SymbolKind::LoopCounter && !s.uniform))
        return false;
  return true;
}

}  // namespace warplens::agent::rw
