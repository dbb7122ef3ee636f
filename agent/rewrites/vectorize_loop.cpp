// vectorize-loop: a per-thread loop over a contiguous chunk,
//   for (int k = 0; k < C; ++k) x[k] = A[base + k];      (or stores A[base + k] = ...)
// reads and writes the chunk with 16-byte (8-byte for doubles) accesses: the
// loop runs C/V times over groups of V consecutive elements, one vector load
// per read array and one vector store per written array, and the original
// body for each element of the group (k redeclared, A[base + k] replaced by
// the group's register element). Each thread's chunk is then read in C/V
// wide requests instead of C narrow ones.
//
// Applies when C is a constant multiple of V, every global subscript in the
// body is `base + k` with base provably a multiple of V for every thread (all
// coefficients divisible by V), arrays are either only read or only written
// (by top-level unconditional stores) in the loop, and the body has no
// branch-outs, barriers, atomics or nested loops. A run-time alignment check
// falls back to the original loop; when the loop both reads and writes global
// arrays the launches must pass distinct pointers.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct Array {
  const ParmVarDecl* param = nullptr;
  bool read = false, written = false;
  std::vector<const ArraySubscriptExpr*> uses;
  const Expr* index = nullptr;  // one representative subscript (base + k)
  std::int64_t bytes = 0;
};

struct Match {
  const ForStmt* loop = nullptr;
  const VarDecl* k = nullptr;
  std::int64_t trip = 0;
  std::int64_t width = 0;
  std::vector<Array> arrays;
};

bool has_nested_loop(const Stmt* s) {
  if (!s) return false;
  for (const Stmt* c : s->children()) {
    if (!c) continue;
    if (isa<ForStmt>(c) || isa<WhileStmt>(c) || isa<DoStmt>(c)) return true;
    if (has_nested_loop(c)) return true;
  }
  return false;
}

