// What every Clang rewrite needs: the parsed file, the kernel and its launch
// sites, the lowering of index expressions into warplens's index IR (so
// affine reasoning uses analysis/index_expr.h), the global/shared accesses of
// a statement with their read/write roles, constant evaluation of launch
// shapes, and an edit set that becomes tooling::Replacements.
//
// This header and clang_support.cpp are the only shared Clang code of the
// engine; each rewrite is one .cpp beside them (rewrite.h is the interface).
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Lex/Lexer.h>
#include <clang/Tooling/Core/Replacement.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/candidate.h"
#include "agent/rewrite_engine.h"
#include "analysis/clang/expr_lowering.h"
#include "analysis/clang/parsed_ast.h"
#include "analysis/clang/source_mapper.h"
#include "analysis/index_expr.h"

namespace warplens::agent::rw {

// ---- parsing --------------------------------------------------------------------

// The file as the analysis front end parsed it (analysis/clang/parsed_ast.h):
// its command line, AST, kernel model and diagnostics. The rewrites edit this
// AST and read the model's facts (and the static analyses' findings on it),
// so they never disagree with what the editor shows.
struct ParsedFile {
  std::unique_ptr<ParsedAst> ast;
  std::unique_ptr<clang_frontend::SourceMapper> mapper;  // the target file's ranges
  std::string path;
  std::string text;
  AnalysisOptions options;
  clang::ASTContext& ctx() const { return ast->unit->getASTContext(); }
  clang::SourceManager& sm() const { return ast->unit->getSourceManager(); }
  const clang::LangOptions& lang() const { return ast->unit->getLangOpts(); }
  const KernelModel& model() const { return ast->result.model; }
  // The static analyses' findings on the model (bank conflicts with their
  // padding fixes, uncoalesced accesses, ...), computed once on first use.
  const std::vector<Finding>& findings() const;
  // The model's function for a kernel declaration (its key), or null.
  const Function* model_function(const clang::FunctionDecl* kernel) const;
  // Names fresh_name() handed out since the last forget_issued_names(): one
  // rewrite asking for the same stem twice (a loop counter `c` and the local
  // copy of a parameter `c`) must get two names. run_apply() forgets them
  // before each rewrite.
  bool issued(const std::string& name) const { return issued_names_.count(name) != 0; }
  void issue(const std::string& name) const { issued_names_.insert(name); }
  void forget_issued_names() const { issued_names_.clear(); }

 private:
  mutable std::optional<std::vector<Finding>> findings_;
  mutable std::set<std::string> issued_names_;
};

// Parses with the analysis front end (same compile command, toolkit, arch
// and prelude). Returns null with `error` set when Clang cannot run or the
// file has errors: rewriting broken code is refused.
std::unique_ptr<ParsedFile> parse_file(const SourceFile& file, const EngineOptions& options, std::string& error,
                                       std::stop_token stop = {});

// All __global__ function definitions written in the main file.
std::vector<const clang::FunctionDecl*> kernels_in(const ParsedFile& file);

// ---- small AST helpers ----------------------------------------------------------

const clang::Expr* strip(const clang::Expr* e);  // parens, implicit casts, explicit integral casts
bool is_main_file(const ParsedFile& f, clang::SourceLocation loc);

// threadIdx.x and friends: kind (ThreadIdx/BlockIdx/BlockDim/GridDim) and dimension.
struct BuiltinRef {
  SymbolKind kind;
  int dim;
};
std::optional<BuiltinRef> as_builtin(const clang::Expr* e);

// `__syncthreads()`, `__syncwarp()`, cooperative-groups sync: any barrier call.
bool is_barrier_call(const clang::Stmt* s);
bool contains_barrier(const clang::Stmt* s);
bool contains_return(const clang::Stmt* s);
bool contains_thread_builtin(const clang::Stmt* s);  // threadIdx/blockIdx (not blockDim/gridDim)
bool contains_call_named(const clang::Stmt* s, const std::function<bool(const std::string&)>& pred);
bool refers_to(const clang::Stmt* s, const clang::ValueDecl* d);
// DeclRefExprs inside `s` that refer to `d`.
std::vector<const clang::DeclRefExpr*> references_to(const clang::Stmt* s, const clang::ValueDecl* d);

// ---- memory accesses ----------------------------------------------------------

struct Access {
  const clang::ArraySubscriptExpr* expr = nullptr;  // outermost subscript (a[i][j] as one)
  const clang::ValueDecl* base = nullptr;           // the array/pointer variable, null if not a plain name
  std::vector<const clang::Expr*> indices;          // outermost dimension first
  bool is_shared = false;                           // base is a __shared__ variable
  bool is_param = false;                            // base is a parameter of the function
  bool read = false, write = false;
  const clang::MemberExpr* member = nullptr;        // p[i].field
  // Filled by accesses_in(ctx, ...): the root the address is computed from
  // (through pointer locals: `yr[c]` with `float* yr = y + off` -> y) and the
  // index in elements of that root; null / nullptr when not followed.
  const clang::ValueDecl* root = nullptr;
  bool root_is_param = false;   // global memory through a kernel pointer parameter
  ExprRef flat_index;
};
std::vector<Access> collect_accesses(const clang::Stmt* root);

// Variables whose value changes after their declaration inside `body`
// (assigned, incremented, address taken, bound to a non-const reference;
// the variable or a field of it held by value: `a.n = 0` changes `a`).
std::set<const clang::VarDecl*> modified_variables(const clang::Stmt* body);

// Whether `v` holds the same value at `second` as at `first` (which comes
// before it in `body`, the function that declares v): no assignment or
// increment of v between them, none in a loop that repeats `second` without
// `first`, its address never taken, no reference bound to it, no goto. The
// host-side case: `if (argc > 1) n = atoi(argv[1]); int blocks = (n + 255) /
// 256; k<<<blocks, 256>>>(n);` passes the same n to the grid and the kernel.
bool keeps_value_between(const clang::VarDecl* v, const clang::Stmt* body, const clang::Stmt* first,
                         const clang::Stmt* second, const clang::SourceManager& sm);

// ---- the kernel under rewrite ----------------------------------------------------

// The counter of a `for` loop: declared in the header (`for (int k = 0; ...)`)
// or before the loop and initialised by the header (`int j; for (j = 0; ...)`)
// when every use of it is inside loops whose headers initialise it (so its
// value after a loop is never read).
struct ForCounter {
  const clang::VarDecl* var = nullptr;
  const clang::Expr* init = nullptr;  // the initial value as written (a replaceable node)
  bool declared_in_header = false;
};

class KernelContext {
 public:
  KernelContext(ParsedFile& file, const clang::FunctionDecl* kernel);

