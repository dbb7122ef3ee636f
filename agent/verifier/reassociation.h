// A candidate that adds floats in another order than the original (a tree
// of partial sums across lanes instead of one running sum, per-block
// partial sums before one atomic, a warp per row): its results differ from
// the original's by rounding alone, and by more than KernelBench's
// element-wise fp32 tolerance (1e-4 + 1e-4·|expected|) once the sums are
// long. The candidate declares it, with the number of terms its longest
// sum adds (from the launch's arguments), as a product of parameter
// values and constants:
//
//   p3         parameter 3's value          p2*p3*4   a product
//   inputs     unknown: bounded below
//
// The declaration comes from whoever made the candidate and vouches for it
// (the built-in rewrite engine, whose rewrites know which sums they reorder;
// a user with `warplens verify --reassociates`), never from the candidate
// file's own text: a candidate cannot loosen the check it is held to.
// Candidate files carry it as a comment for people
// (`// warplens-reassociates: kernel=NAME terms=p3`, agent/candidate.h).
//
// and the verifier then lets each float output differ, beyond the usual
// tolerance, by what rounding in two orders of an n-term sum explains:
//
//   extra atol = kReassociationLambda · √n · u · S
//
// u the type's unit roundoff (fp32 2^-24), S the largest |expected| of the
// buffer, n the declared terms, never more than the most float elements any
// input allocation of the launch holds (a sum cannot have more terms than
// the values it reads; a declaration cannot loosen more than that). This is
// the probabilistic rounding bound λ√n·u·Σ|x_i| (Higham and Mary, 2019) for
// each of the two orders, with S standing in for Σ|x_i|, which the verifier
// cannot see (S underestimates it when terms cancel, which is why λ is 8:
// two orders at λ = 4). A declaration widens the tolerance only where the
// strict comparison failed by tolerance alone (not NaN, not a stray write,
// not integers), and the verdict names the widened buffer, n and the atol.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/verifier/element_type.h"
#include "agent/verifier/launch_geometry.h"

namespace warplens::verifier {

inline constexpr double kReassociationLambda = 8.0;

struct Reassociation {
  std::vector<Extent> terms;  // multiplied; empty: unknown (the input bound alone)
  bool operator==(const Reassociation&) const = default;
};

// "p3*p2", "inputs": nullopt with `error` when malformed.
std::optional<Reassociation> parse_reassociation(std::string_view terms, std::string* error);
std::string describe(const Reassociation& r);  // "p3*p2", "inputs"

// u: 2^-24 (f32), 2^-11 (f16), 2^-8 (bf16), 2^-53 (f64); 0 for non-floats.
double unit_roundoff(ElementType t);

// n for one launch: the declared product (a missing or non-positive
// parameter counts as unknown), capped at `input_elements`.
std::uint64_t reassociated_terms(const Reassociation& r, const ParamValues& params, std::uint64_t input_elements);

// The extra absolute tolerance for a buffer of type `t` whose largest
// |expected| is `scale`.
double reassociation_atol(ElementType t, std::uint64_t terms, double scale);

}  // namespace warplens::verifier
