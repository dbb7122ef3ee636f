// Symbolic index expressions: the small IR that the model builder lowers
// subscripts, conditions and loop bounds into, and that the warp model
// evaluates lane by lane.
//
// Why a tree and not only an affine form: real kernels index with `tid % 32`,
// `tid / 32`, `tid & 31`, `tid >> 5`, min/max clamps and selects. Those are
// not affine, but they are exactly computable for 32 concrete lanes, which is
// all the coalescing and bank models need. The affine (polynomial) view is
// derived from the tree when it exists, for messages ("lanes are `cols`x4
// bytes apart") and for the report.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warplens {

enum class SymbolKind : std::uint8_t {
  ThreadIdx,    // threadIdx.{x,y,z}: varies per lane
  BlockIdx,     // blockIdx.{x,y,z}: warp-uniform
  BlockDim,     // blockDim.{x,y,z}: warp-uniform; known when the launch shape is
  GridDim,      // gridDim.{x,y,z}: warp-uniform
  WarpSize,     // warpSize (32)
  Param,        // a parameter of the enclosing function (uniform for kernels)
  LoopCounter,  // iteration counter of a loop (introduced for induction variables)
  Local,        // a local variable the builder could not resolve to an expression
  Iteration,    // how many iterations of a loop have run (0, 1, 2, ...): the count of a
                // Recur; the warp model averages over the first iterations (warp_model.h)
};

struct Symbol {
  SymbolKind kind = SymbolKind::Local;
  int dim = 0;        // 0,1,2 = x,y,z for the builtins; else 0
  std::string name;   // parameter/variable name; empty for builtins
  bool uniform = true;  // warp-uniform? false for ThreadIdx and lane-varying locals
  auto operator<=>(const Symbol& o) const {
    if (auto c = kind <=> o.kind; c != 0) return c;
    if (auto c = dim <=> o.dim; c != 0) return c;
    return name <=> o.name;
  }
  bool operator==(const Symbol& o) const { return kind == o.kind && dim == o.dim && name == o.name; }
  std::string to_string() const;  // "threadIdx.x", "n", "k#iter"
};

enum class ExprOp : std::uint8_t {
  Const,
  Sym,
  Add, Sub, Mul, Div, Rem, Shl, Shr, BitAnd, BitOr, BitXor,
  Neg, BitNot,
  Min, Max,
  Select,  // operands: cond, then, else
  Lt, Le, Gt, Ge, Eq, Ne, LogicalAnd, LogicalOr, LogicalNot,
  Load,    // a value read from memory: operands[0] = index (may be null), text = base name
  Call,    // a call the builder did not model: operands = arguments, text = callee
  Opaque,  // anything else; `uniform` says whether it is warp-uniform
  // A loop-carried value updated non-affinely once per iteration (`s >>= 1`,
  // `pos = (pos + 4) & 63`): operands = {initial value, update, count}; the
  // update mentions Local symbol `<text>#prev`, the value before it; count is
  // how many updates ran (an Iteration symbol). text = the variable.
  Recur,
};

struct Expr;
using ExprRef = std::shared_ptr<const Expr>;

// A Recur is evaluated by running its update; more steps than this are unknown.
inline constexpr std::int64_t kMaxRecurSteps = 256;

struct Expr {
  ExprOp op = ExprOp::Opaque;
  std::int64_t value = 0;       // Const
  Symbol symbol;                // Sym
  std::string text;             // Load/Call/Opaque: base name, callee or source spelling
  bool uniform = false;         // Opaque/Call/Load: known warp-uniform
  std::vector<ExprRef> operands;

