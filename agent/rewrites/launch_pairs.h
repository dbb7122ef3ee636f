// Host-side launch pairs for fusion (fuse-elementwise): consecutive
// launches, the error checks that may stand between them, and the uses of a
// temporary buffer that only the two launches may touch.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "agent/rewrites/kernel_shapes.h"

namespace warplens::agent::rw {

struct LaunchPair {
  const clang::CUDAKernelCallExpr* first = nullptr;
  const clang::CUDAKernelCallExpr* second = nullptr;
};

// Every kernel launch in the main file, in source order.
std::vector<const clang::CUDAKernelCallExpr*> all_launches(const ParsedFile& f);

// The statement that follows `s` in its enclosing compound statement.
const clang::Stmt* next_statement(const ParsedFile& f, const clang::Stmt* s);

// An error check between two launches (see the definition): `own` are the
// declarations it may name (a checking function's parameters).
bool is_error_check(const clang::Stmt* s, std::set<const clang::Decl*> own = {}, int depth = 0);

// The next launch after `l` in its compound statement, past error checks.
const clang::CUDAKernelCallExpr* next_launch(const ParsedFile& f, const clang::CUDAKernelCallExpr* l);

// The local variable (not a parameter) a launch argument names, or nullptr.
const clang::VarDecl* local_var(const clang::Expr* arg);

// The launch configuration as written (`grid, block[, shared[, stream]]`);
// "" when part of it is not plain source text.
std::string config_text(const KernelContext& ctx, const clang::CUDAKernelCallExpr* l);

// The declaration a launch of kernel `k` passes for its parameter `q` when
// it is a plain variable (casts aside), else nullptr.
const clang::Decl* argument_decl(const clang::CUDAKernelCallExpr* l, const clang::FunctionDecl* k,
                                 const clang::ParmVarDecl* q);

// Two launch arguments that are the same variable, or the same text.
bool same_argument(const KernelContext& ctx, const clang::Expr* x, const clang::Expr* y);

// True when the temporary `v` (a local of the launching function) is used
// only by its cudaMalloc, cudaFree, assignments to it and the launches of
// `pairs`; otherwise `why` names the other use.
bool temporary_used_only_by(const KernelContext& ctx, const std::vector<LaunchPair>& pairs, const clang::VarDecl* v,
                            std::string& why);

}  // namespace warplens::agent::rw
