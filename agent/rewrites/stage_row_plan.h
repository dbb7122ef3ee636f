// The plan of stage-row-walk (stage_row_walk.cpp, which documents the
// rewrite and its safety conditions): the loops that walk a thread's own
// row, every global access as `p[t * S + i + c]`, and per loop and array
// the offsets accessed. plan_stage_row_walk() checks everything that can be
// checked from the source; the rewrite adds the run-time checks.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/rewrites/kernel_shapes.h"

namespace warplens::agent::rw {

struct StagedAccess {
  const clang::ArraySubscriptExpr* expr = nullptr;
  const clang::ParmVarDecl* array = nullptr;
  std::int64_t offset = 0;
  bool write = false, read = false;
  bool certain = true;  // executed on every iteration of its loop
};

struct StagedLoop {
  const clang::ForStmt* loop = nullptr;
  ForCounter counter;
  bool down = false;
  std::string lo, hi;  // smallest and largest iteration, C text (long long)
  std::vector<StagedAccess> accesses;
};

struct StagedArray {
  const clang::ParmVarDecl* param = nullptr;
  std::string element;  // spelled element type
  std::int64_t size = 0;
  bool written = false;
};

struct StageRowPlan {
  IndexVar t;
  GuardedRegion region;
  std::string bound;  // T
  std::string stride; // S, C text
  std::vector<StagedLoop> loops;
  std::vector<StagedAccess> outside;  // accesses outside the staged loops
  std::vector<StagedArray> arrays;
  const StagedArray* info(const clang::ParmVarDecl* p) const {
    for (const StagedArray& a : arrays)
      if (a.param == p) return &a;
    return nullptr;
  }
};

// Offsets of one array in one loop: [lo, hi] of all, those every iteration
// accesses, and those written.
struct StagedFootprint {
  std::int64_t lo = 0, hi = 0, wlo = 0, whi = 0;
  bool written = false;
};
// Per array, the offsets one loop accesses (StagedFootprint's fields).
std::map<const clang::ParmVarDecl*, StagedFootprint> footprints(const StagedLoop& l);

std::optional<StageRowPlan> plan_stage_row_walk(KernelContext& ctx, std::string& why);

}  // namespace warplens::agent::rw