  ParsedFile& file;
  const clang::FunctionDecl* kernel;
  const clang::CompoundStmt* body;
  const Function* model = nullptr;                          // the analysis model's view, or null
  std::vector<const clang::CUDAKernelCallExpr*> launches;  // main-file launches of this kernel
  std::set<const clang::VarDecl*> modified;                // in the kernel body

  clang::ASTContext& ctx() const { return file.ctx(); }
  clang::SourceManager& sm() const { return file.sm(); }

  // Source text of a node / token range as written (nullopt across macro boundaries).
  std::optional<std::string> text(clang::SourceRange r) const;
  std::optional<std::string> text(const clang::Stmt* s) const { return text(s->getSourceRange()); }
  std::optional<clang::CharSourceRange> char_range(clang::SourceRange r) const;
  unsigned offset(clang::SourceLocation loc) const;  // in the main file (expansion location)
  // Text between two offsets of the main file.
  std::string slice(unsigned begin, unsigned end) const { return file.text.substr(begin, end - begin); }
  // Offset just after a statement, including its terminating `;` when the
  // statement's own range stops before it (expression statements, `if (c) x;`).
  unsigned offset_after_statement(const clang::Stmt* s) const;
  // Column of the first non-blank character of the line holding `loc` (for indentation).
  std::string indentation_at(clang::SourceLocation loc) const;

  // Lowers an expression of the kernel into the index IR with the analysis'
  // own lowering (analysis/clang/expr_lowering.h: casts, helpers, cooperative
  // groups, struct parameters, constants exactly as the diagnostics see
  // them). Locals that are never modified stand for their initialisers
  // (pointer locals for the address they hold), loop counters become
  // LoopCounter symbols named after the variable, anything else a
  // lane-varying Local or an Opaque leaf.
  ExprRef lower(const clang::Expr* e) const;
  std::optional<Polynomial> polynomial(const clang::Expr* e) const;

  // Where an lvalue (`a[i]`, `xr[c]`, `*p`) points: its root (a parameter, a
  // __shared__ array, a local array) followed through pointer locals and
  // pointer arithmetic, and its index in elements of that root
  // (`const float* xr = x + r * cols; xr[c]` -> x, r * cols + c).
  std::optional<clang_frontend::Address> address(const clang::Expr* lvalue) const;

  // The counter of a loop (see ForCounter), or nullopt.
  std::optional<ForCounter> for_counter(const clang::ForStmt* loop) const;

  // Integer constant value, looking through unmodified locals' initialisers.
  std::optional<std::int64_t> eval_int(const clang::Expr* e) const;

  // The parameter index of `d` in the kernel, or -1.
  int param_index(const clang::ValueDecl* d) const;

