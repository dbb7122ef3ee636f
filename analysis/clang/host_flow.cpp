// Host functions -> HostFunction: buffers and the ordered events on them
// (see host_flow.h and kernel_model.h). Two passes per function: the first
// finds the buffers (pointer expressions that reach a CUDA memory call or a
// kernel launch), the second walks the body in source order and records
// every mention of them, classified, with the loops and branches around it.
//
// Why every mention and not only the CUDA calls: the fusion analysis must
// prove that nothing else reads an intermediate buffer, so an alias
// (`float* q = tmp`), a capture, a call to an unknown function or a host
// read is as important as the launches themselves.
#include "analysis/clang/host_flow.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/clang/ast_helpers.h"
#include "analysis/clang/constant_eval.h"

using namespace clang;

namespace warplens::clang_frontend {

namespace {

// ------------------------------------------------------------- CUDA API

enum class ApiRole : std::uint8_t { Allocate, Free, Copy, Set, Synchronize, Harmless };

struct ApiCall {
  ApiRole role;
  AllocationKind allocation = AllocationKind::Malloc;
  SyncKind sync = SyncKind::Device;
  // Argument positions (-1: none).
  int pointer = -1;             // Allocate: the out-parameter; Free/Set: the buffer
  int dst = -1, src = -1;       // Copy
  int bytes = -1;               // Allocate/Copy/Set: the byte count
  int bytes2 = -1;              // 2-D forms: bytes = width * height
  int kind = -1;                // Copy: the cudaMemcpyKind
  int stream = -1;
  CopyDirection fixed = CopyDirection::Unknown;  // direction when there is no kind argument
};

const ApiCall* cuda_api(const std::string& name) {
  using R = ApiRole;
  using A = AllocationKind;
  using D = CopyDirection;
  static const std::map<std::string, ApiCall> table = {
      {"cudaMalloc", {R::Allocate, A::Malloc, {}, 0, -1, -1, 1}},
      {"cudaMallocManaged", {R::Allocate, A::MallocManaged, {}, 0, -1, -1, 1}},
      {"cudaMallocAsync", {R::Allocate, A::MallocAsync, {}, 0, -1, -1, 1, -1, -1, 2}},
      {"cudaMallocFromPoolAsync", {R::Allocate, A::MallocAsync, {}, 0, -1, -1, 1, -1, -1, 3}},
      {"cudaMallocPitch", {R::Allocate, A::MallocPitch, {}, 0, -1, -1, 2, 3}},
      {"cudaMallocHost", {R::Allocate, A::MallocHost, {}, 0, -1, -1, 1}},
      {"cudaHostAlloc", {R::Allocate, A::MallocHost, {}, 0, -1, -1, 1}},
      {"cudaFree", {R::Free, {}, {}, 0}},
      {"cudaFreeHost", {R::Free, {}, {}, 0}},
      {"cudaFreeAsync", {R::Free, {}, {}, 0, -1, -1, -1, -1, -1, 1}},
      {"cudaMemcpy", {R::Copy, {}, {}, -1, 0, 1, 2, -1, 3}},
      {"cudaMemcpyAsync", {R::Copy, {}, {}, -1, 0, 1, 2, -1, 3, 4}},
      {"cudaMemcpy2D", {R::Copy, {}, {}, -1, 0, 2, 4, 5, 6}},
      {"cudaMemcpy2DAsync", {R::Copy, {}, {}, -1, 0, 2, 4, 5, 6, 7}},
      {"cudaMemcpyPeer", {R::Copy, {}, {}, -1, 0, 2, 4, -1, -1, -1, D::DeviceToDevice}},
      {"cudaMemcpyPeerAsync", {R::Copy, {}, {}, -1, 0, 2, 4, -1, -1, 5, D::DeviceToDevice}},
      {"cudaMemcpyToSymbol", {R::Copy, {}, {}, -1, -1, 1, 2, -1, 4, -1, D::HostToDevice}},
      {"cudaMemcpyToSymbolAsync", {R::Copy, {}, {}, -1, -1, 1, 2, -1, 4, 5, D::HostToDevice}},
      {"cudaMemcpyFromSymbol", {R::Copy, {}, {}, -1, 0, -1, 2, -1, 4, -1, D::DeviceToHost}},
      {"cudaMemcpyFromSymbolAsync", {R::Copy, {}, {}, -1, 0, -1, 2, -1, 4, 5, D::DeviceToHost}},
      {"cudaMemset", {R::Set, {}, {}, 0, -1, -1, 2}},
      {"cudaMemsetAsync", {R::Set, {}, {}, 0, -1, -1, 2, -1, -1, 3}},
      {"cudaMemset2D", {R::Set, {}, {}, 0, -1, -1, 3, 4}},
      {"cudaMemset2DAsync", {R::Set, {}, {}, 0, -1, -1, 3, 4, -1, 5}},
      {"cudaDeviceSynchronize", {R::Synchronize, {}, SyncKind::Device}},
      {"cudaThreadSynchronize", {R::Synchronize, {}, SyncKind::Device}},
      {"cudaStreamSynchronize", {R::Synchronize, {}, SyncKind::Stream, -1, -1, -1, -1, -1, -1, 0}},
      {"cudaEventSynchronize", {R::Synchronize, {}, SyncKind::Event}},
      {"cudaStreamWaitEvent", {R::Synchronize, {}, SyncKind::StreamWaitEvent, -1, -1, -1, -1, -1, -1, 0}},
      // Take a device pointer without touching the data.
      {"cudaMemPrefetchAsync", {R::Harmless}},
      {"cudaMemAdvise", {R::Harmless}},
      {"cudaPointerGetAttributes", {R::Harmless}},
      {"cudaStreamAttachMemAsync", {R::Harmless}},
      {"cudaMemRangeGetAttribute", {R::Harmless}},
      {"cudaMemRangeGetAttributes", {R::Harmless}},
  };
  auto it = table.find(name);
  return it == table.end() ? nullptr : &it->second;
}

CopyDirection direction_of(const clang::Expr* kind, const ASTContext& ctx) {
  if (!kind) return CopyDirection::Unknown;
  auto v = evaluate(kind, ctx);
  if (!v) return CopyDirection::Unknown;
  switch (*v) {  // enum cudaMemcpyKind
    case 0: return CopyDirection::HostToHost;
    case 1: return CopyDirection::HostToDevice;
    case 2: return CopyDirection::DeviceToHost;
    case 3: return CopyDirection::DeviceToDevice;
    case 4: return CopyDirection::Default;
    default: return CopyDirection::Unknown;
  }
}

const clang::Expr* strip_temporaries(const clang::Expr* e) {
  while (e) {
    e = e->IgnoreParens();
    if (auto* f = dyn_cast<FullExpr>(e)) e = f->getSubExpr();
    else if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
    else if (auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
    else if (auto* c = dyn_cast<ImplicitCastExpr>(e)) e = c->getSubExpr();
    else return e;
  }
  return e;
}

bool is_null_pointer(const clang::Expr* e, ASTContext& ctx) {
  return e && e->isNullPointerConstant(ctx, clang::Expr::NPC_ValueDependentIsNotNull) != clang::Expr::NPCK_NotNull;
}

// A call whose result is a fresh pointer from somewhere else (an allocation
// helper, a pool), not a CUDA API call and not an operator.
const CallExpr* pointer_returning_call(const clang::Expr* e) {
  auto* call = dyn_cast_or_null<CallExpr>(strip_temporaries(e));
  if (!call || isa<CUDAKernelCallExpr>(call) || isa<CXXOperatorCallExpr>(call)) return nullptr;
  if (!call->getType()->isPointerType()) return nullptr;
  if (cuda_api(callee_name(call->getDirectCallee()))) return nullptr;
  return call;
}

// ------------------------------------------------------------- buffer roots

// What a pointer expression names: a variable, a data member of `this`, or
// (anything else that is a pointer) its spelling.
struct Root {
  const ValueDecl* decl = nullptr;
  std::string spelling;
  bool offset = false;
  const clang::Expr* ref = nullptr;  // the DeclRefExpr/MemberExpr/expression reached
  bool valid() const { return decl || !spelling.empty(); }
};

using BufferKey = std::pair<const ValueDecl*, std::string>;
BufferKey key_of(const Root& r) { return r.decl ? BufferKey{r.decl, ""} : BufferKey{nullptr, r.spelling}; }

class Roots {
 public:
  Roots(ASTContext& ctx, const SourceMapper& map) : ctx_(ctx), map_(map) {}

  // The root of a pointer-valued expression: `tmp`, `tmp + k`, `&tmp[k]`,
  // `(void*)tmp`, `this->d_tmp`, `bufs[0]`.
  Root pointer(const clang::Expr* e) const {
    Root r;
    for (int depth = 0; e && depth < 32; ++depth) {
      e = e->IgnoreParens();
      if (auto* c = dyn_cast<CastExpr>(e)) {
        if (c->getCastKind() == CK_ArrayToPointerDecay) {
          // A local array used as a pointer: its storage is the variable itself.
          return lvalue(c->getSubExpr(), r.offset);
        }
        e = c->getSubExpr();
        continue;
      }
      if (auto* f = dyn_cast<FullExpr>(e)) {
        e = f->getSubExpr();
        continue;
      }
      if (auto* b = dyn_cast<BinaryOperator>(e); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub) &&
                                                 b->getType()->isPointerType()) {
        e = b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS();
        r.offset = true;
        continue;
      }
      if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf) {
        const clang::Expr* sub = u->getSubExpr()->IgnoreParens();
        if (auto* s = dyn_cast<ArraySubscriptExpr>(sub)) {
          r.offset = r.offset || !is_zero(s->getIdx());
          e = s->getBase();
          continue;
        }
        if (auto* d = dyn_cast<UnaryOperator>(sub); d && d->getOpcode() == UO_Deref) {
          e = d->getSubExpr();
          continue;
        }
        return {};  // &variable: a pointer to the variable, not to device memory
      }
      if (!e->getType()->isPointerType() || is_null_pointer(e, ctx_)) return {};
      Root named = lvalue(e, r.offset);
      if (named.valid()) return named;
      if (isa<CallExpr>(e) || isa<ArraySubscriptExpr>(e) || isa<MemberExpr>(e)) {
        r.spelling = map_.text(e->getSourceRange());
        r.ref = e;
        return r;
      }
      return {};
    }
    return {};
  }

