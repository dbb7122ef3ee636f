// The kernel model of a translation unit: which functions, their signatures,
// __launch_bounds__, __shared__ arrays, and the launches. Function bodies are
// walked by BodyWalker (body_walker.cpp, loop_walker.cpp).
#include "analysis/clang/model_builder.h"

#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/TypeLoc.h>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <map>
#include <memory>
#include <set>

#include "analysis/clang/ast_helpers.h"
#include "analysis/clang/body_walker.h"
#include "analysis/clang/constant_eval.h"
#include "analysis/clang/host_flow.h"
#include "analysis/clang/launch_resolver.h"
#include "analysis/clang/pointer_escapes.h"

using namespace clang;

namespace warplens::clang_frontend {

namespace {

constexpr size_t kMaxInstantiationsPerTemplate = 8;
constexpr size_t kMaxIncludedFunctions = 128;

std::string print_template_args(const FunctionDecl* fd, const PrintingPolicy& pp) {
  const TemplateArgumentList* args = fd->getTemplateSpecializationArgs();
  if (!args) return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  printTemplateArgumentList(os, args->asArray(), pp);
  return os.str();
}

PrintingPolicy model_policy(const ASTContext& ctx) {
  PrintingPolicy pp = ctx.getPrintingPolicy();
  pp.SuppressTagKeyword = true;
  pp.SuppressScope = false;
  pp.FullyQualifiedName = false;
  pp.AnonymousTagLocations = false;
  return pp;
}

std::string function_key(const FunctionDecl* fd, const PrintingPolicy& pp) {
  std::string key = fd->getQualifiedNameAsString() + print_template_args(fd, pp) + "(";
  for (unsigned i = 0; i < fd->getNumParams(); ++i) {
    if (i) key += ", ";
    key += fd->getParamDecl(i)->getType().getAsString(pp);
  }
  return key + ")";
}

class ModelCollector : public RecursiveASTVisitor<ModelCollector> {
 public:
  ModelCollector(ASTContext& ctx, const SourceMapper& map, std::stop_token stop)
      : ctx_(ctx), map_(map), stop_(stop), pp_(model_policy(ctx)), resolver_(ctx, map) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseDecl(Decl* d) {
    if (!d || stop_.stop_requested()) return !stop_.stop_requested();
    if (!isa<TranslationUnitDecl>(d) && !map_.in_target(d->getLocation()) && !isa<NamespaceDecl>(d) &&
        !isa<LinkageSpecDecl>(d))
      return true;
    if ((isa<NamespaceDecl>(d) || isa<LinkageSpecDecl>(d)) && map_.sm().isInSystemHeader(d->getLocation()))
      return true;
    return RecursiveASTVisitor::TraverseDecl(d);
  }

  bool TraverseFunctionDecl(FunctionDecl* fd) { return traverse_function(fd, [&] { return RecursiveASTVisitor::TraverseFunctionDecl(fd); }); }
  bool TraverseCXXMethodDecl(CXXMethodDecl* fd) { return traverse_function(fd, [&] { return RecursiveASTVisitor::TraverseCXXMethodDecl(fd); }); }
  bool TraverseForStmt(ForStmt* s) { return in_loop([&] { return RecursiveASTVisitor::TraverseForStmt(s); }); }
  bool TraverseWhileStmt(WhileStmt* s) { return in_loop([&] { return RecursiveASTVisitor::TraverseWhileStmt(s); }); }
  bool TraverseDoStmt(DoStmt* s) { return in_loop([&] { return RecursiveASTVisitor::TraverseDoStmt(s); }); }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt* s) { return in_loop([&] { return RecursiveASTVisitor::TraverseCXXForRangeStmt(s); }); }

