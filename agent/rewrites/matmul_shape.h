// The shape tile-k-loop and register-tile share: a 2-D kernel where each
// thread (row, col) reduces over k a function of two operands, one indexed by
// (row, k) and one by (k, col) (the naive matrix product and its relatives):
//
//   int row = blockIdx.y * blockDim.y + threadIdx.y;
//   int col = blockIdx.x * blockDim.x + threadIdx.x;
//   if (row < M && col < N) {
//     <declarations>                           (memory reads allowed: see `pre_reads`)
//     for (k = 0; k < K; ++k) acc += E(A[f(row, k)], B[g(k, col)]);
//     <anything: runs under the original guard>
//   }
//
// Operands may be written through row pointers (`const float* a = A + row * K;
// a[k]`) or size_t casts: their index is the analysis' flattened index in
// elements of the parameter, and the rewrites spell it again over row, col
// and k (`operand.spelling`).
#pragma once

#include <algorithm>
#include <stdexcept>

#include "agent/rewrites/kernel_shapes.h"

namespace warplens::agent::rw {

struct MatmulOperand {
  const clang::ArraySubscriptExpr* load = nullptr;
  const clang::ParmVarDecl* param = nullptr;
  std::string type;           // element type as written ("float")
  bool k_contiguous = false;  // coefficient of k is 1 (else the row/col coefficient is 1)
  // The load spelled over the row/col/k variables' names, parameters and
  // constants: valid wherever row, col and k are (re)declared.
  std::string spelling;
};

struct MatmulShape {
  std::vector<IndexVar> vars;
  IndexVar row, col;  // row: dim 1, col: dim 0
  GuardedRegion region;
  const clang::Expr* row_bound = nullptr;
  const clang::Expr* col_bound = nullptr;
  std::vector<const clang::Stmt*> pre, post;
  std::vector<const clang::Stmt*> pre_reads;  // the declarations of `pre` that read memory
  const clang::ForStmt* loop = nullptr;
  ForCounter k;
  const clang::Expr* k_bound = nullptr;
  const clang::Stmt* update = nullptr;  // acc += E
  const clang::Expr* value = nullptr;   // E
  const clang::VarDecl* acc = nullptr;
  // A temporary the loop body declares first (`float d = A[..] - B[..];
  // acc += d * d;`): its initialiser holds the two operands and E names it.
  const clang::VarDecl* temp = nullptr;
  MatmulOperand a, b;
};

std::optional<MatmulShape> match_matmul(const KernelContext& ctx, std::string& why);

// One accumulation as the rewrites emit it: `ACC += E;` with the operand
// loads replaced by `loads`, or, with a temporary, `{ const T d = INIT;
// ACC += E; }`. Nullopt when part of it is spelled in a macro.
std::optional<std::string> accumulation_text(const KernelContext& ctx, const MatmulShape& m, const std::string& acc,
                                             const std::map<const clang::Stmt*, std::string>& loads);

// The text of a statement as written, with its `;`.
std::string statement_with_semicolon(const KernelContext& ctx, const clang::Stmt* s);

// A declaration of `pre` that reads memory, with each initialiser guarded
// by `guard` (`float c0 = (guard) ? (C[i]) : static_cast<float>(0);`), so that
// threads outside the bounds never read. Single scalar declarations only;
// nullopt otherwise.
std::optional<std::string> guarded_declaration(const KernelContext& ctx, const clang::Stmt* decl,
                                               const std::string& guard);

}  // namespace warplens::agent::rw
