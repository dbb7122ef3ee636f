#include "agent/rewrites/clang_support.h"

#include <clang/AST/DeclTemplate.h>
#include <clang/AST/TemplateBase.h>

#include <sstream>

#include "analysis/static_analyses.h"

namespace warplens::agent::rw {

using namespace clang;
using clang::Expr;
using IR = ::warplens::Expr;

// ---- parsing --------------------------------------------------------------------

std::unique_ptr<ParsedFile> parse_file(const SourceFile& file, const EngineOptions& options, std::string& error,
                                       std::stop_token stop) {
  auto parsed = std::make_unique<ParsedFile>();
  parsed->path = file.path;
  parsed->text = file.text;
  parsed->options = options.analysis;
  parsed->ast = parse_ast(file, options.analysis, stop);
  if (parsed->ast->result.cancelled) {
    error = "cancelled";
    return nullptr;
  }
  if (parsed->ast->result.over_limit) {
    error = file.path + " is not rewritten: " + parsed->ast->result.over_limit->message;
    return nullptr;
  }
  if (!parsed->ast->unit) {
    error = "clang could not parse " + file.path;
    for (const Finding& f : parsed->ast->result.diagnostics)
      if (f.severity == Severity::Error) {
        error += ": " + f.message;
        break;
      }
    return nullptr;
  }
  if (parsed->ast->has_errors()) {
    std::vector<std::string> errors;
    for (const Finding& f : parsed->ast->result.diagnostics)
      if (f.source == "clang" && f.severity == Severity::Error)
        errors.push_back(std::to_string(f.location.range.start.line + 1) + ":" +
                         std::to_string(f.location.range.start.column + 1) + ": " + f.message);
    error = "the file does not compile, so it is not rewritten: " + errors.front();
    if (errors.size() > 1) error += " (and " + std::to_string(errors.size() - 1) + " more)";
    return nullptr;
  }
  if (parsed->ast->target.isInvalid()) {
    error = "clang did not reach " + file.path;
    return nullptr;
  }
  parsed->mapper =
      std::make_unique<clang_frontend::SourceMapper>(parsed->sm(), parsed->lang(), parsed->ast->target);
  return parsed;
}

const std::vector<Finding>& ParsedFile::findings() const {
  if (!findings_) findings_ = run_static_analyses(model(), options);
  return *findings_;
}

const Function* ParsedFile::model_function(const clang::FunctionDecl* kernel) const {
  // The model has one Function per instantiation, named by its template
  // arguments as the model builder prints them; the name's range is the
  // same for all of them.
  std::string args;
  if (const TemplateArgumentList* list = kernel->getTemplateSpecializationArgs()) {
    PrintingPolicy pp = ctx().getPrintingPolicy();
    pp.SuppressTagKeyword = true;
    pp.SuppressScope = false;
    pp.FullyQualifiedName = false;
    pp.AnonymousTagLocations = false;
    llvm::raw_string_ostream os(args);
    printTemplateArgumentList(os, list->asArray(), pp);
    os.flush();
  }
  const Range want = mapper->range(kernel->getLocation());
  for (const Function& f : model().functions)
    if (f.name_range.start == want.start && f.template_args == args) return &f;
  for (const Function& f : model().functions)
    if (f.name_range.start == want.start) return &f;
  return nullptr;
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
    // An element of class type (a bf16 or half wrapper) is stored through its
    // own operator= / operator+= / operator++, or changed by a non-const
    // member function: those are calls, but they write the element.
    if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(s); oc && oc->getNumArgs() >= 1) {
      const OverloadedOperatorKind op = oc->getOperator();
      const bool incdec = op == OO_PlusPlus || op == OO_MinusMinus;
      if (oc->isAssignmentOp() || incdec) {
        const MemberExpr* m = nullptr;
        if (const auto* a = subscript_of(oc->getArg(0), &m)) {
          auto& acc = found[a];
          if (!acc.expr) {
            order.push_back(a);
            acc.expr = a;
          }
          acc.write = true;
          if (op != OO_Equal) acc.read = true;
          acc.member = m;
        }
      }
    }
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(s)) {
      const CXXMethodDecl* md = mc->getMethodDecl();
      if (md && !md->isConst() && !md->isStatic())
        if (const auto* a = dyn_cast_or_null<ArraySubscriptExpr>(
                mc->getImplicitObjectArgument() ? mc->getImplicitObjectArgument()->IgnoreParenImpCasts() : nullptr)) {
          auto& acc = found[a];
          if (!acc.expr) {
            order.push_back(a);
            acc.expr = a;
          }
          acc.write = acc.read = true;
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

namespace {

// Every place in `body` that may change a variable: the expression and the
// variable. `lasting` marks the ones after which it may change at any later
// point (its address taken, a non-const reference bound to it).
struct Modification {
  const VarDecl* var = nullptr;
  const Stmt* site = nullptr;
  bool lasting = false;
};

std::vector<Modification> modifications(const Stmt* body) {
  std::vector<Modification> out;
  auto mark = [&](const Expr* e, const Stmt* site, bool lasting) {
    e = e->IgnoreParenImpCasts();
    // A field of a variable held by value (`a.out = p`, `&b.x`) is part of
    // the variable: changing it changes the variable.
    while (const auto* m = dyn_cast<MemberExpr>(e)) {
      if (m->isArrow()) return;
      e = m->getBase()->IgnoreParenImpCasts();
    }
    if (const auto* r = dyn_cast<DeclRefExpr>(e))
      if (const auto* v = dyn_cast<VarDecl>(r->getDecl())) out.push_back({v, site, lasting});
  };
  any_stmt(body, [&](const Stmt* s) {
    if (const auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) mark(bo->getLHS(), s, false);
    if (const auto* uo = dyn_cast<UnaryOperator>(s)) {
      if (uo->isIncrementDecrementOp()) mark(uo->getSubExpr(), s, false);
      if (uo->getOpcode() == UO_AddrOf) mark(uo->getSubExpr(), s, true);
    }
    if (const auto* call = dyn_cast<CallExpr>(s)) {
      // Arguments bound to non-const references may be modified (and kept).
      if (const FunctionDecl* fd = call->getDirectCallee()) {
        for (unsigned i = 0; i < call->getNumArgs() && i < fd->getNumParams(); ++i) {
          QualType t = fd->getParamDecl(i)->getType();
          if (t->isReferenceType() && !t.getNonReferenceType().isConstQualified()) mark(call->getArg(i), s, true);
        }
      }
    }
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d); v && v->getType()->isReferenceType() && v->getInit() &&
                                                  !v->getType().getNonReferenceType().isConstQualified())
          mark(v->getInit(), s, true);
    }
    return false;
  });
  return out;
}

}  // namespace