  // The conditions each launch runs under (launch_resolver.h: a launch in
  // `if (n == 16)` or `case 16:` runs with n = 16).
  bool TraverseIfStmt(IfStmt* s) {
    if (!s || !WalkUpFromIfStmt(s)) return !stop_.stop_requested();
    if (s->getInit()) TraverseStmt(s->getInit());
    if (s->getConditionVariableDeclStmt()) TraverseStmt(s->getConditionVariableDeclStmt());
    TraverseStmt(s->getCond());
    path_.push_back({s->getCond(), true, false, {}});
    TraverseStmt(s->getThen());
    path_.back().taken = false;
    TraverseStmt(s->getElse());
    path_.pop_back();
    return !stop_.stop_requested();
  }
  bool TraverseSwitchStmt(SwitchStmt* s) {
    if (!s || !WalkUpFromSwitchStmt(s)) return !stop_.stop_requested();
    if (s->getInit()) TraverseStmt(s->getInit());
    if (s->getConditionVariableDeclStmt()) TraverseStmt(s->getConditionVariableDeclStmt());
    TraverseStmt(s->getCond());
    auto* body = dyn_cast_or_null<CompoundStmt>(s->getBody());
    if (!body) return TraverseStmt(s->getBody());
    // Statements after a case label belong to it until the next label.
    path_.push_back({s->getCond(), true, true, {}});
    for (Stmt* child : body->body()) {
      if (isa<SwitchCase>(child)) {
        std::vector<std::int64_t> labels;
        bool is_default = false;
        for (Stmt* c = child; c && isa<SwitchCase>(c);) {
          if (auto* cs = dyn_cast<CaseStmt>(c)) {
            if (auto v = evaluate(cs->getLHS(), ctx_)) labels.push_back(*v);
            else is_default = true;  // unknown label: no fact
            c = cs->getSubStmt();
          } else {
            is_default = true;
            c = cast<DefaultStmt>(c)->getSubStmt();
          }
        }
        path_.back().case_values = is_default ? std::vector<std::int64_t>{} : labels;
      }
      TraverseStmt(child);
    }
    path_.pop_back();
    return !stop_.stop_requested();
  }

  bool VisitFunctionDecl(FunctionDecl* fd) {
    if (!fd->doesThisDeclarationHaveABody() || fd->isInvalidDecl()) return true;
    bool kernel = fd->hasAttr<CUDAGlobalAttr>();
    auto* dev = fd->getAttr<CUDADeviceAttr>();
    if (!kernel && (!dev || dev->isImplicit())) return true;
    if (auto* md = dyn_cast<CXXMethodDecl>(fd); md && md->getParent()->isLambda()) return true;
    if (!map_.in_target(fd->getLocation())) return true;
    candidates_.push_back(fd);
    return true;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr* k) {
    if (map_.in_target(k->getBeginLoc())) launch(k);
    return true;
  }

  KernelModel finish(const std::string& file) {
    KernelModel model;
    model.file = file;
    // De-duplicate by source location: a template's instantiations replace
    // its pattern; at most a few instantiations per template.
    std::map<unsigned, std::vector<FunctionDecl*>> by_location;
    std::vector<unsigned> order;
    for (FunctionDecl* fd : candidates_) {
      unsigned loc = fd->getLocation().getRawEncoding();
      if (!by_location.count(loc)) order.push_back(loc);
      auto& group = by_location[loc];
      if (std::find(group.begin(), group.end(), fd) == group.end()) group.push_back(fd);
    }
    for (unsigned loc : order) {
      auto& group = by_location[loc];
      bool has_concrete = std::any_of(group.begin(), group.end(), [](FunctionDecl* f) { return !f->isDependentContext(); });
      size_t taken = 0;
      for (FunctionDecl* fd : group) {
        if (stop_.stop_requested()) return model;
        if (has_concrete && fd->isDependentContext()) continue;
        if (++taken > kMaxInstantiationsPerTemplate) break;
        model.functions.push_back(build_function(fd));
      }
    }
    add_included_functions(model);
    // Launches: drop a template pattern's launch when an instantiation has it.
    for (auto& l : launches_) {
      bool duplicate = l.kernel_key.empty() && std::any_of(launches_.begin(), launches_.end(), [&](const LaunchSite& o) {
                         return &o != &l && o.range == l.range && !o.kernel_key.empty();
                       });
      bool seen = std::any_of(model.launches.begin(), model.launches.end(), [&](const LaunchSite& o) {
        return o.range == l.range && o.kernel_key == l.kernel_key;
      });
      if (!duplicate && !seen) model.launches.push_back(l);
    }
    return model;
  }

 private:
  template <class F>
  bool traverse_function(FunctionDecl* fd, F traverse) {
    functions_.push_back(fd);
    int saved = loop_depth_;
    loop_depth_ = 0;
    bool r = traverse();
    loop_depth_ = saved;
    functions_.pop_back();
    return r;
  }
  template <class F>
  bool in_loop(F traverse) {
    ++loop_depth_;
    bool r = traverse();
    --loop_depth_;
    return r;
  }