  // The variable or member an lvalue names (`tmp`, `this->d_tmp`).
  Root lvalue(const clang::Expr* e, bool offset = false) const {
    Root r;
    r.offset = offset;
    e = e->IgnoreParenImpCasts();
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      if (auto* v = dyn_cast<VarDecl>(ref->getDecl())) {
        r.decl = v;
        r.ref = e;
      }
      return r;
    }
    if (auto* m = dyn_cast<MemberExpr>(e)) {
      if (isa<CXXThisExpr>(m->getBase()->IgnoreParenImpCasts()) && isa<FieldDecl>(m->getMemberDecl())) {
        r.decl = m->getMemberDecl();
        r.ref = e;
        return r;
      }
      if (e->getType()->isPointerType() || e->getType()->isArrayType()) {
        r.spelling = map_.text(e->getSourceRange());
        r.ref = e;
      }
      return r;
    }
    if (isa<ArraySubscriptExpr>(e) && (e->getType()->isPointerType() || e->getType()->isArrayType())) {
      r.spelling = map_.text(e->getSourceRange());
      r.ref = e;
    }
    return r;
  }

  // cudaMalloc's out-parameter: `&p`, `(void**)&p`, `reinterpret_cast<void**>(&p)`.
  Root out_parameter(const clang::Expr* e) const {
    while (e) {
      e = e->IgnoreParens();
      if (auto* c = dyn_cast<CastExpr>(e)) {
        e = c->getSubExpr();
        continue;
      }
      break;
    }
    auto* u = dyn_cast_or_null<UnaryOperator>(e);
    if (!u || u->getOpcode() != UO_AddrOf) return {};
    return lvalue(u->getSubExpr());
  }

