#include "agent/rewrites/matmul_shape.h"

namespace warplens::agent::rw {

using namespace clang;
using clang::Expr;

namespace {

bool only_names(const Stmt* s, const std::set<const ValueDecl*>& allowed) {
  bool ok = true;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || !ok) return;
    if (const auto* r = dyn_cast<DeclRefExpr>(x)) {
      const auto* v = dyn_cast<VarDecl>(r->getDecl());
      if (v && v->hasLocalStorage() && !isa<ParmVarDecl>(v) && !allowed.count(v)) ok = false;
    }
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  return ok;
}

}  // namespace

std::optional<std::string> accumulation_text(const KernelContext& ctx, const MatmulShape& m, const std::string& acc,
                                             const std::map<const Stmt*, std::string>& loads) {
  if (!m.temp) {
    auto value = text_with_replacements(ctx, m.value, {}, loads);
    if (!value) return std::nullopt;
    return acc + " += " + *value + ";";
  }
  auto init = text_with_replacements(ctx, m.temp->getInit(), {}, loads);
  auto value = ctx.text(m.value);
  if (!init || !value) return std::nullopt;
  return "{ const " + m.temp->getType().getUnqualifiedType().getAsString() + " " + m.temp->getNameAsString() + " = " +
         *init + "; " + acc + " += " + *value + "; }";
}

std::string statement_with_semicolon(const KernelContext& ctx, const Stmt* s) {
  auto t = statement_text(ctx, s);
  if (!t) throw std::runtime_error("source text inside a macro");
  return *t;
}

std::optional<std::string> guarded_declaration(const KernelContext& ctx, const Stmt* decl, const std::string& guard) {
  const auto* ds = dyn_cast<DeclStmt>(decl);
  if (!ds || !ds->isSingleDecl()) return std::nullopt;
  const auto* v = dyn_cast<VarDecl>(ds->getSingleDecl());
  if (!v || !v->getInit() || !v->getType()->isArithmeticType() || v->getType()->isReferenceType()) return std::nullopt;
  auto init = ctx.text(v->getInit());
  if (!init) return std::nullopt;
  const std::string type = v->getType().getUnqualifiedType().getAsString();
  return std::string(v->getType().isConstQualified() ? "const " : "") + type + " " + v->getNameAsString() + " = (" +
         guard + ") ? (" + *init + ") : static_cast<" + type + ">(0);";
}