  static ExprRef constant(std::int64_t v);
  static ExprRef sym(Symbol s);
  static ExprRef thread_idx(int dim);
  static ExprRef block_idx(int dim);
  static ExprRef block_dim(int dim);
  static ExprRef grid_dim(int dim);
  static ExprRef param(std::string name);
  static ExprRef binary(ExprOp op, ExprRef a, ExprRef b);
  static ExprRef unary(ExprOp op, ExprRef a);
  static ExprRef select(ExprRef c, ExprRef a, ExprRef b);
  static ExprRef load(std::string base, ExprRef index);
  static ExprRef call(std::string callee, std::vector<ExprRef> args);
  static ExprRef opaque(std::string spelling, bool uniform);
  static ExprRef recur(std::string variable, ExprRef init, ExprRef update, ExprRef count);
  // A local whose value comes from data loaded from memory (a binary
  // search's `pos`, set under `if (data[pos + s] <= key)`): an Opaque named
  // `variable` whose operands are what its updates depend on (their
  // conditions and right-hand sides, at least one containing a Load). It is
  // lane-varying when `uniform` is false or any dependency is (so a device
  // function's warp-uniform local becomes per-lane once its caller binds a
  // per-lane argument), and a per-lane one counts as indirect (is_indirect).
  static ExprRef data_local(std::string variable, bool uniform, std::vector<ExprRef> depends_on);
  // The symbol a Recur's update names the previous value by.
  static Symbol previous(const std::string& variable, bool uniform);
};

// C-like rendering, minimal parentheses: "(blockIdx.x * blockDim.x + threadIdx.x) * n".
std::string to_string(const ExprRef& e);

// True when the value can differ between lanes of one warp (depends on
// threadIdx, a lane-varying local, or a load/call with a lane-varying input).
bool is_lane_varying(const ExprRef& e);

// True when the expression contains a Load whose index is lane-varying
// (a data-dependent, per-lane address such as in[idx[i]]) or a lane-varying
// data-dependent local (Expr::data_local).
bool is_indirect(const ExprRef& e);

// True when the expression reads memory: contains a Load.
bool contains_load(const ExprRef& e);

// The first lane-varying source of data dependence in `e`, outermost first:
// a Load with a lane-varying index, a Call with a lane-varying argument
// that contains a Load, or a lane-varying data_local; null when none.
ExprRef data_dependence_source(const ExprRef& e);

// True when a symbol satisfying `pred` occurs in the expression.
bool mentions(const ExprRef& e, const std::function<bool(const Symbol&)>& pred);

// Replace symbols: `fn` returns the replacement or null to keep the symbol.
ExprRef substitute(const ExprRef& e, const std::function<ExprRef(const Symbol&)>& fn);

// Integer evaluation with C semantics for int64 (division truncates toward
// zero; division by zero and unknown symbols give nullopt). `env` supplies
// symbol values; Load/Call/Opaque evaluate through `opaque` when given.
using SymbolEnv = std::function<std::optional<std::int64_t>(const Symbol&)>;
using OpaqueEnv = std::function<std::optional<std::int64_t>(const Expr&)>;
std::optional<std::int64_t> evaluate(const ExprRef& e, const SymbolEnv& env,
                                      const OpaqueEnv& opaque = nullptr);

// A polynomial with integer coefficients over symbols: sum of coeff * prod(symbols).
// This is the "affine form" of the report (affine in the thread index when
// no monomial has threadIdx with degree > 1).
struct Polynomial {
  using Monomial = std::vector<Symbol>;  // sorted; empty = constant term
  std::map<Monomial, std::int64_t> terms;

  static Polynomial constant(std::int64_t v);
  static Polynomial symbol(const Symbol& s);
  Polynomial operator+(const Polynomial& o) const;
  Polynomial operator-(const Polynomial& o) const;
  Polynomial operator*(const Polynomial& o) const;
  Polynomial scaled(std::int64_t k) const;
  bool is_constant() const;
  std::int64_t constant_term() const;
  // Coefficient of `s` (as a polynomial over the other symbols), when every
  // monomial containing `s` has it with degree 1.
  std::optional<Polynomial> coefficient_of(const Symbol& s) const;
  std::string to_string() const;
};

// nullopt when the tree uses operators outside + - * (and shifts/mults by
// constants), or loads/calls/opaque values.
std::optional<Polynomial> to_polynomial(const ExprRef& e);
// The same, except that a sub-tree it cannot expand is handed to `atom`,
// which may name it as one symbol (`ids[row]` in `ids[row] * dim + x`) or
// refuse (nullopt: then so does the whole).
std::optional<Polynomial> to_polynomial(const ExprRef& e,
                                        const std::function<std::optional<Symbol>(const ExprRef&)>& atom);

}  // namespace warplens