 private:
  bool is_zero(const clang::Expr* e) const {
    auto v = evaluate(e, ctx_);
    return v && *v == 0;
  }
  ASTContext& ctx_;
  const SourceMapper& map_;
};

// ------------------------------------------------------------- pass 1

// The buffers of a host function: what reaches a CUDA memory call or a
// kernel launch as a pointer.
class BufferFinder : public RecursiveASTVisitor<BufferFinder> {
 public:
  BufferFinder(const Roots& roots) : roots_(roots) {}
  std::set<BufferKey> keys;

  // Lambdas: their bodies may be walked in place (HostWalker::runs_in_place).
  bool TraverseLambdaExpr(LambdaExpr* l) { return TraverseStmt(l->getBody()); }
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr* k) {
    for (const clang::Expr* a : k->arguments()) add(roots_.pointer(a));
    return true;
  }
  bool VisitCallExpr(CallExpr* c) {
    if (isa<CUDAKernelCallExpr>(c)) return true;
    const ApiCall* api = cuda_api(callee_name(c->getDirectCallee()));
    if (!api) return true;
    auto arg = [&](int i) -> const clang::Expr* { return i >= 0 && unsigned(i) < c->getNumArgs() ? c->getArg(unsigned(i)) : nullptr; };
    if (api->role == ApiRole::Allocate) {
      if (auto* a = arg(api->pointer)) add(roots_.out_parameter(a));
    } else {
      for (int i : {api->pointer, api->dst, api->src})
        if (auto* a = arg(i)) add(roots_.pointer(a));
    }
    return true;
  }

 private:
  void add(const Root& r) {
    if (r.valid()) keys.insert(key_of(r));
  }
  const Roots& roots_;
};

// ------------------------------------------------------------- pass 2

class HostWalker {
 public:
  HostWalker(ASTContext& ctx, const SourceMapper& map, const FunctionDecl* fn, const std::vector<LaunchSite>& launches,
             const FunctionKeyOf& key_of, std::set<BufferKey> keys, HostFunction& out)
      : ctx_(ctx), map_(map), fn_(fn), launches_(launches), key_of_(key_of), roots_(ctx, map), keys_(std::move(keys)),
        out_(out) {
    ModifiedVars mv;
    mv.TraverseStmt(fn->getBody());
    modified_ = std::move(mv.vars);
  }

  void run() {
    for (const ParmVarDecl* p : fn_->parameters()) buffer_of(Root{p, "", false, nullptr});
    scopes_.emplace_back();
    stmt(fn_->getBody());
    end_scope(fn_->getBody() ? fn_->getBody()->getEndLoc() : SourceLocation());
  }

 private:
  // --------------------------------------------------------- buffers

  // Index of the buffer a root names, creating it on first use; -1 when the
  // root is not a buffer of this function.
  int buffer_of(const Root& r) {
    if (!r.valid() || !keys_.count(key_of(r))) return -1;
    auto key = key_of(r);
    if (auto it = index_.find(key); it != index_.end()) return it->second;
    HostBuffer b;
    QualType type;
    if (r.decl) {
      b.name = r.decl->getNameAsString();
      type = r.decl->getType();
      if (isa<ParmVarDecl>(r.decl)) b.storage = BufferStorage::Parameter;
      else if (isa<FieldDecl>(r.decl)) b.storage = BufferStorage::Member;
      else if (auto* v = dyn_cast<VarDecl>(r.decl); v && v->isLocalVarDecl() && !v->isStaticLocal())
        b.storage = BufferStorage::Local;
      else b.storage = BufferStorage::Global;
      if (map_.in_target(r.decl->getLocation())) b.declaration = map_.range(r.decl->getSourceRange());
    } else {
      b.name = r.spelling;
      b.storage = BufferStorage::Expression;
      if (r.ref) type = r.ref->getType();
    }
    if (!type.isNull()) {
      type = type.getNonReferenceType();
      QualType pointee;
      if (type->isPointerType()) pointee = type->getPointeeType();
      else if (const ArrayType* at = ctx_.getAsArrayType(type)) pointee = at->getElementType();
      if (!pointee.isNull()) {
        b.pointee_type = pointee.getUnqualifiedType().getAsString(ctx_.getPrintingPolicy());
        if (!pointee->isDependentType() && !pointee->isIncompleteType() && !pointee->isVoidType() &&
            !pointee->isFunctionType())
          b.pointee_bytes = static_cast<int>(ctx_.getTypeSizeInChars(pointee).getQuantity());
      }
    }
    int index = static_cast<int>(out_.buffers.size());
    out_.buffers.push_back(std::move(b));
    index_[key] = index;
    return index;
  }