  // The __device__ functions of the project's headers that this file's
  // functions call (and they in turn), each built with its own file's
  // mapper: the warp analyses inline them and report at their lines, where
  // the hardware attributes an inlined helper's instructions.
  void add_included_functions(KernelModel& model) {
    std::set<std::string> have;
    for (const auto& f : model.functions) have.insert(f.key);
    std::map<FileID, std::unique_ptr<SourceMapper>> mappers;
    const SourceManager& sm = map_.sm();
    for (std::size_t next = 0; next < called_.size() && model.included_functions.size() < kMaxIncludedFunctions;
         ++next) {
      if (stop_.stop_requested()) return;
      const FunctionDecl* fd = called_[next];
      if (!fd || !fd->doesThisDeclarationHaveABody() || fd->isInvalidDecl() || fd->isDependentContext()) continue;
      SourceLocation loc = sm.getExpansionLoc(fd->getLocation());
      if (map_.in_target(loc) || in_system_header(sm, loc) || fd->hasAttr<CUDAGlobalAttr>()) continue;
      auto* dev = fd->getAttr<CUDADeviceAttr>();
      if (!dev || dev->isImplicit()) continue;
      if (auto* md = dyn_cast<CXXMethodDecl>(fd); md && md->getParent()->isLambda()) continue;
      std::string key = function_key(fd, pp_);
      if (!have.insert(key).second) continue;
      FileID fid = sm.getFileID(loc);
      auto fe = sm.getFileEntryRefForID(fid);
      if (!fe) continue;
      auto& mapper = mappers[fid];
      if (!mapper) mapper = std::make_unique<SourceMapper>(sm, map_.lang(), fid);
      fn_map_ = mapper.get();
      Function f = build_function(const_cast<FunctionDecl*>(fd));
      fn_map_ = nullptr;
      llvm::SmallString<256> path(fe->getName());
      llvm::sys::fs::make_absolute(path);
      llvm::sys::path::remove_dots(path, true);
      f.file = std::string(path.str());
      model.included_functions.push_back(std::move(f));
    }
  }

  Range range_of_definition(const FunctionDecl* pattern) const {
    SourceRange r = pattern->getSourceRange();
    if (auto* tmpl = pattern->getDescribedFunctionTemplate()) r.setBegin(tmpl->getBeginLoc());
    // Attributes spelled before the declaration (`__global__`, __launch_bounds__).
    for (const Attr* a : pattern->attrs())
      if (a->getLocation().isValid() && !a->isImplicit() && fmap().in_target(a->getLocation())) {
        SourceLocation b = fmap().sm().getExpansionLoc(a->getRange().getBegin());
        if (fmap().sm().isBeforeInTranslationUnit(b, fmap().sm().getExpansionLoc(r.getBegin())) &&
            !pattern->getDescribedFunctionTemplate())
          r.setBegin(b);
      }
    return fmap().range(r);
  }

