// How many terms a float sum a rewrite reorders adds, for the candidate's
// reassociation declaration (agent/candidate.h, ReassociatedTerms): the
// kernel's integer parameters and constants whose product a loop bound or
// a guard is, followed through unmodified locals. Anything else is
// "unknown" (an empty product), which the verifier bounds by the elements
// the kernel reads.
#pragma once

#include "agent/rewrites/clang_support.h"

namespace warplens::agent::rw {

// `count`: an expression the number of terms never exceeds (the `E` of
// `k < E` for a loop counting from zero or more).
ReassociatedTerms sum_terms(const KernelContext& ctx, const clang::Expr* count);

// True when `type` is a floating-point type whose sums rounding reorders
// (integer sums are exact in any order: no declaration).
bool reorders_rounding(clang::QualType type);

}  // namespace warplens::agent::rw