  BufferRef ref_of(const Root& r) { return {buffer_of(r), r.offset}; }

  // --------------------------------------------------------- events

  HostEvent& add(HostEventKind kind, SourceRange where, std::string spelling = {}) {
    HostEvent e;
    e.kind = kind;
    e.range = map_.range(where);
    e.spelling = spelling.empty() ? map_.text(where) : std::move(spelling);
    e.region = regions_.empty() ? -1 : regions_.back();
    out_.events.push_back(std::move(e));
    return out_.events.back();
  }

  void use(int buffer, BufferUse u, const clang::Expr* at, int other = -1) {
    if (buffer < 0) return;
    HostEvent& e = add(HostEventKind::Use, at->getSourceRange());
    e.buffer = {buffer, false};
    e.use = u;
    e.other = other;
  }

  ByteCount bytes_of(const clang::Expr* a, const clang::Expr* b = nullptr) {
    ByteCount c;
    if (!a) return c;
    LaunchEvaluator eval(ctx_, modified_);
    c.spelling = map_.text(a->getSourceRange());
    auto va = eval.integer(a);
    if (b) {
      c.spelling = "(" + c.spelling + ") * (" + map_.text(b->getSourceRange()) + ")";
      auto vb = eval.integer(b);
      if (va && vb) c.value = *va * *vb;
      return c;
    }
    c.value = va;
    return c;
  }

  void push_region(HostRegionKind kind, SourceRange range) {
    HostRegion r;
    r.kind = kind;
    r.range = map_.range(range);
    r.parent = regions_.empty() ? -1 : regions_.back();
    out_.regions.push_back(r);
    regions_.push_back(static_cast<int>(out_.regions.size()) - 1);
  }
  void pop_region() { regions_.pop_back(); }

  void end_scope(SourceLocation at) {
    std::vector<int> ending = std::move(scopes_.back());
    scopes_.pop_back();
    for (auto it = ending.rbegin(); it != ending.rend(); ++it) {
      HostEvent e;
      e.kind = HostEventKind::ScopeEnd;
      e.range = map_.point(at);
      e.spelling = out_.buffers[std::size_t(*it)].name;
      e.buffer = {*it, false};
      e.region = regions_.empty() ? -1 : regions_.back();
      out_.events.push_back(std::move(e));
    }
  }

  // --------------------------------------------------------- statements

  void stmt(const Stmt* s) {
    if (!s) return;
    if (auto* e = dyn_cast<clang::Expr>(s)) return expr(e);
    if (auto* c = dyn_cast<CompoundStmt>(s)) {
      scopes_.emplace_back();
      for (const Stmt* child : c->body()) stmt(child);
      end_scope(c->getRBracLoc());
      return;
    }
    if (auto* d = dyn_cast<DeclStmt>(s)) {
      for (const Decl* decl : d->decls())
        if (auto* v = dyn_cast<VarDecl>(decl)) var(v);
      return;
    }
    if (auto* i = dyn_cast<IfStmt>(s)) {
      scopes_.emplace_back();
      stmt(i->getInit());
      if (i->getConditionVariableDeclStmt()) stmt(i->getConditionVariableDeclStmt());
      else expr(i->getCond());
      branch(i->getThen());
      branch(i->getElse());
      end_scope(i->getEndLoc());
      return;
    }
    if (auto* sw = dyn_cast<SwitchStmt>(s)) {
      scopes_.emplace_back();
      stmt(sw->getInit());
      expr(sw->getCond());
      branch(sw->getBody());
      end_scope(sw->getEndLoc());
      return;
    }
    if (auto* f = dyn_cast<ForStmt>(s)) {
      scopes_.emplace_back();
      stmt(f->getInit());
      push_region(HostRegionKind::Loop, f->getSourceRange());
      expr(f->getCond());
      stmt(f->getBody());
      expr(f->getInc());
      pop_region();
      end_scope(f->getEndLoc());
      return;
    }
    if (auto* w = dyn_cast<WhileStmt>(s)) {
      push_region(HostRegionKind::Loop, w->getSourceRange());
      expr(w->getCond());
      stmt(w->getBody());
      pop_region();
      return;
    }
    if (auto* d = dyn_cast<DoStmt>(s)) {
      // `do { ... } while (0)`, the error-checking macro idiom, runs once.
      bool once = false;
      if (bool value = true; d->getCond()->EvaluateAsBooleanCondition(value, ctx_) && !value) once = true;
      if (!once) push_region(HostRegionKind::Loop, d->getSourceRange());
      stmt(d->getBody());
      expr(d->getCond());
      if (!once) pop_region();
      return;
    }
    if (auto* r = dyn_cast<CXXForRangeStmt>(s)) {
      scopes_.emplace_back();
      stmt(r->getInit());
      expr(r->getRangeInit());
      push_region(HostRegionKind::Loop, r->getSourceRange());
      stmt(r->getBody());
      pop_region();
      end_scope(r->getEndLoc());
      return;
    }
    if (auto* ret = dyn_cast<ReturnStmt>(s)) {
      const clang::Expr* v = ret->getRetValue();
      if (!v) return;
      if (v->getType()->isPointerType()) {
        Root r = roots_.pointer(v);
        if (int b = buffer_of(r); b >= 0) return use(b, BufferUse::Returned, v);
      }
      return expr(v);
    }
    if (auto* t = dyn_cast<CXXTryStmt>(s)) {
      stmt(t->getTryBlock());
      for (unsigned h = 0; h < t->getNumHandlers(); ++h) branch(t->getHandler(h)->getHandlerBlock());
      return;
    }
    for (const Stmt* child : s->children()) stmt(child);
  }

