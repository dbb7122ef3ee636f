// Spelling code back out for the rewrites: a statement's text with
// sub-expressions or names replaced, its terminator, an index polynomial
// rendered as C over the kernel's own variables, and the helper text some
// rewrites insert (declared in kernel_shapes.h).
#include <sstream>
#include "agent/rewrites/kernel_shapes.h"

namespace warplens::agent::rw {

using namespace clang;
using clang::Expr;

std::optional<std::string> text_with_replacements(const KernelContext& ctx, const Stmt* s,
                                                  const std::map<const ValueDecl*, std::string>& names,
                                                  const std::map<const Stmt*, std::string>& nodes,
                                                  bool rename_declarations) {
  auto range = ctx.char_range(s->getSourceRange());
  if (!range) return std::nullopt;
  const unsigned begin = ctx.sm().getFileOffset(range->getBegin()), end = ctx.sm().getFileOffset(range->getEnd());
  struct Splice {
    unsigned b, e;
    std::string text;
  };
  std::vector<Splice> splices;
  bool ok = true;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || !ok) return;
    if (auto it = nodes.find(x); it != nodes.end()) {
      auto r = ctx.char_range(x->getSourceRange());
      if (!r) {
        ok = false;
        return;
      }
      splices.push_back({ctx.sm().getFileOffset(r->getBegin()), ctx.sm().getFileOffset(r->getEnd()), it->second});
      return;
    }
    if (const auto* ds = dyn_cast<DeclStmt>(x); ds && rename_declarations)
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d); v && names.count(v)) {
          if (v->getLocation().isMacroID()) {
            ok = false;
            return;
          }
          const unsigned b = ctx.sm().getFileOffset(v->getLocation());
          splices.push_back({b, b + static_cast<unsigned>(v->getName().size()), names.at(v)});
        }
    if (const auto* ref = dyn_cast<DeclRefExpr>(x)) {
      for (const auto& [d, text] : names)
        if (d->getCanonicalDecl() == ref->getDecl()->getCanonicalDecl()) {
          if (ref->getBeginLoc().isMacroID()) {
            ok = false;
            return;
          }
          const unsigned b = ctx.sm().getFileOffset(ref->getLocation());
          splices.push_back({b, b + static_cast<unsigned>(ref->getNameInfo().getAsString().size()), text});
        }
    }
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(s);
  if (!ok) return std::nullopt;
  std::sort(splices.begin(), splices.end(), [](const Splice& a, const Splice& b) { return a.b < b.b; });
  std::string out;
  unsigned at = begin;
  for (const Splice& sp : splices) {
    if (sp.b < at || sp.e > end) return std::nullopt;  // nested or outside: give up
    out += ctx.slice(at, sp.b) + sp.text;
    at = sp.e;
  }
  out += ctx.slice(at, end);
  return out;
}

std::optional<std::string> statement_terminator(const KernelContext& ctx, const Stmt* s) {
  auto range = ctx.char_range(s->getSourceRange());
  if (!range) return std::nullopt;
  const unsigned end = ctx.sm().getFileOffset(range->getEnd());
  const unsigned after = ctx.offset_after_statement(s);
  return after > end ? ctx.slice(end, after) : std::string();
}

std::optional<std::string> statement_text(const KernelContext& ctx, const Stmt* s,
                                          const std::map<const Stmt*, std::string>& nodes) {
  auto t = text_with_replacements(ctx, s, {}, nodes);
  auto semi = statement_terminator(ctx, s);
  if (!t || !semi) return std::nullopt;
  return *t + *semi;
}

std::optional<std::string> text_with_renames(const KernelContext& ctx, const Stmt* s,
                                             const std::map<const ValueDecl*, std::string>& names) {
  return text_with_replacements(ctx, s, names, {});
}

namespace {

// A polynomial over parameters and constants as C (nullopt: other symbols).
std::optional<std::string> render_uniform(const Polynomial& p) {
  std::string out;
  for (const auto& [mono, coeff] : p.terms) {
    if (coeff == 0) continue;
    std::string term;
    for (const Symbol& s : mono) {
      if (s.kind == SymbolKind::Param) term += (term.empty() ? "" : " * ") + s.name;
      // The batch index of a batched 2-D kernel (match_grid_2d): the same
      // for every thread of a block, and kept by the rewrites that allow it.
      else if (s.kind == SymbolKind::BlockIdx && s.dim == 2) term += (term.empty() ? "" : " * ") + std::string("(long long)blockIdx.z");  // unsigned: would wrap
      else if (s.kind == SymbolKind::WarpSize) term += (term.empty() ? "" : " * ") + std::string("32");
      else return std::nullopt;
    }
    std::string c = std::to_string(coeff);
    if (term.empty()) term = c;
    else if (coeff != 1) term = c + " * " + term;
    out += (out.empty() ? "" : " + ") + term;
  }
  return out.empty() ? std::string("0") : out;
}

}  // namespace

