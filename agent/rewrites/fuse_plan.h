// What fuse-elementwise found to fuse (one pair of kernels and their
// launches), shared by its 1-D form (fuse_elementwise.cpp) and its 2-D
// form (fuse_two_d.cpp).
#pragma once

#include <string>
#include <vector>

#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/launch_pairs.h"

namespace warplens::agent::rw {

using Pair = LaunchPair;

struct FusionPlan {
  const clang::FunctionDecl* a = nullptr;
  const clang::FunctionDecl* b = nullptr;
  std::vector<Pair> pairs;
  int tmp_in_a = -1, tmp_in_b = -1;
  const clang::BinaryOperator* a_store = nullptr;
  std::vector<const clang::VarDecl*> a_locals;  // A's locals E uses, in declaration order
  IndexVar a_index;
  std::vector<const clang::ArraySubscriptExpr*> b_reads;
  // The 2-D form (two_d_plan): A's and B's x and y global indices; A's
  // value at B's thread is A's value at the same (x, y).
  bool two_d = false;
  const clang::VarDecl *a_x = nullptr, *a_y = nullptr, *b_x = nullptr, *b_y = nullptr;
};

// The 2-D form: fills `p` (from A's store on, the host side included) and
// returns true, or says why not.
bool two_d_plan(const KernelContext& ctx, const KernelContext& ca, const KernelContext& cb, FusionPlan& p, std::string& why);

}  // namespace warplens::agent::rw