  void branch(const Stmt* s) {
    if (!s) return;
    push_region(HostRegionKind::Branch, s->getSourceRange());
    scopes_.emplace_back();
    stmt(s);
    end_scope(s->getEndLoc());
    pop_region();
  }

  void var(const VarDecl* v) {
    int self = buffer_of(Root{v, "", false, nullptr});
    if (self >= 0 && out_.buffers[std::size_t(self)].storage == BufferStorage::Local) scopes_.back().push_back(self);
    const clang::Expr* init = v->getInit();
    if (!init) return;
    if (v->getType()->isPointerType()) {
      if (const CallExpr* call = pointer_returning_call(init); call && self >= 0) {
        expr(call);
        HostEvent& e = add(HostEventKind::Allocate, init->getSourceRange(), map_.text(call->getCallee()->getSourceRange()));
        e.buffer = {self, false};
        e.allocation = AllocationKind::Returned;
        return;
      }
      Root r = roots_.pointer(init);
      if (int source = buffer_of(r); source >= 0) {
        use(source, BufferUse::CopiedTo, init, self);
        if (self >= 0) use(self, BufferUse::Reassigned, init, source);
        return;
      }
    }
    expr(init);
  }

  // --------------------------------------------------------- expressions

  void expr(const clang::Expr* e) {
    if (!e) return;
    e = e->IgnoreParens();
    if (auto* k = dyn_cast<CUDAKernelCallExpr>(e)) return launch(k);
    if (auto* b = dyn_cast<BinaryOperator>(e)) return binary(b);
    if (auto* u = dyn_cast<UnaryOperator>(e)) return unary(u);
    if (auto* c = dyn_cast<CallExpr>(e)) return call(c);
    if (auto* c = dyn_cast<CastExpr>(e)) {
      // `if (tmp)`, `assert(tmp)`: testing the pointer does not touch the memory.
      if (c->getCastKind() == CK_PointerToBoolean && buffer_of(roots_.pointer(c->getSubExpr())) >= 0) return;
      if (isa<ImplicitCastExpr>(c)) return expr(c->getSubExpr());
    }
    if (auto* s = dyn_cast<ArraySubscriptExpr>(e)) {
      if (int b = buffer_of(roots_.pointer(s->getBase())); b >= 0 && s->getBase()->getType()->isPointerType()) {
        use(b, BufferUse::HostRead, s);
        return expr(s->getIdx());
      }
    }
    if (isa<DeclRefExpr>(e) || isa<MemberExpr>(e)) {
      Root r = roots_.lvalue(e);
      if (r.decl) {
        if (int b = buffer_of(r); b >= 0) return use(b, BufferUse::Other, e);
      }
      if (auto* m = dyn_cast<MemberExpr>(e)) return expr(m->getBase());
      return;
    }
    if (auto* l = dyn_cast<LambdaExpr>(e)) {
      if (runs_in_place(l)) {
        // Called during the call it is handed to, any number of times
        // (`run.time([&] { a<<<...>>>(tmp); b<<<...>>>(tmp); })`): its body
        // is walked here as a loop body.
        push_region(HostRegionKind::Loop, l->getSourceRange());
        stmt(l->getBody());
        pop_region();
        return;
      }
      for (const LambdaCapture& c : l->captures())
        if (c.capturesVariable())
          if (auto* v = dyn_cast<VarDecl>(c.getCapturedVar()))
            if (int b = buffer_of(Root{v, "", false, nullptr}); b >= 0) use(b, BufferUse::Stored, l);
      return;  // the body is a separate function
    }
    if (isa<InitListExpr>(e) || isa<CXXConstructExpr>(e) || isa<ParenListExpr>(e)) {
      // `Params p{tmp, n}`, `std::vector<float*> v{a, b}`: the pointer is stored.
      for (const Stmt* child : e->children())
        if (auto* a = dyn_cast_or_null<clang::Expr>(child)) stored_or_walk(a, e);
      return;
    }
    if (isa<UnaryExprOrTypeTraitExpr>(e) || isa<CXXNoexceptExpr>(e) || isa<CXXTypeidExpr>(e)) return;
    for (const Stmt* child : e->children())
      if (auto* c = dyn_cast_or_null<clang::Expr>(child)) expr(c);
  }

