// What a launch configuration and an indirect launch's callee are, from the
// rest of the translation unit. Internal to analysis/clang/.
//
// The launch evaluator (constant_eval.h) folds what is written at the
// launch; this resolver answers what it cannot see from there:
//
// - path conditions: a launch inside `if (block_size == 16)` or under
//   `case 256:` of `switch (threads)` runs with that value;
// - a host function's parameter: the value every call site in the file
//   passes (`MatrixMultiply(argc, argv, block_size, ...)` from main with
//   `int block_size = 32;`), through at most a few calls;
// - helpers: a call of a function of the file that returns one value
//   (`dim3 blockFor() { return dim3(32, 8); }`, `int threads(int n) { ... }`),
//   its parameters bound to the call's arguments;
// - indirect launches: the kernels whose address reaches a function pointer
//   (`kernel = &transposeCoalesced; kernel<<<grid, threads>>>(...)`), a kernel
//   table (`void (*kernels[])(...) = {k1, k2}`), a struct field, or a pointer
//   parameter of the host function at its call sites.
//
// Only the target file's code is searched (one lazy traversal, done the
// first time a question needs it).
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "analysis/clang/constant_eval.h"
#include "analysis/clang/source_mapper.h"

namespace warplens::clang_frontend {

// A condition a statement runs under, as the model builder's traversal saw
// it: an `if` (taken or not) or a switch's case labels.
struct PathFact {
  const clang::Expr* condition = nullptr;  // the if's condition or the switch's subject
  bool taken = true;                       // if: then-branch (true) or else-branch
  bool is_switch = false;
  std::vector<std::int64_t> case_values;   // switch: the labels of the running case (empty: default)
};

// The path facts as constraints on variables: `if (n == 16)` taken, `if (n != 16)`
// not taken and `case 16:` of `switch (n)` fix n; `case 256: case 128:` allow
// those values only; `if (n == 16)` not taken excludes 16. Conjunctions of a
// taken branch split.
struct PathConstraints {
  std::map<const clang::VarDecl*, std::int64_t> equal;
  std::map<const clang::VarDecl*, std::vector<std::int64_t>> one_of;
  std::map<const clang::VarDecl*, std::vector<std::int64_t>> excluded;
  // False when `v` contradicts what the path says about `var`.
  bool allows(const clang::VarDecl* var, std::int64_t v) const;
};
PathConstraints path_constraints(const std::vector<PathFact>& path, const clang::ASTContext& ctx);

class LaunchResolver : public EvalHooks {
 public:
  LaunchResolver(clang::ASTContext& ctx, const SourceMapper& map) : ctx_(ctx), map_(map) {}

  // Sets the launch being evaluated: its host function and the conditions
  // it runs under (outermost first).
  void set_launch(const clang::FunctionDecl* host, const std::vector<PathFact>& path);

  // The kernels an indirect launch can start (empty when none is found).
  std::vector<const clang::FunctionDecl*> kernels_reaching(const clang::Expr* callee);

  // The locals a function changes after their initialisation (cached).
  const std::set<const clang::VarDecl*>& modified(const clang::FunctionDecl* fn);

  std::optional<std::int64_t> known_integer(const clang::VarDecl* var, int depth) override;
  std::optional<std::int64_t> integer_variable(const clang::VarDecl* var, int depth) override;
  std::optional<std::array<std::int64_t, 3>> dim3_variable(const clang::VarDecl* var, int depth) override;
  std::optional<std::int64_t> integer_call(const clang::CallExpr* call, LaunchEvaluator& caller, int depth) override;
  std::optional<std::array<std::int64_t, 3>> dim3_call(const clang::CallExpr* call, LaunchEvaluator& caller,
                                                      int depth) override;

 private:
  struct CallRecord {
    const clang::CallExpr* call = nullptr;
    const clang::FunctionDecl* caller = nullptr;
  };
  void index();
  template <class T, class Eval>
  std::optional<T> from_callers(const clang::VarDecl* var, int depth, Eval eval);
  template <class T, class Eval>
  std::optional<T> through_helper(const clang::CallExpr* call, LaunchEvaluator& caller, int depth, Eval eval);
  void kernels_of(const clang::Expr* e, int depth, std::set<const clang::Decl*>& seen,
                  std::vector<const clang::FunctionDecl*>& out);

  clang::ASTContext& ctx_;
  const SourceMapper& map_;
  bool indexed_ = false;
  // Direct calls in the target file, by callee (canonical declaration).
  std::map<const clang::FunctionDecl*, std::vector<CallRecord>> calls_;
  // Expressions stored into a variable (initialiser, assignments to it, its
  // elements or its fields): where a function pointer's value comes from.
  std::map<const clang::VarDecl*, std::vector<const clang::Expr*>> stored_;
  std::map<const clang::FunctionDecl*, std::set<const clang::VarDecl*>> modified_;
  PathConstraints path_;
  // Parameters of the helpers being evaluated (innermost last).
  std::vector<std::map<const clang::VarDecl*, std::int64_t>> bindings_;
};



}  // namespace warplens::clang_frontend