std::set<const VarDecl*> modified_variables(const Stmt* body) {
  std::set<const VarDecl*> out;
  for (const Modification& m : modifications(body)) out.insert(m.var);
  return out;
}

namespace {
bool within(const SourceManager& sm, SourceRange outer, SourceLocation loc);
}  // namespace

bool keeps_value_between(const VarDecl* v, const Stmt* body, const Stmt* first, const Stmt* second,
                         const SourceManager& sm) {
  if (!v || !body || !first || !second) return false;
  std::vector<Modification> mods;
  for (const Modification& m : modifications(body))
    if (m.var == v) mods.push_back(m);
  if (mods.empty()) return true;
  // A jump can reach code from anywhere: then only an unmodified variable.
  if (any_stmt(body, [](const Stmt* s) { return isa<GotoStmt>(s) || isa<IndirectGotoStmt>(s); })) return false;
  const SourceLocation begin = first->getBeginLoc(), end = second->getEndLoc();
  if (!sm.isBeforeInTranslationUnit(begin, second->getBeginLoc()) && begin != second->getBeginLoc()) return false;
  const SourceRange between(begin, end);
  // Loops around `second` but not around `first`: going round one reaches
  // `second` again without passing `first`.
  std::vector<SourceRange> loops;
  any_stmt(body, [&](const Stmt* s) {
    if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s)) {
      const SourceRange r = s->getSourceRange();
      if (within(sm, r, second->getBeginLoc()) && !within(sm, r, first->getBeginLoc())) loops.push_back(r);
    }
    return false;
  });
  for (const Modification& m : mods) {
    if (m.lasting) return false;
    const SourceLocation at = m.site->getBeginLoc();
    if (within(sm, between, at)) return false;
    for (const SourceRange& l : loops)
      if (within(sm, l, at)) return false;
  }
  return true;
}

// ---- kernel context ---------------------------------------------------------------

namespace {

// `for (int k = S; ...)` or `for (k = S; ...)`: the variable and its start.
std::optional<ForCounter> header_counter(const ForStmt* loop) {
  ForCounter c;
  if (const auto* ds = dyn_cast_or_null<DeclStmt>(loop->getInit())) {
    if (!ds->isSingleDecl()) return std::nullopt;
    c.var = dyn_cast<VarDecl>(ds->getSingleDecl());
    if (!c.var || !c.var->getInit()) return std::nullopt;
    c.init = c.var->getInit();
    c.declared_in_header = true;
    return c;
  }
  const auto* as = dyn_cast_or_null<BinaryOperator>(loop->getInit());
  if (!as || as->getOpcode() != BO_Assign) return std::nullopt;
  const auto* ref = dyn_cast<DeclRefExpr>(as->getLHS()->IgnoreParenImpCasts());
  c.var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!c.var || !c.var->hasLocalStorage() || isa<ParmVarDecl>(c.var)) return std::nullopt;
  c.init = as->getRHS();
  return c;
}