  // A lambda passed straight to a call (through conversions such as the
  // construction of a std::function parameter) or invoked on the spot runs
  // during that call; one stored in a variable may run at any later point.
  bool runs_in_place(const LambdaExpr* l) {
    DynTypedNodeList parents = ctx_.getParents(*l);
    for (int depth = 0; parents.size() == 1 && depth < 8; ++depth) {
      if (parents[0].get<CallExpr>()) return true;
      const auto* p = parents[0].get<clang::Expr>();
      if (!p || !(isa<ImplicitCastExpr>(p) || isa<MaterializeTemporaryExpr>(p) || isa<CXXBindTemporaryExpr>(p) ||
                  isa<CXXConstructExpr>(p) || isa<CXXFunctionalCastExpr>(p) || isa<ExprWithCleanups>(p) ||
                  isa<ParenExpr>(p)))
        return false;
      parents = ctx_.getParents(*p);
    }
    return false;
  }

  void stored_or_walk(const clang::Expr* a, const clang::Expr* where) {
    if (a->getType()->isPointerType())
      if (int b = buffer_of(roots_.pointer(a)); b >= 0) return use(b, BufferUse::Stored, where);
    expr(a);
  }

  // Parts of a pointer expression that are evaluated besides the root
  // (`tmp + offset`: offset).
  void offset_parts(const clang::Expr* e) {
    e = e->IgnoreParenCasts();
    if (auto* b = dyn_cast<BinaryOperator>(e); b && b->getType()->isPointerType()) {
      bool left = b->getLHS()->getType()->isPointerType();
      offset_parts(left ? b->getLHS() : b->getRHS());
      expr(left ? b->getRHS() : b->getLHS());
    } else if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf) {
      if (auto* s = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens())) {
        offset_parts(s->getBase());
        expr(s->getIdx());
      }
    }
  }

  void binary(const BinaryOperator* b) {
    const clang::Expr* lhs = b->getLHS()->IgnoreParens();
    const clang::Expr* rhs = b->getRHS();
    if (b->isComparisonOp() && (lhs->getType()->isPointerType() || rhs->getType()->isPointerType())) {
      // Comparing pointers does not touch the memory.
      for (const clang::Expr* side : {lhs, rhs})
        if (buffer_of(roots_.pointer(side)) >= 0) offset_parts(side);
        else expr(side);
      return;
    }
    if (!b->isAssignmentOp()) {
      expr(lhs);
      expr(rhs);
      return;
    }
    Root target = roots_.lvalue(lhs);
    int self = target.decl ? buffer_of(target) : -1;
    if (b->getOpcode() != BO_Assign) {
      // `tmp += k`: the pointer moves; `tmp[i] += v`: read and written.
      expr(rhs);
      if (self >= 0) return use(self, BufferUse::Advanced, b);
      return host_store(lhs, b, true);
    }
    if (self >= 0) {
      if (const CallExpr* call = pointer_returning_call(rhs)) {
        expr(call);
        HostEvent& e = add(HostEventKind::Allocate, b->getSourceRange(), map_.text(call->getCallee()->getSourceRange()));
        e.buffer = {self, false};
        e.allocation = AllocationKind::Returned;
        return;
      }
      Root source = roots_.pointer(rhs);
      int s = buffer_of(source);
      if (s >= 0) use(s, BufferUse::CopiedTo, rhs, self);
      else expr(rhs);
      return use(self, BufferUse::Reassigned, b, s);
    }
    if (rhs->getType()->isPointerType())
      if (int s = buffer_of(roots_.pointer(rhs)); s >= 0) {
        // `q = tmp` (q not a buffer): an alias; `s.p = tmp`, `*pp = tmp`: stored.
        bool plain_local = target.decl && isa<VarDecl>(target.decl);
        use(s, plain_local ? BufferUse::CopiedTo : BufferUse::Stored, rhs);
        if (!plain_local) host_store(lhs, b, false);
        return;
      }
    expr(rhs);
    host_store(lhs, b, false);
  }

  // The target of an assignment: a host write through a buffer, or anything else.
  void host_store(const clang::Expr* lhs, const clang::Expr* at, bool also_read) {
    lhs = lhs->IgnoreParens();
    const clang::Expr* pointer = nullptr;
    const clang::Expr* index = nullptr;
    if (auto* s = dyn_cast<ArraySubscriptExpr>(lhs)) pointer = s->getBase(), index = s->getIdx();
    else if (auto* u = dyn_cast<UnaryOperator>(lhs); u && u->getOpcode() == UO_Deref) pointer = u->getSubExpr();
    if (pointer && pointer->getType()->isPointerType())
      if (int b = buffer_of(roots_.pointer(pointer)); b >= 0) {
        if (also_read) use(b, BufferUse::HostRead, lhs);
        use(b, BufferUse::HostWrite, at);
        offset_parts(pointer);
        expr(index);
        return;
      }
    Root r = roots_.lvalue(lhs);
    if (r.decl && buffer_of(r) >= 0) return;  // handled by the caller
    expr(lhs);
  }

  void unary(const UnaryOperator* u) {
    const clang::Expr* sub = u->getSubExpr();
    switch (u->getOpcode()) {
      case UO_AddrOf: {
        Root r = roots_.lvalue(sub);
        if (r.decl)
          if (int b = buffer_of(r); b >= 0) return use(b, BufferUse::AddressTaken, u);
        // `&tmp[i]` as a value: a pointer into the buffer, used as the context says.
        if (int b = buffer_of(roots_.pointer(u)); b >= 0) {
          offset_parts(u);
          return use(b, BufferUse::Other, u);
        }
        return expr(sub);
      }
      case UO_Deref:
        if (int b = buffer_of(roots_.pointer(sub)); b >= 0) {
          use(b, BufferUse::HostRead, u);
          return offset_parts(sub);
        }
        return expr(sub);
      case UO_PreInc:
      case UO_PreDec:
      case UO_PostInc:
      case UO_PostDec: {
        Root r = roots_.lvalue(sub);
        if (r.decl)
          if (int b = buffer_of(r); b >= 0) return use(b, BufferUse::Advanced, u);
        return host_store(sub, u, true);
      }
      case UO_LNot:
        if (buffer_of(roots_.pointer(sub)) >= 0) return;
        return expr(sub);
      default: return expr(sub);
    }
  }

  void call(const CallExpr* c) {
    const FunctionDecl* fd = c->getDirectCallee();
    std::string name = callee_name(fd);
    if (const ApiCall* api = cuda_api(name)) return cuda_call(c, name, *api);
    if ((name == "swap" || name == "exchange") && c->getNumArgs() == 2) {
      Root a = roots_.lvalue(c->getArg(0)), b = roots_.lvalue(c->getArg(1));
      int ia = a.decl ? buffer_of(a) : -1, ib = b.decl ? buffer_of(b) : -1;
      if (ia >= 0 || ib >= 0) {
        use(ia, BufferUse::Reassigned, c, ib);
        use(ib, BufferUse::Reassigned, c, ia);
        if (ia >= 0 && ib >= 0) {
          use(ia, BufferUse::CopiedTo, c, ib);
          use(ib, BufferUse::CopiedTo, c, ia);
        }
        return;
      }
    }
    if (auto* m = dyn_cast<CXXMemberCallExpr>(c)) expr(m->getImplicitObjectArgument());
    else if (!isa<CXXOperatorCallExpr>(c)) expr(c->getCallee());
    for (unsigned i = 0; i < c->getNumArgs(); ++i) {
      const clang::Expr* a = c->getArg(i);
      if (isa<CXXDefaultArgExpr>(a)) continue;
      Root r = a->getType()->isPointerType() ? roots_.pointer(a) : roots_.lvalue(a);
      if (int b = buffer_of(r); b >= 0) {
        // Passed to a function the model does not follow: it may keep, read or
        // write the memory.
        offset_parts(a);
        use(b, BufferUse::Passed, a);
        continue;
      }
      expr(a);
    }
  }

  void cuda_call(const CallExpr* c, const std::string& name, const ApiCall& api) {
    auto arg = [&](int i) -> const clang::Expr* {
      if (i < 0 || unsigned(i) >= c->getNumArgs() || isa<CXXDefaultArgExpr>(c->getArg(unsigned(i)))) return nullptr;
      return c->getArg(unsigned(i));
    };
    std::set<int> roles = {api.pointer, api.dst, api.src, api.stream};
    for (unsigned i = 0; i < c->getNumArgs(); ++i)
      if (!roles.count(int(i))) expr(c->getArg(i));
    std::string stream = arg(api.stream) ? map_.text(arg(api.stream)->getSourceRange()) : "";
    bool async = name.size() > 5 && name.compare(name.size() - 5, 5, "Async") == 0;
    switch (api.role) {
      case ApiRole::Allocate: {
        Root r = arg(api.pointer) ? roots_.out_parameter(arg(api.pointer)) : Root{};
        int b = buffer_of(r);
        if (b < 0) {
          if (arg(api.pointer)) expr(arg(api.pointer));
          return;
        }
        HostEvent& e = add(HostEventKind::Allocate, c->getSourceRange(), name);
        e.buffer = {b, false};
        e.allocation = api.allocation;
        e.bytes = bytes_of(arg(api.bytes), arg(api.bytes2));
        if (api.allocation == AllocationKind::MallocPitch) e.bytes.value.reset();  // the pitch pads rows
        e.stream = stream;
        e.async = async;
        return;
      }
      case ApiRole::Free: {
        const clang::Expr* p = arg(api.pointer);
        HostEvent& e = add(HostEventKind::Free, c->getSourceRange(), name);
        e.buffer = p ? ref_of(roots_.pointer(p)) : BufferRef{};
        e.stream = stream;
        e.async = async;
        return;
      }
      case ApiRole::Copy: {
        HostEvent& e = add(HostEventKind::Copy, c->getSourceRange(), name);
        if (auto* d = arg(api.dst)) e.destination = ref_of(roots_.pointer(d));
        if (auto* s = arg(api.src)) e.source = ref_of(roots_.pointer(s));
        e.bytes = bytes_of(arg(api.bytes), arg(api.bytes2));
        e.direction = api.kind >= 0 ? direction_of(arg(api.kind), ctx_) : api.fixed;
        if (api.kind >= 0 && !arg(api.kind)) e.direction = api.fixed;
        e.stream = stream;
        e.async = async;
        for (int i : {api.dst, api.src})
          if (auto* a = arg(i)) offset_parts(a);
        return;
      }
      case ApiRole::Set: {
        HostEvent& e = add(HostEventKind::Set, c->getSourceRange(), name);
        if (auto* p = arg(api.pointer)) {
          e.buffer = ref_of(roots_.pointer(p));
          offset_parts(p);
        }
        e.bytes = bytes_of(arg(api.bytes), arg(api.bytes2));
        e.stream = stream;
        e.async = async;
        return;
      }
      case ApiRole::Synchronize: {
        HostEvent& e = add(HostEventKind::Synchronize, c->getSourceRange(), name);
        e.sync = api.sync;
        e.stream = stream;
        return;
      }
      case ApiRole::Harmless:
        return;
    }
  }

  void launch(const CUDAKernelCallExpr* k) {
    if (const CallExpr* cfg = k->getConfig())
      for (const clang::Expr* a : cfg->arguments()) expr(a);
    std::vector<BufferRef> args;
    for (const clang::Expr* a : k->arguments()) {
      if (isa<CXXDefaultArgExpr>(a)) continue;
      Root r = a->getType()->isPointerType() ? roots_.pointer(a) : Root{};
      BufferRef ref = ref_of(r);
      if (ref.buffer >= 0) offset_parts(a);
      else expr(a);
      args.push_back(ref);
    }
    const FunctionDecl* callee = k->getDirectCallee();
    std::string name = callee ? callee->getNameAsString() : map_.text(k->getCallee()->getSourceRange());
    HostEvent& e = add(HostEventKind::Launch, k->getSourceRange(), name);
    e.arguments = std::move(args);
    std::string key = callee && !callee->isDependentContext() ? key_of_(callee) : "";
    for (std::size_t i = 0; i < launches_.size(); ++i)
      if (launches_[i].range == e.range && (launches_[i].kernel_key == key || e.launch < 0)) {
        e.launch = static_cast<int>(i);
        if (launches_[i].kernel_key == key) break;
      }
    if (e.launch >= 0) e.stream = launches_[std::size_t(e.launch)].stream_spelling;
  }

  ASTContext& ctx_;
  const SourceMapper& map_;
  const FunctionDecl* fn_;
  const std::vector<LaunchSite>& launches_;
  const FunctionKeyOf& key_of_;
  Roots roots_;
  std::set<BufferKey> keys_;
  HostFunction& out_;
  std::map<BufferKey, int> index_;
  std::set<const VarDecl*> modified_;
  std::vector<int> regions_;
  std::vector<std::vector<int>> scopes_;  // local buffers declared in each open scope
};