std::string declared_type_spelling(const KernelContext& ctx, const VarDecl* v, bool unqualified) {
  const QualType t = unqualified ? v->getType().getUnqualifiedType() : v->getType();
  const std::string printed = t.getAsString(ctx.ctx().getPrintingPolicy());
  const FunctionDecl* pattern = ctx.kernel->getTemplateInstantiationPattern();
  if (!pattern || pattern == ctx.kernel) return printed;
  // The instantiated local keeps the pattern's source locations: the text
  // from its declaration's start to its name is the type as written.
  const SourceLocation begin = v->getBeginLoc(), name = v->getLocation();
  if (begin.isInvalid() || name.isInvalid() || begin.isMacroID() || name.isMacroID()) return printed;
  const unsigned b = ctx.offset(begin), n = ctx.offset(name);
  if (n <= b || n > ctx.file.text.size()) return printed;
  std::string s = ctx.slice(b, n);
  if (s.find_first_of(",=;()[]{}") != std::string::npos) return printed;  // a later declarator
  std::istringstream words(s);
  std::string out, w;
  bool top_const = false;
  std::vector<std::string> list;
  while (words >> w) list.push_back(w);
  for (std::size_t k = 0; k < list.size(); ++k) {
    const std::string& x = list[k];
    if (x == "static" || x == "constexpr" || x == "register" || x == "extern" || x == "__shared__" || x == "auto")
      return printed;
    // A top-level const: first or last word (`const T`, `T const`), not
    // the pointee's (`const T*`).
    if (x == "const" && (k + 1 == list.size() || (k == 0 && s.find('*') == std::string::npos))) {
      top_const = true;
      if (unqualified) continue;
    }
    out += (out.empty() ? "" : " ") + x;
  }
  (void)top_const;
  return out.empty() ? printed : out;
}

std::optional<std::string> render_index(const Polynomial& p, const std::string& y_name, const std::string& x_name,
                                        const std::vector<std::pair<Symbol, std::string>>& counters) {
  Polynomial rest = p;
  std::string out;
  auto add = [&](const Polynomial& factor, const std::string& var) -> bool {
    if (factor.is_constant() && factor.constant_term() == 0) return true;
    auto f = render_uniform(factor);
    if (!f) return false;
    out += (out.empty() ? "" : " + ") + std::string("(long long)(") + *f + ") * " + var;
    return true;
  };
  const std::pair<int, const std::string*> dims[] = {{1, &y_name}, {0, &x_name}};
  for (const auto& [d, name] : dims) {
    const Symbol tid = builtin_symbol(SymbolKind::ThreadIdx, d), bid = builtin_symbol(SymbolKind::BlockIdx, d),
                 bdim = builtin_symbol(SymbolKind::BlockDim, d);
    auto alpha = rest.coefficient_of(tid);
    auto beta = rest.coefficient_of(bid);
    if (!alpha || !beta) return std::nullopt;
    if ((*alpha * Polynomial::symbol(bdim)).terms != beta->terms) return std::nullopt;
    if (name->empty() && !(alpha->is_constant() && alpha->constant_term() == 0)) return std::nullopt;
    if (!add(*alpha, *name)) return std::nullopt;
    rest = rest - *alpha * (Polynomial::symbol(bid) * Polynomial::symbol(bdim) + Polynomial::symbol(tid));
  }
  for (const auto& [k, name] : counters) {
    auto gamma = rest.coefficient_of(k);
    if (!gamma || !add(*gamma, name)) return std::nullopt;
    rest = rest - *gamma * Polynomial::symbol(k);
  }
  auto delta = render_uniform(rest);
  if (!delta) return std::nullopt;
  if (*delta != "0") out += (out.empty() ? "" : " + ") + *delta;
  return out.empty() ? std::string("0") : out;
}

namespace {
const char* kVectorHelpers = R"(// Added by warplens (vectorize): `V` consecutive elements in one 8/16/32-byte access.
template <int V, typename T>
__device__ __forceinline__ void wl_vector_load(T (&dst)[V], const T* src) {
  if constexpr (sizeof(T) * V == 16) {
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
  } else if constexpr (sizeof(T) * V == 8) {
    *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(src);
  } else if constexpr (sizeof(T) * V == 32) {
    reinterpret_cast<uint4*>(dst)[0] = reinterpret_cast<const uint4*>(src)[0];
    reinterpret_cast<uint4*>(dst)[1] = reinterpret_cast<const uint4*>(src)[1];
  } else {
    for (int k = 0; k < V; ++k) dst[k] = src[k];
  }
}
template <int V, typename T>
__device__ __forceinline__ void wl_vector_store(T* dst, const T (&src)[V]) {
  if constexpr (sizeof(T) * V == 16) {
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
  } else if constexpr (sizeof(T) * V == 8) {
    *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(src);
  } else if constexpr (sizeof(T) * V == 32) {
    reinterpret_cast<uint4*>(dst)[0] = reinterpret_cast<const uint4*>(src)[0];
    reinterpret_cast<uint4*>(dst)[1] = reinterpret_cast<const uint4*>(src)[1];
  } else {
    for (int k = 0; k < V; ++k) dst[k] = src[k];
  }
}
)";
}  // namespace

const char* vector_helpers_text() { return kVectorHelpers; }

}  // namespace warplens::agent::rw
