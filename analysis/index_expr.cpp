#include "analysis/index_expr.h"

#include <algorithm>
#include <sstream>

namespace warplens {

namespace {
const char* dim_name(int d) { return d == 0 ? "x" : d == 1 ? "y" : "z"; }

ExprRef make(Expr e) { return std::make_shared<const Expr>(std::move(e)); }

int precedence(ExprOp op) {
  switch (op) {
    case ExprOp::LogicalOr: return 1;
    case ExprOp::LogicalAnd: return 2;
    case ExprOp::BitOr: return 3;
    case ExprOp::BitXor: return 4;
    case ExprOp::BitAnd: return 5;
    case ExprOp::Eq: case ExprOp::Ne: return 6;
    case ExprOp::Lt: case ExprOp::Le: case ExprOp::Gt: case ExprOp::Ge: return 7;
    case ExprOp::Shl: case ExprOp::Shr: return 8;
    case ExprOp::Add: case ExprOp::Sub: return 9;
    case ExprOp::Mul: case ExprOp::Div: case ExprOp::Rem: return 10;
    case ExprOp::Neg: case ExprOp::BitNot: case ExprOp::LogicalNot: return 11;
    default: return 12;  // atoms, calls
  }
}

const char* binary_spelling(ExprOp op) {
  switch (op) {
    case ExprOp::Add: return " + ";
    case ExprOp::Sub: return " - ";
    case ExprOp::Mul: return " * ";
    case ExprOp::Div: return " / ";
    case ExprOp::Rem: return " % ";
    case ExprOp::Shl: return " << ";
    case ExprOp::Shr: return " >> ";
    case ExprOp::BitAnd: return " & ";
    case ExprOp::BitOr: return " | ";
    case ExprOp::BitXor: return " ^ ";
    case ExprOp::Lt: return " < ";
    case ExprOp::Le: return " <= ";
    case ExprOp::Gt: return " > ";
    case ExprOp::Ge: return " >= ";
    case ExprOp::Eq: return " == ";
    case ExprOp::Ne: return " != ";
    case ExprOp::LogicalAnd: return " && ";
    case ExprOp::LogicalOr: return " || ";
    default: return nullptr;
  }
}

void render(const ExprRef& e, std::ostringstream& os, int parent_prec, bool right_operand) {
  if (!e) {
    os << "?";
    return;
  }
  int prec = precedence(e->op);
  bool paren = prec < parent_prec || (right_operand && prec == parent_prec && prec < 11);
  if (paren) os << "(";
  switch (e->op) {
    case ExprOp::Const: os << e->value; break;
    case ExprOp::Sym: os << e->symbol.to_string(); break;
    case ExprOp::Neg: os << "-"; render(e->operands[0], os, 11, false); break;
    case ExprOp::BitNot: os << "~"; render(e->operands[0], os, 11, false); break;
    case ExprOp::LogicalNot: os << "!"; render(e->operands[0], os, 11, false); break;
    case ExprOp::Min:
    case ExprOp::Max:
      os << (e->op == ExprOp::Min ? "min(" : "max(");
      render(e->operands[0], os, 0, false);
      os << ", ";
      render(e->operands[1], os, 0, false);
      os << ")";
      break;
    case ExprOp::Select:
      os << "(";
      render(e->operands[0], os, 0, false);
      os << " ? ";
      render(e->operands[1], os, 0, false);
      os << " : ";
      render(e->operands[2], os, 0, false);
      os << ")";
      break;
    case ExprOp::Load:
      os << e->text << "[";
      if (!e->operands.empty() && e->operands[0]) render(e->operands[0], os, 0, false);
      os << "]";
      break;
    case ExprOp::Call:
      os << e->text << "(";
      for (size_t i = 0; i < e->operands.size(); ++i) {
        if (i) os << ", ";
        render(e->operands[i], os, 0, false);
      }
      os << ")";
      break;
    case ExprOp::Opaque: os << (e->text.empty() ? "<?>" : e->text); break;
    case ExprOp::Recur:
      // `s0 then s = s >> 1, s#n times`
      os << e->text << "{";
      render(e->operands[0], os, 0, false);
      os << "; " << e->text << " = ";
      render(e->operands[1], os, 0, false);
      os << "; ";
      render(e->operands[2], os, 0, false);
      os << "}";
      break;
    default: {
      const char* sp = binary_spelling(e->op);
      render(e->operands[0], os, prec, false);
      os << (sp ? sp : " ? ");
      render(e->operands[1], os, prec, true);
    }
  }
  if (paren) os << ")";
}

bool any_operand(const ExprRef& e, const std::function<bool(const ExprRef&)>& f) {
  for (const auto& o : e->operands)
    if (o && f(o)) return true;
  return false;
}
}  // namespace

std::string Symbol::to_string() const {
  switch (kind) {
    case SymbolKind::ThreadIdx: return std::string("threadIdx.") + dim_name(dim);
    case SymbolKind::BlockIdx: return std::string("blockIdx.") + dim_name(dim);
    case SymbolKind::BlockDim: return std::string("blockDim.") + dim_name(dim);
    case SymbolKind::GridDim: return std::string("gridDim.") + dim_name(dim);
    case SymbolKind::WarpSize: return "warpSize";
    case SymbolKind::LoopCounter: return name + "#iter";
    case SymbolKind::Iteration: return name + "#n";
    default: return name;
  }
}

ExprRef Expr::constant(std::int64_t v) {
  Expr e;
  e.op = ExprOp::Const;
  e.value = v;
  e.uniform = true;
  return make(std::move(e));
}
ExprRef Expr::sym(Symbol s) {
  Expr e;
  e.op = ExprOp::Sym;
  e.uniform = s.uniform;
  e.symbol = std::move(s);
  return make(std::move(e));
}
ExprRef Expr::thread_idx(int dim) { return sym({SymbolKind::ThreadIdx, dim, "", false}); }
ExprRef Expr::block_idx(int dim) { return sym({SymbolKind::BlockIdx, dim, "", true}); }
ExprRef Expr::block_dim(int dim) { return sym({SymbolKind::BlockDim, dim, "", true}); }
ExprRef Expr::grid_dim(int dim) { return sym({SymbolKind::GridDim, dim, "", true}); }
ExprRef Expr::param(std::string name) { return sym({SymbolKind::Param, 0, std::move(name), true}); }
ExprRef Expr::binary(ExprOp op, ExprRef a, ExprRef b) {
  Expr e;
  e.op = op;
  e.operands = {std::move(a), std::move(b)};
  return make(std::move(e));
}
ExprRef Expr::unary(ExprOp op, ExprRef a) {
  Expr e;
  e.op = op;
  e.operands = {std::move(a)};
  return make(std::move(e));
}
ExprRef Expr::select(ExprRef c, ExprRef a, ExprRef b) {
  Expr e;
  e.op = ExprOp::Select;
  e.operands = {std::move(c), std::move(a), std::move(b)};
  return make(std::move(e));
}
ExprRef Expr::load(std::string base, ExprRef index) {
  Expr e;
  e.op = ExprOp::Load;
  e.text = std::move(base);
  e.operands = {std::move(index)};
  return make(std::move(e));
}
ExprRef Expr::call(std::string callee, std::vector<ExprRef> args) {
  Expr e;
  e.op = ExprOp::Call;
  e.text = std::move(callee);
  e.operands = std::move(args);
  return make(std::move(e));
}
ExprRef Expr::opaque(std::string spelling, bool uniform) {
  Expr e;
  e.op = ExprOp::Opaque;
  e.text = std::move(spelling);
  e.uniform = uniform;
  return make(std::move(e));
}

ExprRef Expr::recur(std::string variable, ExprRef init, ExprRef update, ExprRef count) {
  Expr e;
  e.op = ExprOp::Recur;
  e.text = std::move(variable);
  e.operands = {std::move(init), std::move(update), std::move(count)};
  return make(std::move(e));
}

ExprRef Expr::data_local(std::string variable, bool uniform, std::vector<ExprRef> depends_on) {
  Expr e;
  e.op = ExprOp::Opaque;
  e.text = std::move(variable);
  e.uniform = uniform;
  e.operands = std::move(depends_on);
  return make(std::move(e));
}

Symbol Expr::previous(const std::string& variable, bool uniform) {
  return {SymbolKind::Local, 0, variable + "#prev", uniform};
}

std::string to_string(const ExprRef& e) {
  std::ostringstream os;
  render(e, os, 0, false);
  return os.str();
}

bool is_lane_varying(const ExprRef& e) {
  if (!e) return true;  // unknown: be conservative
  switch (e->op) {
    case ExprOp::Const: return false;
    case ExprOp::Sym: return !e->symbol.uniform;
    // A plain Opaque has no operands; a data_local's are its dependencies.
    case ExprOp::Opaque: return !e->uniform || any_operand(e, is_lane_varying);
    case ExprOp::Load:
    case ExprOp::Call:
      if (e->uniform) return false;
      return any_operand(e, is_lane_varying) || (e->op == ExprOp::Load && e->operands.empty());
    default: return any_operand(e, is_lane_varying);
  }
}

bool is_indirect(const ExprRef& e) {
  if (!e) return false;
  if (e->op == ExprOp::Load && !e->operands.empty() && is_lane_varying(e->operands[0])) return true;
  if (e->op == ExprOp::Opaque && !e->operands.empty() && is_lane_varying(e)) return true;
  return any_operand(e, is_indirect);
}

bool contains_load(const ExprRef& e) {
  if (!e) return false;
  if (e->op == ExprOp::Load) return true;
  return any_operand(e, contains_load);
}

ExprRef data_dependence_source(const ExprRef& e) {
  if (!e) return nullptr;
  if (e->op == ExprOp::Load && !e->operands.empty() && is_lane_varying(e->operands[0])) return e;
  if (e->op == ExprOp::Opaque && !e->operands.empty() && is_lane_varying(e)) return e;
  if (e->op == ExprOp::Call && !e->uniform && is_indirect(e)) return e;
  for (const auto& o : e->operands)
    if (auto r = data_dependence_source(o)) return r;
  return nullptr;
}

bool mentions(const ExprRef& e, const std::function<bool(const Symbol&)>& pred) {
  if (!e) return false;
  if (e->op == ExprOp::Sym) return pred(e->symbol);
  for (const auto& o : e->operands)
    if (mentions(o, pred)) return true;
  return false;
}

ExprRef substitute(const ExprRef& e, const std::function<ExprRef(const Symbol&)>& fn) {
  if (!e) return e;
  if (e->op == ExprOp::Sym) {
    if (auto r = fn(e->symbol)) return r;
    return e;
  }
  if (e->operands.empty()) return e;
  bool changed = false;
  std::vector<ExprRef> ops;
  ops.reserve(e->operands.size());
  for (const auto& o : e->operands) {
    ops.push_back(substitute(o, fn));
    changed |= ops.back() != o;
  }
  if (!changed) return e;
  Expr copy = *e;
  copy.operands = std::move(ops);
  return make(std::move(copy));
}

std::optional<std::int64_t> evaluate(const ExprRef& e, const SymbolEnv& env, const OpaqueEnv& opaque) {
  if (!e) return std::nullopt;
  auto arg = [&](size_t i) { return evaluate(e->operands[i], env, opaque); };
  switch (e->op) {
    case ExprOp::Const: return e->value;
    case ExprOp::Sym: return env ? env(e->symbol) : std::nullopt;
    case ExprOp::Load:
    case ExprOp::Call:
    case ExprOp::Opaque:
      if (opaque) return opaque(*e);
      return std::nullopt;
    case ExprOp::Neg: {
      auto a = arg(0);
      if (!a || *a == INT64_MIN) return std::nullopt;
      return -*a;
    }
    case ExprOp::BitNot: { auto a = arg(0); if (!a) return a; return ~*a; }
    case ExprOp::LogicalNot: { auto a = arg(0); if (!a) return a; return *a == 0 ? 1 : 0; }
    case ExprOp::Select: {
      auto c = arg(0);
      if (!c) return std::nullopt;
      return *c ? arg(1) : arg(2);
    }
    case ExprOp::LogicalAnd: {
      auto a = arg(0);
      if (!a) return std::nullopt;
      if (!*a) return 0;
      auto b = arg(1);
      if (!b) return std::nullopt;
      return *b ? 1 : 0;
    }
    case ExprOp::LogicalOr: {
      auto a = arg(0);
      if (!a) return std::nullopt;
      if (*a) return 1;
      auto b = arg(1);
      if (!b) return std::nullopt;
      return *b ? 1 : 0;
    }
    case ExprOp::Recur: {
      auto v = arg(0), n = arg(2);
      if (!v || !n || *n < 0 || *n > kMaxRecurSteps) return std::nullopt;
      const std::string prev = e->text + "#prev";
      for (std::int64_t k = 0; k < *n && v; ++k) {
        const std::int64_t current = *v;
        v = evaluate(
            e->operands[1],
            [&](const Symbol& s) -> std::optional<std::int64_t> {
              if (s.kind == SymbolKind::Local && s.name == prev) return current;
              return env ? env(s) : std::nullopt;
            },
            opaque);
      }
      return v;
    }
    default: break;
  }
  auto a = arg(0);
  auto b = arg(1);
  if (!a || !b) return std::nullopt;
  std::int64_t x = *a, y = *b;
  // Overflow is "unknown", not a wrapped value: stand-ins for loaded data and
  // fuzzed constants reach here, and signed overflow is undefined behaviour.
  std::int64_t r = 0;
  switch (e->op) {
    case ExprOp::Add: if (__builtin_add_overflow(x, y, &r)) return std::nullopt; return r;
    case ExprOp::Sub: if (__builtin_sub_overflow(x, y, &r)) return std::nullopt; return r;
    case ExprOp::Mul: if (__builtin_mul_overflow(x, y, &r)) return std::nullopt; return r;
    case ExprOp::Div:
      if (y == 0 || (y == -1 && x == INT64_MIN)) return std::nullopt;
      return x / y;
    case ExprOp::Rem:
      if (y == 0 || (y == -1 && x == INT64_MIN)) return std::nullopt;
      return x % y;
    case ExprOp::Shl:
      if (y < 0 || y > 62) return std::nullopt;
      if (__builtin_mul_overflow(x, std::int64_t{1} << y, &r)) return std::nullopt;
      return r;
    case ExprOp::Shr: if (y < 0 || y > 62) return std::nullopt; return x >> y;
    case ExprOp::BitAnd: return x & y;
    case ExprOp::BitOr: return x | y;
    case ExprOp::BitXor: return x ^ y;
    case ExprOp::Min: return std::min(x, y);
    case ExprOp::Max: return std::max(x, y);
    case ExprOp::Lt: return x < y;
    case ExprOp::Le: return x <= y;
    case ExprOp::Gt: return x > y;
    case ExprOp::Ge: return x >= y;
    case ExprOp::Eq: return x == y;
    case ExprOp::Ne: return x != y;
    default: return std::nullopt;
  }
}

// ---------------------------------------------------------------- Polynomial

namespace {
// Coefficients wrap as 64-bit two's complement (as the device's 64-bit integer
// arithmetic does) instead of overflowing, which would be undefined behaviour
// on source constants the fuzzer or a user makes large.
std::int64_t wrap_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
std::int64_t wrap_mul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
}  // namespace

Polynomial Polynomial::constant(std::int64_t v) {
  Polynomial p;
  if (v) p.terms[{}] = v;
  return p;
}
Polynomial Polynomial::symbol(const Symbol& s) {
  Polynomial p;
  p.terms[{s}] = 1;
  return p;
}
Polynomial Polynomial::operator+(const Polynomial& o) const {
  Polynomial r = *this;
  for (const auto& [m, c] : o.terms) {
    auto& slot = r.terms[m];
    slot = wrap_add(slot, c);
    if (slot == 0) r.terms.erase(m);
  }
  return r;
}
Polynomial Polynomial::operator-(const Polynomial& o) const { return *this + o.scaled(-1); }
Polynomial Polynomial::scaled(std::int64_t k) const {
  Polynomial r;
  if (k == 0) return r;
  for (const auto& [m, c] : terms) r.terms[m] = wrap_mul(c, k);
  return r;
}
Polynomial Polynomial::operator*(const Polynomial& o) const {
  Polynomial r;
  for (const auto& [m1, c1] : terms)
    for (const auto& [m2, c2] : o.terms) {
      Monomial m = m1;
      m.insert(m.end(), m2.begin(), m2.end());
      std::sort(m.begin(), m.end());
      auto& slot = r.terms[m];
      slot = wrap_add(slot, wrap_mul(c1, c2));
      if (slot == 0) r.terms.erase(m);
    }
  return r;
}
bool Polynomial::is_constant() const {
  return terms.empty() || (terms.size() == 1 && terms.begin()->first.empty());
}
std::int64_t Polynomial::constant_term() const {
  auto it = terms.find({});
  return it == terms.end() ? 0 : it->second;
}
std::optional<Polynomial> Polynomial::coefficient_of(const Symbol& s) const {
  Polynomial r;
  for (const auto& [m, c] : terms) {
    auto n = std::count(m.begin(), m.end(), s);
    if (n == 0) continue;
    if (n > 1) return std::nullopt;
    Monomial rest;
    for (const auto& x : m)
      if (!(x == s)) rest.push_back(x);
    r.terms[rest] = wrap_add(r.terms[rest], c);
  }
  return r;
}
std::string Polynomial::to_string() const {
  if (terms.empty()) return "0";
  std::ostringstream os;
  bool first = true;
  // Constant term last reads more naturally: "tid.x * n + 4".
  auto emit = [&](const Monomial& m, std::int64_t c) {
    if (!first) os << (c < 0 ? " - " : " + ");
    else if (c < 0) os << "-";
    const std::uint64_t a = c < 0 ? 0 - static_cast<std::uint64_t>(c) : static_cast<std::uint64_t>(c);
    bool need_coeff = m.empty() || a != 1;
    if (need_coeff) os << a;
    for (size_t i = 0; i < m.size(); ++i) {
      if (need_coeff || i) os << " * ";
      os << m[i].to_string();
    }
    first = false;
  };
  for (const auto& [m, c] : terms)
    if (!m.empty()) emit(m, c);
  if (auto it = terms.find({}); it != terms.end()) emit({}, it->second);
  return os.str();
}

std::optional<Polynomial> to_polynomial(const ExprRef& e) { return to_polynomial(e, nullptr); }

std::optional<Polynomial> to_polynomial(const ExprRef& e,
                                        const std::function<std::optional<Symbol>(const ExprRef&)>& atom) {
  if (!e) return std::nullopt;
  auto opaque = [&]() -> std::optional<Polynomial> {
    if (!atom) return std::nullopt;
    if (auto s = atom(e)) return Polynomial::symbol(*s);
    return std::nullopt;
  };
  switch (e->op) {
    case ExprOp::Const: return Polynomial::constant(e->value);
    case ExprOp::Sym: return Polynomial::symbol(e->symbol);
    case ExprOp::Neg: {
      auto a = to_polynomial(e->operands[0], atom);
      if (!a) return std::nullopt;
      return a->scaled(-1);
    }
    case ExprOp::Add:
    case ExprOp::Sub:
    case ExprOp::Mul: {
      auto a = to_polynomial(e->operands[0], atom);
      auto b = to_polynomial(e->operands[1], atom);
      if (!a || !b) return std::nullopt;
      if (e->op == ExprOp::Add) return *a + *b;
      if (e->op == ExprOp::Sub) return *a - *b;
      return *a * *b;
    }
    case ExprOp::Shl: {
      auto a = to_polynomial(e->operands[0], atom);
      auto b = to_polynomial(e->operands[1]);
      if (!a || !b || !b->is_constant()) return opaque();
      auto k = b->constant_term();
      if (k < 0 || k > 40) return opaque();
      return a->scaled(std::int64_t{1} << k);
    }
    default: return opaque();
  }
}

}  // namespace warplens