// ------------------------------------------------------------- functions

bool is_host_function(const FunctionDecl* fd) {
  if (fd->hasAttr<CUDAGlobalAttr>() || fd->hasAttr<CUDADeviceAttr>()) return false;
  if (auto* md = dyn_cast<CXXMethodDecl>(fd); md && md->getParent()->isLambda()) return false;
  return fd->doesThisDeclarationHaveABody() && !fd->isInvalidDecl();
}

class HostFunctionFinder : public RecursiveASTVisitor<HostFunctionFinder> {
 public:
  HostFunctionFinder(const SourceMapper& map, std::stop_token stop) : map_(map), stop_(stop) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  std::vector<const FunctionDecl*> found;

  bool TraverseDecl(Decl* d) {
    if (!d || stop_.stop_requested()) return !stop_.stop_requested();
    if (!isa<TranslationUnitDecl>(d) && !map_.in_target(d->getLocation()) && !isa<NamespaceDecl>(d) &&
        !isa<LinkageSpecDecl>(d))
      return true;
    if ((isa<NamespaceDecl>(d) || isa<LinkageSpecDecl>(d)) && map_.sm().isInSystemHeader(d->getLocation()))
      return true;
    return RecursiveASTVisitor::TraverseDecl(d);
  }
  bool VisitFunctionDecl(FunctionDecl* fd) {
    if (!is_host_function(fd) || !map_.in_target(fd->getLocation())) return true;
    // One body per source location: a template's first instantiation, else its pattern.
    unsigned loc = fd->getLocation().getRawEncoding();
    auto it = by_location_.find(loc);
    if (it == by_location_.end()) {
      by_location_[loc] = found.size();
      found.push_back(fd);
    } else if (found[it->second]->isDependentContext() && !fd->isDependentContext()) {
      found[it->second] = fd;
    }
    return true;
  }