 private:
  std::map<const clang::ForStmt*, ForCounter> counters_;
  std::set<const clang::VarDecl*> loop_variables_;
  std::unique_ptr<clang_frontend::Lowering> lowering_;
  std::unique_ptr<clang_frontend::Env> env_;
};

// collect_accesses with the roots and flattened indices resolved (Access::root).
std::vector<Access> accesses_in(const KernelContext& ctx, const clang::Stmt* root);

// Polynomial shape tests.
Symbol builtin_symbol(SymbolKind kind, int dim);
// True when p == blockIdx.d * blockDim.d + threadIdx.d.
bool is_global_id(const Polynomial& p, int dim);
// Coefficient of a symbol in p as a polynomial over the others (nullopt: not linear in it).
std::optional<Polynomial> coefficient(const Polynomial& p, const Symbol& s);
bool is_constant(const Polynomial& p, std::int64_t value);
// True when no monomial mentions threadIdx or a lane-varying local.
bool is_uniform(const Polynomial& p);

// ---- launch sites ---------------------------------------------------------------

struct LaunchConfig {
  const clang::Expr* grid = nullptr;
  const clang::Expr* block = nullptr;
  const clang::Expr* shared_bytes = nullptr;  // null when omitted
  const clang::Expr* stream = nullptr;        // null when omitted
};
LaunchConfig launch_config(const clang::CUDAKernelCallExpr* launch);

// Value of a grid/block argument: an integer or a dim3 (constructor, or an
// unmodified dim3 variable). Uses `host` for variable lookups.
std::optional<Dim3> eval_dim3(const ParsedFile& file, const clang::Expr* e);

// Integer value of a host expression: constants, unmodified locals' initialisers,
// `.x/.y/.z` of constant dim3 variables, + - * / of those.
std::optional<std::int64_t> host_int(const ParsedFile& file, const clang::Expr* e);

// The function (host) that contains a launch.
const clang::FunctionDecl* enclosing_function(const ParsedFile& file, const clang::Stmt* s);

// ---- edits ------------------------------------------------------------------------

class Edits {
 public:
  explicit Edits(const ParsedFile& file) : file_(file) {}
  // All return false (and set error()) for macro-spanning ranges or overlaps.
  bool replace(clang::SourceRange token_range, const std::string& text);
  bool replace(const clang::Stmt* s, const std::string& text) { return replace(s->getSourceRange(), text); }
  bool replace_offsets(unsigned begin, unsigned end, const std::string& text);
  bool insert(clang::SourceLocation loc, const std::string& text);          // before the character at loc
  bool insert_after(clang::SourceLocation token_loc, const std::string& text);  // after the token at loc
  bool insert_at_offset(unsigned offset, const std::string& text);
  const std::string& error() const { return error_; }
  // As tooling::Replacements (insertions at one offset are merged in the order made).
  clang::tooling::Replacements replacements() const;
  // The rewritten text; nullopt (with error()) when the replacements do not apply.
  std::optional<std::string> result() const;

 private:
  struct Change {
    unsigned offset, length;
    std::string text;
  };
  const ParsedFile& file_;
  std::vector<Change> changes_;
  std::string error_;
};

// Host-side launch helpers (namespace wl_launch) that implement the
// LaunchChange rule in the program: inserted once per file, after the last
// top-level #include. Returns false if no insertion point was found.
bool ensure_launch_helpers(const ParsedFile& file, Edits& edits);

// Rewrites the <<<grid, block>>> of every launch of `ctx.kernel` to apply
// `change`; requires the helpers above. Fails when a launch is in a macro.
bool rewrite_launches(KernelContext& ctx, const LaunchChange& change, Edits& edits, std::string& error);
// Whether the kernel's __launch_bounds__ (if any) admits blocks of `threads`:
// a larger block would not launch (cudaErrorInvalidValue). rewrite_launches
// checks every new block with it; rewrites check before proposing.
bool launch_bounds_admit(const KernelContext& ctx, std::int64_t threads, std::string& why);

// Checks that a kernel's launches can be rewritten: at least one, all in the
// main file, none inside a macro expansion.
bool launches_rewritable(const KernelContext& ctx, std::string& why);

// Inserts `text` (a complete declaration) right before the kernel definition
// (before its template header/attributes), on its own lines.
bool insert_before_kernel(const KernelContext& ctx, Edits& edits, const std::string& text);

// Byte offset of a (0-based line, byte column) position in `text`; nullopt
// past the end. Findings' ranges are in these terms.
std::optional<unsigned> offset_of(const std::string& text, Position p);

// Unique identifier prefixed `wl_` not used anywhere in the file.
std::string fresh_name(const ParsedFile& file, const std::string& stem);

// Element type spelling of a pointer parameter ("float" for `const float*`).
std::string pointee_spelling(const clang::ParmVarDecl* p);

}  // namespace warplens::agent::rw