bool within(const SourceManager& sm, SourceRange outer, SourceLocation loc) {
  return !sm.isBeforeInTranslationUnit(loc, outer.getBegin()) && !sm.isBeforeInTranslationUnit(outer.getEnd(), loc);
}

}  // namespace

KernelContext::KernelContext(ParsedFile& f, const FunctionDecl* k)
    : file(f), kernel(k), body(dyn_cast_or_null<CompoundStmt>(k->getBody())) {
  modified = modified_variables(k->getBody());
  model = f.model_function(k);
  // Loop counters. A counter declared before its loop counts only when every
  // use is inside loops that initialise it in their header: then no value it
  // takes survives a loop, and inside each loop it is that loop's counter.
  std::map<const VarDecl*, std::vector<const ForStmt*>> header_inits;
  std::vector<std::pair<const ForStmt*, ForCounter>> found;
  any_stmt(k->getBody(), [&](const Stmt* s) {
    if (const auto* fs = dyn_cast<ForStmt>(s))
      if (auto c = header_counter(fs)) {
        found.emplace_back(fs, *c);
        if (!c->declared_in_header) header_inits[c->var].push_back(fs);
      }
    return false;
  });
  for (const auto& [loop, c] : found) {
    if (!c.declared_in_header) {
      bool ok = true;
      for (const DeclRefExpr* ref : references_to(k->getBody(), c.var)) {
        bool inside = false;
        for (const ForStmt* l : header_inits[c.var]) inside |= within(f.sm(), l->getSourceRange(), ref->getLocation());
        ok &= inside;
      }
      if (!ok) continue;
    }
    counters_[loop] = c;
    loop_variables_.insert(c.var);
  }
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

  // The analysis' lowering, with the values of the kernel's locals: loop
  // counters as named symbols, unmodified locals as their initialisers (in
  // declaration order, so later ones see earlier ones), pointer locals as
  // the address they hold. Flow-insensitive on purpose: only locals that
  // never change are given values, so every use sees the same one.
  env_ = std::make_unique<clang_frontend::Env>();
  lowering_ = std::make_unique<clang_frontend::Lowering>(f.ctx(), *f.mapper, k);
  lowering_->set_env(env_.get());
  std::map<const VarDecl*, const Expr*> counter_inits;
  for (const auto& [loop, c] : counters_) counter_inits.emplace(c.var, c.init);
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls()) {
        const auto* v = dyn_cast<VarDecl>(d);
        if (!v) continue;
        if (v->getInit()) walk(v->getInit());
        if (loop_variables_.count(v)) {
          Symbol sym{SymbolKind::LoopCounter, 0, v->getNameAsString(), true};
          // Uniform when every start it is given is (counters of two loops).
          for (const auto& [loop, c] : counters_)
            if (c.var == v) sym.uniform &= !is_lane_varying(lowering_->lower(c.init));
          env_->values[v] = IR::sym(sym);
          continue;
        }
        if (!v->hasLocalStorage() || modified.count(v) || !v->getInit() || v->getType()->isReferenceType() ||
            v->hasAttr<CUDASharedAttr>() || v->getType()->isArrayType())
          continue;
        if (v->getType()->isPointerType()) {
          if (auto a = lowering_->address_of_pointer(v->getInit()); a && a->kind != clang_frontend::RootKind::Unknown)
            env_->pointers[v] = *a;
          continue;
        }
        env_->values[v] = lowering_->lower(v->getInit());
      }
      return;
    }
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(k->getBody());
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
  return lowering_->lower(e);
}

std::optional<clang_frontend::Address> KernelContext::address(const Expr* lvalue) const {
  if (!lvalue) return std::nullopt;
  return lowering_->address_of_lvalue(lvalue);
}

std::optional<ForCounter> KernelContext::for_counter(const ForStmt* loop) const {
  if (auto it = counters_.find(loop); it != counters_.end()) return it->second;
  return std::nullopt;
}

std::vector<Access> accesses_in(const KernelContext& ctx, const Stmt* root) {
  std::vector<Access> out = collect_accesses(root);
  for (Access& a : out) {
    const Expr* lvalue = a.member ? static_cast<const Expr*>(a.member) : a.expr;
    auto addr = ctx.address(a.expr);
    if (!addr) continue;
    (void)lvalue;
    a.root = addr->root;
    a.root_is_param = addr->kind == clang_frontend::RootKind::Param;
    a.flat_index = addr->index();
  }
  return out;
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