 private:
  const SourceMapper& map_;
  std::stop_token stop_;
  std::map<unsigned, std::size_t> by_location_;
};

}  // namespace

std::vector<HostFunction> build_host_flow(ASTContext& ctx, const SourceMapper& map,
                                          const std::vector<LaunchSite>& launches, const FunctionKeyOf& key_of,
                                          std::stop_token stop) {
  HostFunctionFinder finder(map, stop);
  finder.TraverseDecl(ctx.getTranslationUnitDecl());
  std::vector<HostFunction> out;
  Roots roots(ctx, map);
  for (const FunctionDecl* fd : finder.found) {
    if (stop.stop_requested()) break;
    if (!fd->getBody()) continue;
    BufferFinder buffers(roots);
    buffers.TraverseStmt(fd->getBody());
    HostFunction f;
    f.name = fd->getQualifiedNameAsString();
    f.range = map.range(fd->getSourceRange());
    HostWalker walker(ctx, map, fd, launches, key_of, std::move(buffers.keys), f);
    walker.run();
    bool relevant = std::any_of(f.events.begin(), f.events.end(), [](const HostEvent& e) {
      return e.kind == HostEventKind::Launch || e.kind == HostEventKind::Allocate || e.kind == HostEventKind::Copy ||
             e.kind == HostEventKind::Set || e.kind == HostEventKind::Free;
    });
    if (relevant) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace warplens::clang_frontend