std::optional<MatmulShape> match_matmul(const KernelContext& ctx, std::string& why) {
  MatmulShape m;
  auto grid = match_grid_2d(ctx, why, /*allow_batch=*/true);
  if (!grid) return std::nullopt;
  m.vars = grid->vars;
  m.col = grid->x;
  m.row = grid->y;
  m.region = grid->region;
  if (!m.region.only_bounds) {
    why = "the guard is not `row < M && col < N`";
    return std::nullopt;
  }
  m.row_bound = m.region.bounds.at(m.row.var);
  m.col_bound = m.region.bounds.at(m.col.var);
  for (const Stmt* s : m.region.prologue)
    if (s != m.row.decl && s != m.col.decl && (refers_to(s, m.row.var) || refers_to(s, m.col.var))) {
      why = "a declaration before the guard uses row or col";
      return std::nullopt;
    }
  std::size_t at = m.region.body.size();
  for (std::size_t i = 0; i < m.region.body.size(); ++i)
    if (isa<ForStmt>(m.region.body[i])) {
      if (at != m.region.body.size()) {
        why = "more than one loop";
        return std::nullopt;
      }
      at = i;
    }
  if (at == m.region.body.size()) {
    why = "no reduction loop";
    return std::nullopt;
  }
  m.loop = cast<ForStmt>(m.region.body[at]);
  m.pre.assign(m.region.body.begin(), m.region.body.begin() + static_cast<long>(at));
  m.post.assign(m.region.body.begin() + static_cast<long>(at) + 1, m.region.body.end());
  if (!only_pure_declarations(ctx, m.pre)) {
    why = "statements with effects before the loop";
    return std::nullopt;
  }
  for (const Stmt* s : m.pre)
    if (!collect_accesses(s).empty()) {
      // Every thread of a tile runs the declarations: those that read memory
      // are guarded by the original bounds in the rewritten kernel.
      if (!guarded_declaration(ctx, s, "true")) {
        why = "a declaration before the loop reads memory and is not a single scalar declaration";
        return std::nullopt;
      }
      m.pre_reads.push_back(s);
    }
  // for (k = 0; k < K; ++k) acc += E;   (k declared in the header or before the loop)
  auto counter = ctx.for_counter(m.loop);
  if (!counter || ctx.eval_int(counter->init) != std::optional<std::int64_t>(0)) {
    why = "the loop does not run k from 0";
    return std::nullopt;
  }
  m.k = *counter;
  const VarDecl* k = m.k.var;
  const auto* cond = dyn_cast_or_null<BinaryOperator>(m.loop->getCond() ? m.loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || cond->getOpcode() != BO_LT || !refers_to(cond->getLHS(), k) ||
      !isa<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts()) || is_lane_varying(ctx.lower(cond->getRHS()))) {
    why = "the loop is not `k < K` with a uniform K";
    return std::nullopt;
  }
  m.k_bound = cond->getRHS();
  const auto* inc = dyn_cast_or_null<UnaryOperator>(m.loop->getInc());
  if (!inc || !inc->isIncrementOp() || !refers_to(inc->getSubExpr(), k)) {
    why = "the loop does not step by one";
    return std::nullopt;
  }
  auto body = statements_of(m.loop->getBody());
  // `T d = <operands>; acc += E(d);`: one scalar temporary, never changed.
  if (body.size() == 2)
    if (const auto* ds = dyn_cast<DeclStmt>(body[0]); ds && ds->isSingleDecl())
      if (const auto* v = dyn_cast<VarDecl>(ds->getSingleDecl());
          v && v->getInit() && v->getType()->isScalarType() && !v->getType()->isReferenceType() &&
          !v->isStaticLocal() && !ctx.modified.count(v) && !v->getInit()->HasSideEffects(ctx.ctx(), true)) {
        m.temp = v;
        body.erase(body.begin());
      }
  if (body.size() != 1) {
    why = "the loop body is not a single accumulation (or one temporary and an accumulation)";
    return std::nullopt;
  }
  m.update = body[0];
  const Expr* lhs = nullptr;
  if (const auto* ca = dyn_cast<CompoundAssignOperator>(m.update); ca && ca->getOpcode() == BO_AddAssign) {
    lhs = ca->getLHS();
    m.value = ca->getRHS();
  } else if (const auto* bo = dyn_cast<BinaryOperator>(m.update); bo && bo->getOpcode() == BO_Assign) {
    const auto* add = dyn_cast<BinaryOperator>(bo->getRHS()->IgnoreParenImpCasts());
    const auto* l = dyn_cast<DeclRefExpr>(bo->getLHS()->IgnoreParenImpCasts());
    if (add && add->getOpcode() == BO_Add && l) {
      const auto* r = dyn_cast<DeclRefExpr>(add->getLHS()->IgnoreParenImpCasts());
      if (r && r->getDecl() == l->getDecl()) {
        lhs = bo->getLHS();
        m.value = add->getRHS();
      }
    }
  }
  const auto* acc_ref = lhs ? dyn_cast<DeclRefExpr>(lhs->IgnoreParenImpCasts()) : nullptr;
  m.acc = acc_ref ? dyn_cast<VarDecl>(acc_ref->getDecl()) : nullptr;
  if (!m.acc || !m.value || refers_to(m.value, m.acc)) {
    why = "the loop is not `acc += expression` with a local accumulator";
    return std::nullopt;
  }
  // Exactly two per-thread loads in E (or in the temporary's initialiser,
  // E then reading memory nowhere else): A[f(row, k)] and B[g(k, col)].
  if (m.temp && !accesses_in(ctx, m.value).empty()) {
    why = "the accumulation reads memory besides its temporary";
    return std::nullopt;
  }
  auto loads = accesses_in(ctx, m.temp ? m.temp->getInit() : m.value);
  if (loads.size() != 2) {
    why = "the accumulated expression does not read exactly two operands";
    return std::nullopt;
  }
  const Symbol tx = builtin_symbol(SymbolKind::ThreadIdx, 0), ty = builtin_symbol(SymbolKind::ThreadIdx, 1);
  const Symbol ks{SymbolKind::LoopCounter, 0, k->getNameAsString(), true};
  const std::string row = m.row.var->getNameAsString(), col = m.col.var->getNameAsString(), kn = k->getNameAsString();
  for (const Access& l : loads) {
    const auto* param = dyn_cast_or_null<ParmVarDecl>(l.root);
    if (!l.root_is_param || !param || l.write || l.member || !l.flat_index) {
      why = "an operand is not a parameter array read";
      return std::nullopt;
    }
    auto p = to_polynomial(l.flat_index);
    if (!p) {
      why = "an operand's subscript is not affine";
      return std::nullopt;
    }
    auto cx = coefficient(*p, tx), cy = coefficient(*p, ty), ck = coefficient(*p, ks);
    if (!cx || !cy || !ck) {
      why = "an operand's subscript is not linear in the thread index and k";
      return std::nullopt;
    }
    MatmulOperand op;
    op.load = l.expr;
    op.param = param;
    op.type = l.expr->getType().getUnqualifiedType().getAsString();
    op.k_contiguous = is_constant(*ck, 1);
    // As written when it names only row, col and k directly on the
    // parameter; else spelled from the flattened index.
    const bool direct = l.base && l.base->getCanonicalDecl() == param->getCanonicalDecl() && l.indices.size() == 1 &&
                        only_names(l.indices[0], {m.row.var, m.col.var, k});
    if (direct) {
      op.spelling = ctx.text(l.expr).value_or("");
    } else if (auto idx = render_index(*p, row, col, {{ks, kn}})) {
      op.spelling = param->getNameAsString() + "[" + *idx + "]";
    }
    if (op.spelling.empty()) {
      why = "an operand's index is not a combination of row, col, k and parameters";
      return std::nullopt;
    }
    if (is_constant(*cx, 0) && !is_constant(*cy, 0)) {  // depends on the row: A
      if (m.a.load) break;
      if (!op.k_contiguous && !is_constant(*cy, 1)) {
        why = "A is contiguous neither along k nor along rows";
        return std::nullopt;
      }
      m.a = op;
    } else if (is_constant(*cy, 0) && !is_constant(*cx, 0)) {  // depends on the column: B
      if (m.b.load) break;
      if (!op.k_contiguous && !is_constant(*cx, 1)) {
        why = "B is contiguous neither along k nor along columns";
        return std::nullopt;
      }
      m.b = op;
    }
  }
  if (!m.a.load || !m.b.load) {
    why = "no operand pair indexed by (row, k) and (k, col)";
    return std::nullopt;
  }
  // E may use parameters and constants besides the two operands; k only in
  // the operands; locals only inside them.
  std::set<const ValueDecl*> allowed = {m.row.var, m.col.var, k};
  for (const Stmt* s : m.pre)
    for (const Decl* d : cast<DeclStmt>(s)->decls())
      if (const auto* v = dyn_cast<VarDecl>(d)) allowed.insert(v);
  const Expr* operands = m.temp ? m.temp->getInit() : m.value;
  if (!only_names(operands, allowed) ||
      references_to(operands, k).size() != references_to(m.a.load, k).size() + references_to(m.b.load, k).size()) {
    why = "the accumulated expression uses k or locals outside the operands";
    return std::nullopt;
  }
  if (m.temp && (!only_names(m.value, {m.temp}) || references_to(m.value, m.acc).size() != 0)) {
    why = "the accumulation names more than its temporary";
    return std::nullopt;
  }
  for (int d = 0; d < 2; ++d)
    if (!launches_cover(ctx, d, d == 0 ? m.col_bound : m.row_bound, why)) return std::nullopt;
  return m;
}

}  // namespace warplens::agent::rw
