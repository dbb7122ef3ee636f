// Clang expressions -> index-expression IR, and lvalues/pointers -> the
// memory location they name (root array or pointer + byte offset).
// Internal to analysis/clang/ (used by the body walker).
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/clang/source_mapper.h"
#include "analysis/index_expr.h"
#include "analysis/kernel_model.h"

namespace warplens::clang_frontend {

// What a pointer or lvalue is rooted at.
enum class RootKind : std::uint8_t {
  Unknown,      // a pointer the builder cannot follow (returned by a call, ...)
  Param,        // a pointer parameter (or a pointer field of a by-value struct parameter)
  Shared,       // a __shared__ variable
  GlobalVar,    // a __device__ / __managed__ variable
  ConstantVar,  // a __constant__ variable
  LocalArray,   // an array in local memory
  LocalValue,   // a register-held local (not a memory access)
};

// A memory location: root + byte offset, kept as terms so the element index
// can be recovered for any view width.
struct Address {
  RootKind kind = RootKind::Unknown;
  const clang::ValueDecl* root = nullptr;
  std::string root_name;       // "A", "p.data", "tile"
  int param_index = -1;        // for Param roots
  struct Term {
    ExprRef index;             // multiplied by `scale` bytes
    std::int64_t scale = 1;
    bool subscript = true;     // false: a struct field offset
  };
  std::vector<Term> terms;
  std::int64_t index_unit = 0; // bytes of one element of the innermost subscript
  bool reinterpreted = false;  // viewed through a cast to another element type
  bool arithmetic = false;     // through `p + k` or a pointer local
  bool offset_unknown = false; // a term could not be lowered

  bool is_memory() const { return kind != RootKind::Unknown && kind != RootKind::LocalValue; }
  ExprRef byte_offset() const;
  ExprRef index() const;       // in units of index_unit; null when not exact
  MemorySpace space(bool in_kernel) const;
};

// Values of locals at the current point of the walk. Copied for branches and
// merged afterwards by the walker.
struct Env {
  std::map<const clang::VarDecl*, ExprRef> values;
  std::map<const clang::VarDecl*, Address> pointers;
};

// The local variable (or parameter) an expression names, if it is one the
// walker tracks in Env: not __shared__/__device__/__constant__, not static.
const clang::VarDecl* as_local_variable(const clang::Expr* e);

// The object a member function is called on (`block` in `block.sync()`),
// for non-static and static member functions alike; null for other calls.
const clang::Expr* call_object(const clang::CallExpr* call);

class Lowering {
 public:
  static constexpr int kMaxDepth = 48;  // recursion guard for pathological expressions

  Lowering(clang::ASTContext& ctx, const SourceMapper& map, const clang::FunctionDecl* fn);

  void set_env(Env* env) { env_ = env; }
  const clang::FunctionDecl* function() const { return fn_; }
  clang::ASTContext& context() { return ctx_; }
  const SourceMapper& mapper() const { return map_; }

  // The value of an integer (or any scalar) expression.
  ExprRef lower(const clang::Expr* e);
  // An Opaque node for `e` whose uniformity is computed from its parts.
  ExprRef opaque(const clang::Expr* e);

  std::optional<Address> address_of_lvalue(const clang::Expr* e);
  std::optional<Address> address_of_pointer(const clang::Expr* e);
  // The lvalue an accessor returns (`T& operator[](int i) { return p[i]; }`,
  // `float& at(int r, int c) { return data[r * ld + c]; }`), in the caller's
  // terms; nullopt when the callee is not such a one-line accessor.
  std::optional<Address> address_of_call_result(const clang::CallExpr* call);
  // The pointer a helper returns (`SharedMemory<T>`'s `operator T*()`,
  // `float* row(float* p, int r)`), in the caller's terms.
  std::optional<Address> address_of_pointer_result(const clang::CallExpr* call);

  // A call whose result differs per lane although its arguments may not
  // (thread_rank(), __shfl, atomics, asm-using helpers, ...).
  bool call_varies_per_lane(const clang::CallExpr* call);

  std::string spelling(const clang::Expr* e) const;
  std::int64_t size_of(clang::QualType t) const;
  std::string type_name(clang::QualType t) const;
  int param_index(const clang::ParmVarDecl* p) const;
  // A scalar or small vector-like value (float4, __half2, a struct of up to
  // four scalars, at most 16 bytes): what a reference to it reads and writes
  // as one value. Larger objects (cub TempStorage, arrays) are passed by address.
  bool is_value_like(clang::QualType t) const;
  // A device function's `T&` parameter of a value-like T: its uses are
  // loads and stores of the caller's lvalue (bound through the call's
  // CallSite::pointer_args), at the callee's own lines, where the hardware
  // attributes them once the call is inlined.
  bool is_value_reference_param(const clang::ParmVarDecl* p) const;

  // The builtin index variable component `threadIdx.x` etc., if `e` is one.
  static std::optional<Symbol> builtin_index(const clang::Expr* e);

 private:
  ExprRef lower_uncached(const clang::Expr* e);
  ExprRef lower_call(const clang::CallExpr* call);
  ExprRef lower_cooperative_groups(const clang::CallExpr* call);
  ExprRef lower_member(const clang::MemberExpr* m);
  ExprRef lower_decl_ref(const clang::DeclRefExpr* ref);
  ExprRef load_from(const Address& a, const clang::Expr* e);
  ExprRef inline_single_return(const clang::CallExpr* call, const clang::FunctionDecl* callee);
  ExprRef linear_thread_rank();
  bool function_varies_per_lane(const clang::FunctionDecl* fd, int depth);

  clang::ASTContext& ctx_;
  const SourceMapper& map_;
  const clang::FunctionDecl* fn_;
  Env* env_ = nullptr;
  // Callees being inlined: their parameters' values, and the object `this`
  // stands for (a member call's object, in the caller's terms).
  struct Inlined {
    std::map<const clang::ParmVarDecl*, ExprRef> params;
    const clang::Expr* object = nullptr;
  };
  bool bind_call(const clang::CallExpr* call, const clang::FunctionDecl* callee);
  std::optional<std::pair<const clang::ParmVarDecl*, std::string>> parameter_field(const clang::MemberExpr* m);
  std::vector<Inlined> bindings_;
  std::map<const clang::FunctionDecl*, bool> varies_cache_;
  int depth_ = 0;
};

}  // namespace warplens::clang_frontend