  Function build_function(FunctionDecl* fd) {
    const FunctionDecl* pattern = fd->getTemplateInstantiationPattern();
    if (!pattern) pattern = fd;
    Function f;
    f.name = fd->getNameAsString();
    f.key = function_key(fd, pp_);
    f.template_args = print_template_args(fd, pp_);
    f.is_template = fd->isDependentContext();
    bool kernel = fd->hasAttr<CUDAGlobalAttr>();
    bool host = fd->hasAttr<CUDAHostAttr>() && !fd->getAttr<CUDAHostAttr>()->isImplicit();
    f.kind = kernel ? FunctionKind::Kernel : host ? FunctionKind::HostDevice : FunctionKind::Device;
    f.signature = fd->getReturnType().getAsString(pp_) + " " + fd->getQualifiedNameAsString() + f.template_args + "(";
    for (unsigned i = 0; i < fd->getNumParams(); ++i)
      f.signature += (i ? ", " : "") + fd->getParamDecl(i)->getType().getAsString(pp_);
    f.signature += ")";
    f.range = range_of_definition(pattern);
    f.name_range = fmap().range(pattern->getNameInfo().getSourceRange());
    if (pattern->getBody()) f.body_range = fmap().range(pattern->getBody()->getSourceRange());
    f.declaration_start = {f.range.start, f.range.start};
    if (auto* tmpl = pattern->getDescribedFunctionTemplate()) {
      // After `template <...>`: where the declaration proper begins.
      SourceLocation after = tmpl->getTemplateParameters()->getRAngleLoc();
      if (after.isValid()) {
        SourceLocation next = Lexer::getLocForEndOfToken(fmap().sm().getExpansionLoc(after), 0, fmap().sm(), fmap().lang());
        std::optional<Token> tok = Lexer::findNextToken(fmap().sm().getExpansionLoc(after), fmap().sm(), fmap().lang());
        if (tok) next = tok->getLocation();
        f.declaration_start = fmap().point(next);
      }
    }
    for (unsigned i = 0; i < fd->getNumParams(); ++i) f.params.push_back(parameter(fd->getParamDecl(i)));
    if (auto* lb = fd->getAttr<CUDALaunchBoundsAttr>()) {
      LaunchBounds b;
      b.max_threads = evaluate(lb->getMaxThreads(), ctx_);
      b.min_blocks = evaluate(lb->getMinBlocks(), ctx_);
      const Attr* spelled = pattern->getAttr<CUDALaunchBoundsAttr>();
      SourceRange r = spelled ? spelled->getRange() : lb->getRange();
      SourceLocation b0 = fmap().sm().getExpansionRange(r.getBegin()).getBegin();
      SourceLocation b1 = fmap().sm().getExpansionRange(r.getEnd()).getEnd();
      b.range = fmap().range({b0, b1});
      b.spelling = fmap().text({b0, b1});
      f.launch_bounds = b;
    }

    BodyWalker walker(ctx_, fmap(), fd, f, [&](const FunctionDecl* callee) {
      called_.push_back(callee);
      return function_key(callee, pp_);
    });
    walker.run();
    mark_escaping_pointer_params(ctx_, fmap(), fd, f);
    for (const VarDecl* var : walker.shared_vars()) {
      SharedArray s = shared_array(var);
      s.address_escapes = walker.escaped_shared().count(var) > 0;
      f.shared_arrays.push_back(std::move(s));
    }
    return f;
  }

  Parameter parameter(const ParmVarDecl* p) {
    Parameter out;
    out.name = p->getNameAsString();
    out.type = p->getType().getAsString(pp_);
    out.range = fmap().range(p->getSourceRange());
    QualType t = p->getType();
    out.is_reference = t->isReferenceType();
    out.is_restrict = t.isRestrictQualified();
    if (t->isPointerType()) {
      out.is_pointer = true;
      QualType pointee = t->getPointeeType();
      out.pointee_const = pointee.isConstQualified();
      out.pointee_type = pointee.getUnqualifiedType().getAsString(pp_);
      if (!pointee->isDependentType() && !pointee->isIncompleteType() && !pointee->isVoidType() &&
          !pointee->isFunctionType())
        out.pointee_bytes = static_cast<int>(ctx_.getTypeSizeInChars(pointee).getQuantity());
    }
    return out;
  }

  SharedArray shared_array(const VarDecl* var) {
    SharedArray s;
    s.name = var->getNameAsString();
    s.is_extern = var->hasExternalStorage();
    s.range = fmap().range(var->getSourceRange());
    QualType t = var->getType();
    while (const ArrayType* at = ctx_.getAsArrayType(t)) {
      if (auto* c = dyn_cast<ConstantArrayType>(at)) s.dims.push_back(static_cast<std::int64_t>(c->getSize().getZExtValue()));
      else s.dims.push_back(0);
      t = at->getElementType();
    }
    s.element_type = t.getUnqualifiedType().getAsString(pp_);
    if (!t->isDependentType() && !t->isIncompleteType())
      s.element_bytes = static_cast<int>(ctx_.getTypeSizeInChars(t).getQuantity());
    if (TypeSourceInfo* tsi = var->getTypeSourceInfo()) {
      const clang::Expr* innermost = nullptr;
      for (TypeLoc tl = tsi->getTypeLoc(); !tl.isNull();) {
        if (auto at = tl.getAs<ArrayTypeLoc>()) {
          if (at.getSizeExpr()) innermost = at.getSizeExpr();
          tl = at.getElementLoc();
        } else if (auto q = tl.getAs<QualifiedTypeLoc>()) {
          tl = q.getUnqualifiedLoc();
        } else if (auto a = tl.getAs<AttributedTypeLoc>()) {
          tl = a.getModifiedLoc();
        } else {
          break;
        }
      }
      if (innermost) {
        s.innermost_dim_range = fmap().range(innermost->getSourceRange());
        s.innermost_dim_spelling = fmap().text(innermost->getSourceRange());
      }
    }
    if (var->hasAttr<AlignedAttr>()) s.alignment = static_cast<int>(ctx_.getDeclAlign(var).getQuantity());
    return s;
  }