std::optional<Match> match_loop(const KernelContext& ctx, const ForStmt* loop, std::int64_t want_bytes_per_access,
                                std::string& why) {
  Match m;
  m.loop = loop;
  const auto* init = dyn_cast_or_null<DeclStmt>(loop->getInit());
  m.k = init && init->isSingleDecl() ? dyn_cast<VarDecl>(init->getSingleDecl()) : nullptr;
  if (!m.k || !m.k->getInit() || ctx.eval_int(m.k->getInit()) != std::optional<std::int64_t>(0)) {
    why = "the loop does not start at 0";
    return std::nullopt;
  }
  const auto* cond = dyn_cast_or_null<BinaryOperator>(loop->getCond() ? loop->getCond()->IgnoreParenImpCasts() : nullptr);
  // The trip count without an std::optional local: GCC 12 reports a
  // spurious -Wmaybe-uninitialized on reading it after the checks.
  const std::int64_t trip = cond && cond->getOpcode() == BO_LT && refers_to(cond->getLHS(), m.k)
                                ? ctx.eval_int(cond->getRHS()).value_or(0)
                                : 0;
  const auto* inc = dyn_cast_or_null<UnaryOperator>(loop->getInc());
  if (trip <= 0 || !inc || !inc->isIncrementOp() || !refers_to(inc->getSubExpr(), m.k)) {
    why = "not `for (k = 0; k < C; ++k)` with a constant C";
    return std::nullopt;
  }
  m.trip = trip;
  const Stmt* body = loop->getBody();
  if (has_nested_loop(body) || contains_return(body) || contains_barrier(body) || uses_atomics(body) ||
      uses_warp_primitives(body) || modified_variables(body).count(m.k)) {
    why = "the loop body is not a plain sequence of assignments";
    return std::nullopt;
  }
  std::function<bool(const Stmt*)> jumps = [&](const Stmt* s) -> bool {
    if (!s) return false;
    if (isa<BreakStmt>(s) || isa<ContinueStmt>(s) || isa<GotoStmt>(s)) return true;
    for (const Stmt* c : s->children())
      if (jumps(c)) return true;
    return false;
  };
  if (jumps(body)) {
    why = "the loop can skip or leave iterations";
    return std::nullopt;
  }
  const auto top_list = statements_of(body);
  const std::set<const Stmt*> top(top_list.begin(), top_list.end());
  const Symbol ks{SymbolKind::LoopCounter, 0, m.k->getNameAsString(), true};
  for (const Access& a : collect_accesses(body)) {
    if (a.is_shared || !a.base) continue;
    const auto* param = dyn_cast<ParmVarDecl>(a.base);
    if (!param) continue;  // local arrays stay scalar
    if (!param->getType()->isPointerType() || a.indices.size() != 1 || a.member) {
      why = "`" + ctx.text(a.expr).value_or("?") + "` is not a plain element access";
      return std::nullopt;
    }
    auto p = ctx.polynomial(a.indices[0]);
    auto ck = p ? coefficient(*p, ks) : std::nullopt;
    if (!p || !ck || !is_constant(*ck, 1)) {
      why = "`" + ctx.text(a.expr).value_or("?") + "` is not `base + k`";
      return std::nullopt;
    }
    Polynomial base = *p - Polynomial::symbol(ks);
    QualType e = param->getType()->getPointeeType();
    if (!e->isArithmeticType()) {
      why = "`" + param->getNameAsString() + "` does not point to numbers";
      return std::nullopt;
    }
    const auto bytes = static_cast<std::int64_t>(ctx.ctx().getTypeSize(e) / 8);
    const std::int64_t width = want_bytes_per_access / bytes;
    if (width < 2 || width * bytes != want_bytes_per_access) {
      why = "element size does not fit the vector width";
      return std::nullopt;
    }
    if (m.width && m.width != width) {
      why = "arrays of different element sizes";
      return std::nullopt;
    }
    m.width = width;
    for (const auto& [mono, coeff] : base.terms)
      if (coeff % width != 0) {
        why = "the chunk start `" + ctx.text(a.indices[0]).value_or("?") + " - k` is not provably a multiple of " +
              std::to_string(width);
        return std::nullopt;
      }
    auto it = std::find_if(m.arrays.begin(), m.arrays.end(), [&](const Array& x) { return x.param == param; });
    if (it == m.arrays.end()) {
      m.arrays.push_back({param, false, false, {}, a.indices[0], bytes});
      it = m.arrays.end() - 1;
    } else if (to_string(ctx.lower(it->index)) != to_string(ctx.lower(a.indices[0]))) {
      why = "`" + param->getNameAsString() + "` is accessed at two different offsets";
      return std::nullopt;
    }
    it->read |= a.read;
    it->written |= a.write;
    it->uses.push_back(a.expr);
    if (a.write) {
      bool unconditional = false;
      for (const Stmt* t : top)
        if (const auto* bo = dyn_cast<BinaryOperator>(t); bo && bo->getOpcode() == BO_Assign &&
                                                           bo->getLHS()->IgnoreParenImpCasts() == a.expr)
          unconditional = !a.read;
      if (!unconditional) {
        why = "`" + param->getNameAsString() + "` is written conditionally or also read";
        return std::nullopt;
      }
    }
  }
  if (m.arrays.empty()) {
    why = "no global array accessed along the loop";
    return std::nullopt;
  }
  for (const auto& a : m.arrays) {
    if (a.read && a.written) {
      why = "`" + a.param->getNameAsString() + "` is both read and written";
      return std::nullopt;
    }
    std::size_t refs = references_to(body, a.param).size();
    if (refs != a.uses.size()) {
      why = "`" + a.param->getNameAsString() + "` is used other than by subscripts";
      return std::nullopt;
    }
  }
  if (m.trip % m.width != 0) {
    why = "the trip count " + std::to_string(m.trip) + " is not a multiple of " + std::to_string(m.width);
    return std::nullopt;
  }
  bool reads = false, writes = false;
  for (const auto& a : m.arrays) {
    reads |= a.read;
    writes |= a.written;
  }
  if (reads && writes) {
    std::vector<const ParmVarDecl*> ptrs;
    for (const auto& a : m.arrays) ptrs.push_back(a.param);
    if (!launches_pass_distinct_pointers(ctx, ptrs, why)) return std::nullopt;
  }
  return m;
}

std::vector<const ForStmt*> all_for_loops(const KernelContext& ctx) {
  std::vector<const ForStmt*> out;
  std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
    if (!s) return;
    if (const auto* f = dyn_cast<ForStmt>(s)) out.push_back(f);
    for (const Stmt* c : s->children()) walk(c);
  };
  walk(ctx.body);
  return out;
}

class VectorizeLoop final : public Rewrite {
 public:
  const char* name() const override { return "vectorize-loop"; }

  std::vector<Match> matches(const KernelContext& ctx, std::string& why) const {
    std::vector<Match> out;
    for (const ForStmt* f : all_for_loops(ctx)) {
      if (f->getBeginLoc().isMacroID()) continue;
      // 16-byte accesses first, 8-byte when 16 do not divide the chunk.
      auto m = match_loop(ctx, f, 16, why);
      if (!m) m = match_loop(ctx, f, 8, why);
      if (m) out.push_back(*m);
    }
    return out;
  }

