// Kernel shapes that several rewrites share: the global index variables
// (`int i = blockIdx.x * blockDim.x + threadIdx.x;`), the bounds guard that
// makes extra threads harmless (`if (i < n) {...}` or `if (i >= n) return;`),
// whether thread identity is used only through those variables, and whether a
// launch provably covers the guarded range.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/rewrites/clang_support.h"

namespace warplens::agent::rw {

struct IndexVar {
  const clang::VarDecl* var = nullptr;
  int dim = 0;                           // blockIdx.d * blockDim.d + threadIdx.d
  const clang::DeclStmt* decl = nullptr;
};

// Unmodified locals of the kernel whose initialiser is a global thread index.
std::vector<IndexVar> global_index_vars(const KernelContext& ctx);
const IndexVar* index_var_for(const std::vector<IndexVar>& vars, const clang::ValueDecl* d);

// True when threadIdx/blockIdx appear only in the initialisers of global index
// variables, and blockDim/gridDim only there or in `gridDim.d * blockDim.d`
// (a grid stride); no called device function uses them either. Then the
// kernel's behaviour depends on a thread only through its global index.
// With allow_block_z, `blockIdx.z` may also be read anywhere (a batch or
// plane index: the same for every thread of a block); allow_block_y the same
// for `blockIdx.y` (a 1-D kernel batched over the grid's y: `int b =
// blockIdx.y;`). A rewrite that allows either keeps that grid dimension and
// a block extent of 1 along it (launches_have_flat_blocks).
bool identity_only_through_index_vars(const KernelContext& ctx, const std::vector<IndexVar>& vars,
                                      std::string& why, bool allow_block_z = false, bool allow_block_y = false);

// True when `s` reads blockIdx.y.
bool reads_block_y(const clang::Stmt* s);

// Every launch's block is 1 along y and z (an integer, or a dim3 whose y and
// z evaluate to 1), so a batch index blockIdx.y or blockIdx.z names whole
// blocks and a new block x keeps the grid's y and z.
bool launches_have_flat_blocks(const KernelContext& ctx, std::string& why);

// The kernel body split around its bounds guard:
//   { prologue...; if (cond) BODY }                 (no else, nothing after)
//   { prologue...; if (exit_cond) return; BODY... }
struct GuardedRegion {
  const clang::IfStmt* guard = nullptr;
  bool early_exit = false;
  std::vector<const clang::Stmt*> prologue;  // declarations before the guard
  std::vector<const clang::Stmt*> body;      // the guarded statements (then-branch contents or the rest)
  const clang::Stmt* then_branch = nullptr;  // for the `if (cond) BODY` form
  // For each index variable, the uniform bound it is checked against (`i < n`).
  std::map<const clang::VarDecl*, const clang::Expr*> bounds;
  bool only_bounds = true;  // the condition has no conjuncts other than the bounds
};
std::optional<GuardedRegion> guarded_region(const KernelContext& ctx, const std::vector<IndexVar>& vars,
                                            std::string& why);

// True when every launch of the kernel starts at least `bound` threads along
// dimension `dim`: the grid is `(E + B - 1) / B` (or a variable holding it)
// with B the block extent and E the argument passed for `bound`, or all values
// are constants and grid * block >= bound. A bound that is a product of
// unmodified integer parameters and constants (`rows * cols`, `N * C * H * W`,
// or an unmodified kernel local holding one) is covered when E is the same
// product of what the launch passes for them: any order or grouping, parts
// held in unmodified host locals, constants multiplied out.
bool launches_cover(const KernelContext& ctx, int dim, const clang::Expr* bound, std::string& why);

// The same for a bound `a * b` given as its two factors.
bool launches_cover_product(const KernelContext& ctx, int dim, const clang::Expr* a, const clang::Expr* b,
                            std::string& why);

// Block shape of every launch when constant and identical; nullopt otherwise.
std::optional<Dim3> constant_block(const KernelContext& ctx);

// Statements of a compound statement, or the statement itself.
std::vector<const clang::Stmt*> statements_of(const clang::Stmt* s);

// True when every statement is a declaration whose initialisers have no
// side effects (no calls except pure math, no assignments).
bool only_pure_declarations(const KernelContext& ctx, const std::vector<const clang::Stmt*>& stmts);

// A warp-level primitive (__shfl*, __ballot*, __any/__all, __activemask,
// __syncwarp, __match*, __reduce*): code that depends on how threads form warps.
bool uses_warp_primitives(const clang::Stmt* s);
bool uses_atomics(const clang::Stmt* s);
// Called functions other than CUDA/math builtins whose body uses thread builtins.
bool calls_thread_dependent_function(const clang::Stmt* s);

// A 2-D kernel with one x and one y global index, both bounds-checked by
// its guard, thread identity used only through them, and no barriers, warp
// primitives, atomics or shared memory: each (x, y) is independent work.
// With allow_batch the kernel may also read `blockIdx.z` (a batch or plane
// index: batched matrix products, per-channel planes) when every launch's
// block is constant with z = 1, so the z grid is exactly the batch. The
// rewrites that accept it keep the z grid and the block's z of 1, and a
// block's threads share one batch, so each batch is the 2-D problem alone.
struct Grid2D {
  std::vector<IndexVar> vars;
  IndexVar x, y;
  GuardedRegion region;
  bool batched = false;  // reads blockIdx.z
};
std::optional<Grid2D> match_grid_2d(const KernelContext& ctx, std::string& why, bool allow_batch = false);

// A kernel whose work is one grid-stride loop written by the user:
//   [declarations]
//   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) BODY
// (any spelling with those affine forms, the counter declared in the header
// or before the loop, changed only by the header; n uniform), nothing after
// the loop, and no thread or grid coordinate anywhere else: then the kernel
// is correct for any grid and each i below n is handled exactly once.
struct GridStrideLoop {
  const clang::ForStmt* loop = nullptr;
  ForCounter index;
  const clang::Expr* bound = nullptr;
  std::vector<const clang::Stmt*> prologue;  // the declarations before the loop
};
std::optional<GridStrideLoop> match_grid_stride_loop(const KernelContext& ctx, std::string& why);

// A one-element-per-thread kernel:
//   [declarations]; int i = blockIdx.x * blockDim.x + threadIdx.x; [declarations]
//   if (i < n) { BODY }        (or `if (i >= n) return; BODY`)
// where thread identity is used only through i, BODY has no barrier, shared
// memory, warp primitive, return or loop-level break, the prologue does not
// depend on i, and every global subscript in BODY is exactly `p[i]` or
// lane-uniform.
struct Elementwise {
  std::vector<IndexVar> vars;
  IndexVar index;  // a copy: the struct is returned and copied freely
  GuardedRegion region;
  const clang::Expr* bound = nullptr;
  // Global pointer parameters accessed at [i], with their roles in BODY.
  struct Array {
    const clang::ParmVarDecl* param = nullptr;
    bool read = false, written = false;
    bool written_unconditionally = false;  // a top-level `p[i] = ...` statement of BODY
    std::vector<const clang::ArraySubscriptExpr*> uses;
  };
  std::vector<Array> arrays;
  // With allow_gathers: reads `q[e]` of pointer parameters at a lane-varying
  // index other than i (broadcasts such as `bias[i % cols]`, lookups), of
  // arrays the kernel never writes.
  std::vector<const clang::ArraySubscriptExpr*> gathers;
  std::set<const clang::ParmVarDecl*> gathered;
  // With allow_scatter_stores: plain stores `q[e] = v` of pointer
  // parameters at a lane-varying index other than i (a permutation written
  // from the input's side), into arrays used nowhere else in the kernel.
  std::vector<const clang::ArraySubscriptExpr*> scatters;
  std::set<const clang::ParmVarDecl*> scattered;
  // With allow_grid_stride_loop: the kernel is the user's own grid-stride
  // loop (match_grid_stride_loop); index.decl and region.guard are null and
  // region.body is the loop's body.
  const clang::ForStmt* user_loop = nullptr;
};
std::optional<Elementwise> match_elementwise(const KernelContext& ctx, std::string& why, bool allow_gathers = false,
                                             bool allow_grid_stride_loop = false, bool allow_scatter_stores = false);

// Every launch in the file passes distinct plain variables for the given
// pointer parameters (no argument twice, no pointer arithmetic).
bool launches_pass_distinct_pointers(const KernelContext& ctx, const std::vector<const clang::ParmVarDecl*>& params,
                                     std::string& why);

// Source text of `s` with every reference to a declaration in `names`
// replaced by the mapped text (for copying code into another scope).
std::optional<std::string> text_with_renames(const KernelContext& ctx, const clang::Stmt* s,
                                             const std::map<const clang::ValueDecl*, std::string>& names);
// Same, also replacing whole sub-expressions (e.g. p[i] -> wl_p[wl_c]).
// With rename_declarations, variables in `names` declared inside s are
// renamed where they are declared too (inlining a function's body).
std::optional<std::string> text_with_replacements(const KernelContext& ctx, const clang::Stmt* s,
                                                  const std::map<const clang::ValueDecl*, std::string>& names,
                                                  const std::map<const clang::Stmt*, std::string>& nodes,
                                                  bool rename_declarations = false);

// What follows statement `s`'s last token and still belongs to it: the `;`
// of an expression statement or of `if (c) x;` (empty after a `}`). Clang's
// ranges stop before it, so code copied statement by statement needs it.
std::optional<std::string> statement_terminator(const KernelContext& ctx, const clang::Stmt* s);
// A whole statement's text, its `;` included, with sub-expressions
// replaced by `nodes` (none by default); nullopt inside a macro.
std::optional<std::string> statement_text(const KernelContext& ctx, const clang::Stmt* s,
                                          const std::map<const clang::Stmt*, std::string>& nodes = {});

// A statement at the top level of the kernel that reduces a __shared__ array
// over the whole block into slot 0: a tree loop proven by symbolic execution
// (warp_shuffle_reduction.cpp), or the shuffle block that rewrite generates.
enum class ReductionOp { Sum, Max, Min };
struct BlockReduction {
  const clang::Stmt* statement = nullptr;
  const clang::VarDecl* shared = nullptr;
  ReductionOp op = ReductionOp::Sum;
  std::string function;  // how Max/Min combine two values: fmaxf, max, fmin...
};
std::optional<BlockReduction> find_block_reduction(const KernelContext& ctx, std::string& why);


// A flattened index polynomial spelled as C over the variables holding the
// y and x global indices (blockIdx.d * blockDim.d + threadIdx.d; an empty
// name: that dimension must not appear), the given loop counters, kernel
// parameters and constants, in 64-bit arithmetic: "(long long)(K) * row +
// (long long)(1) * k". Nullopt when the index depends on anything else.
std::optional<std::string> render_index(const Polynomial& p, const std::string& y_name, const std::string& x_name,
                                        const std::vector<std::pair<Symbol, std::string>>& counters = {});

// The declared type of a kernel local for code written back into the
// kernel: in a template instantiation as the pattern spells it (`T`,
// `const T*`: the edits go to the pattern, which every instantiation
// shares), elsewhere as Clang prints it. unqualified drops a top-level const.
std::string declared_type_spelling(const KernelContext& ctx, const clang::VarDecl* v, bool unqualified);

// True when `s` mentions threadIdx, blockIdx, blockDim or gridDim.
bool contains_any_builtin(const clang::Stmt* s);

// Device helpers wl_vector_load / wl_vector_store (8/16/32-byte accesses of
// V elements), inserted once per file by the rewrites that need them.
const char* vector_helpers_text();

}  // namespace warplens::agent::rw