  void launch(CUDAKernelCallExpr* k) {
    LaunchSite l;
    const FunctionDecl* host = functions_.empty() ? nullptr : functions_.back();
    resolver_.set_launch(host, path_);
    LaunchEvaluator eval(ctx_, resolver_.modified(host), &resolver_);
    if (const FunctionDecl* callee = k->getDirectCallee()) {
      l.kernel = callee->getNameAsString();
      if (!callee->isDependentContext()) l.kernel_key = function_key(callee, pp_);
    } else {
      l.kernel = map_.text(k->getCallee()->getSourceRange());
      for (const FunctionDecl* fd : resolver_.kernels_reaching(k->getCallee()))
        l.kernel_candidates.push_back(function_key(fd, pp_));
    }
    if (host) l.caller = host->getNameAsString();
    l.range = map_.range(k->getSourceRange());
    l.in_loop = loop_depth_ > 0;
    if (auto* ref = dyn_cast<DeclRefExpr>(k->getCallee()->IgnoreImplicit()); ref && ref->hasExplicitTemplateArgs())
      l.template_args = map_.text({ref->getLAngleLoc(), ref->getRAngleLoc()});
    else if (auto* ule = dyn_cast<UnresolvedLookupExpr>(k->getCallee()->IgnoreImplicit());
             ule && ule->hasExplicitTemplateArgs())
      l.template_args = map_.text({ule->getLAngleLoc(), ule->getRAngleLoc()});
    if (const CallExpr* cfg = k->getConfig()) {
      l.config_range = map_.range(cfg->getSourceRange());
      auto arg = [&](unsigned i) -> const clang::Expr* {
        if (i >= cfg->getNumArgs() || isa<CXXDefaultArgExpr>(cfg->getArg(i))) return nullptr;
        return cfg->getArg(i);
      };
      if (const clang::Expr* g = arg(0)) {
        l.grid.spelling = map_.text(g->getSourceRange());
        l.grid.value = eval.dim3(g);
      }
      if (const clang::Expr* b = arg(1)) {
        l.block.spelling = map_.text(b->getSourceRange());
        l.block.range = map_.range(b->getSourceRange());
        l.block.value = eval.dim3(b);
      }
      if (const clang::Expr* s = arg(2)) {
        l.shared_bytes_spelling = map_.text(s->getSourceRange());
        l.shared_bytes = eval.integer(s);
      } else {
        l.shared_bytes = 0;
      }
      if (const clang::Expr* st = arg(3)) l.stream_spelling = map_.text(st->getSourceRange());
    }
    for (const clang::Expr* a : k->arguments())
      if (!isa<CXXDefaultArgExpr>(a)) l.args.push_back(map_.text(a->getSourceRange()));
    launches_.push_back(std::move(l));
  }

  // The mapper of the file the function being built is in: the target's,
  // or a header's for included functions.
  const SourceMapper& fmap() const { return fn_map_ ? *fn_map_ : map_; }

  ASTContext& ctx_;
  const SourceMapper& map_;
  const SourceMapper* fn_map_ = nullptr;
  std::stop_token stop_;
  PrintingPolicy pp_;
  std::vector<FunctionDecl*> candidates_;
  std::vector<const FunctionDecl*> called_;  // callees of the functions built so far, in order
  std::vector<LaunchSite> launches_;
  std::vector<const FunctionDecl*> functions_;
  LaunchResolver resolver_;
  std::vector<PathFact> path_;
  int loop_depth_ = 0;
};

}  // namespace

KernelModel build_kernel_model(ASTContext& ctx, const SourceMapper& map, const std::string& file,
                               std::stop_token stop) {
  ModelCollector collector(ctx, map, stop);
  collector.TraverseDecl(ctx.getTranslationUnitDecl());
  KernelModel model = collector.finish(file);
  PrintingPolicy pp = model_policy(ctx);
  model.host_functions = build_host_flow(
      ctx, map, model.launches, [&](const FunctionDecl* fd) { return function_key(fd, pp); }, stop);
  return model;
}

}  // namespace warplens::clang_frontend