  CheckResult check(KernelContext& ctx) const override {
    std::string why = "no for loop";
    auto ms = matches(ctx, why);
    if (ms.empty()) return CheckResult::refuse(why);
    CheckResult r;
    Proposal p;
    p.step = {name(), {}};
    p.motivation = std::to_string(ms.size()) + " per-thread loop(s) over a contiguous chunk (" +
                   std::to_string(ms[0].trip) + " elements): " + std::to_string(ms[0].width) + "-wide accesses";
    p.predicted_gain = 1.2;
    r.proposals.push_back(p);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto ms = matches(ctx, error);
    if (ms.empty()) return false;
    for (const Match& m : ms) {
      const std::string k = m.k->getNameAsString(), kt = m.k->getType().getUnqualifiedType().getAsString();
      const std::string g = fresh_name(ctx.file, "k");  // each rewritten loop is its own scope
      const std::string c = fresh_name(ctx.file, "c");
      const std::string W = std::to_string(m.width);
      std::map<const Stmt*, std::string> lanes;
      std::vector<std::string> locals;
      std::string aligned = "true", loads, stores;
      for (const Array& a : m.arrays) {
        locals.push_back(fresh_name(ctx.file, a.param->getNameAsString() + "_v"));
        for (const ArraySubscriptExpr* u : a.uses) lanes[u] = locals.back() + "[" + c + "]";
        // base = the subscript with k := 0
        std::map<const ValueDecl*, std::string> zero{{m.k, "0"}};
        auto base = text_with_renames(ctx, a.index, zero);
        if (!base) {
          error = "a subscript crosses a macro";
          return false;
        }
        const std::string type = a.param->getType()->getPointeeType().getUnqualifiedType().getAsString();
        const std::string at = a.param->getNameAsString() + " + (" + *base + ") + " + g;
        aligned += " && reinterpret_cast<unsigned long long>(" + a.param->getNameAsString() + ") % " +
                   std::to_string(a.bytes * m.width) + " == 0";
        loads += "        " + type + " " + locals.back() + "[" + W + "];\n";
        if (a.read) loads += "        wl_vector_load<" + W + ">(" + locals.back() + ", " + at + ");\n";
        if (a.written) stores += "        wl_vector_store<" + W + ">(" + at + ", " + locals.back() + ");\n";
      }
      auto body = text_with_replacements(ctx, m.loop->getBody(), {}, lanes);
      auto original = ctx.text(m.loop);
      if (!body || !original) {
        error = "the loop crosses a macro";
        return false;
      }
      const unsigned after = ctx.offset_after_statement(m.loop);
      const unsigned end = ctx.offset(Lexer::getLocForEndOfToken(m.loop->getEndLoc(), 0, ctx.sm(), ctx.file.lang()));
      const std::string semi = after > end ? ctx.slice(end, after) : "";
      const std::string ind = ctx.indentation_at(m.loop->getBeginLoc());
      std::string text = "if (" + aligned + ") {\n";
      text += ind + "  // Rewritten by warplens (vectorize-loop): " + W + " elements per access.\n";
      text += "#pragma unroll\n";
      text += ind + "  for (" + kt + " " + g + " = 0; " + g + " < " + std::to_string(m.trip) + "; " + g + " += " + W +
              ") {\n" + loads;
      text += "#pragma unroll\n";
      text += ind + "    for (int " + c + " = 0; " + c + " < " + W + "; ++" + c + ") {\n";
      text += ind + "      const " + kt + " " + k + " = " + g + " + " + c + ";\n";
      text += ind + "      " + *body + (isa<CompoundStmt>(m.loop->getBody()) ? "" : semi) + "\n";
      text += ind + "    }\n" + stores + ind + "  }\n" + ind + "} else {\n" + ind + "  " + *original + semi + "\n" +
              ind + "}";
      if (!out.edits.replace_offsets(ctx.offset(m.loop->getBeginLoc()), after, text)) {
        error = out.edits.error();
        return false;
      }
    }
    if (ctx.file.text.find("wl_vector_load") == std::string::npos &&
        !insert_before_kernel(ctx, out.edits, vector_helpers_text())) {
      error = out.edits.error();
      return false;
    }
    out.notes.push_back("every chunk start is a multiple of the vector width and the pointers are checked for "
                        "alignment at run time (else the original loop runs)");
    out.notes.push_back("arrays are only read or only written in the loop: grouping the element accesses changes "
                        "no value");
    return true;
  }
};

}  // namespace

const Rewrite& vectorize_loop_rewrite() {
  static const VectorizeLoop r;
  return r;
}

}  // namespace warplens::agent::rw
