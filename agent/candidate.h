// A candidate: one proposed rewrite of a kernel, as data.
//
// Every policy (the built-in rewrite engine, the LLM policy) produces these,
// and every one goes through the same verifier. A candidate is always the
// full rewritten source file plus how it was made (named rewrites and their
// parameters, or "free-form" for the LLM), the minimal edits against the
// original (what the editor applies), and how its launches differ.
//
// Launch changes are declared, never hidden in host code: a verifier that
// replays captured launches (issue 7) reshapes the grid from the declaration
// with exactly the rule documented on LaunchChange; a self-checking program
// gets the same rule through the host-code edit the rewrite made.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/findings.h"

namespace warplens::agent {

// One application of a named rewrite: "block-size(x=256)".
struct RewriteStep {
  std::string rewrite;                         // stable name, e.g. "pad-shared"
  std::map<std::string, std::int64_t> params;  // e.g. {"pad": 1}
  std::string to_string() const;
  bool operator==(const RewriteStep&) const = default;
};
using RewritePlan = std::vector<RewriteStep>;
std::string to_string(const RewritePlan& plan);  // "swap-thread-mapping() + unroll(factor=4)"

struct Dim3 {
  std::int64_t x = 1, y = 1, z = 1;
  bool operator==(const Dim3&) const = default;
};

struct Ratio {
  std::int64_t num = 1, den = 1;
  bool operator==(const Ratio&) const = default;
};

// How a rewritten kernel must be launched, relative to the original launch
// (grid G, block B). Per dimension d, after swapping x and y of G and B when
// swap_xy is set:
//   threads_d = ceil(G_d * B_d * scale_d.num / scale_d.den)
//   grid_d'   = ceil(threads_d / block_d')        (block' = block or B)
// and, when persistent_blocks_per_sm > 0 (the kernel is a grid-stride loop
// and correct for any grid), grid_x' = min(grid_x', SM count * that number).
// With the default values nothing changes. Several changes for one kernel
// apply in order, each to the shape the previous one produced (that is what
// the host-code edits of successive rewrites do).
// A thread count taken from a launch's arguments: the value of the kernel's
// integer parameter `param` (by index), or `constant` when param < 0.
struct ParamExtent {
  int param = -1;
  std::int64_t constant = 0;
  bool operator==(const ParamExtent&) const = default;
};

struct LaunchChange {
  std::string kernel;                  // the kernel whose launches change
  std::optional<Dim3> block;           // new block shape; nullopt keeps B
  bool swap_xy = false;                // the kernel's x and y roles were exchanged
  std::array<Ratio, 3> thread_scale{};  // threads per original thread, per dimension
  int persistent_blocks_per_sm = 0;
  // The grid sized from the arguments instead of from the previous grid:
  // cover[0] x cover[1] threads in blocks of the new block, z = 1 (a flat
  // index `i < M * N` made 2-D: unflatten-index). thread_scale is unused then.
  std::optional<std::array<ParamExtent, 2>> cover;
  bool operator==(const LaunchChange&) const = default;
};

// The rule above, for a verifier replaying a launch (grid, block).
struct LaunchShape {
  Dim3 grid, block;
};
// A change with `cover` reads the launch's integer arguments from `args`
// (by parameter index; a missing one counts as 1 thread).
LaunchShape reshape_launch(const LaunchChange& change, const LaunchShape& original, int sm_count,
                           const std::map<int, std::int64_t>& args = {});

// One-line declaration, written at the top of candidate files:
//   // warplens-launch: kernel=NAME block=32,8,1 swap-xy=0 scale=1/1,1/4,1/1 persistent=0
// ("block=same" keeps the original block), with ` cover=p4,p3` (parameter
// indices or constants) when the grid is sized from the arguments.
std::string format_launch_declaration(const LaunchChange& change);
std::optional<LaunchChange> parse_launch_declaration(std::string_view line);

// Issue 9: two back-to-back element-wise launches (first, second) replaced by
// one launch of `fused_kernel`. Its parameters are the first kernel's
// parameters followed by the second's, minus the second's parameter that
// received the temporary: a verifier replaying captures of both launches
// passes `params` in that order. The temporary (first.`elided`) is no longer
// written: its contents after the fused launch are unspecified.
struct FusionDeclaration {
  std::string fused_kernel;
  std::string first, second;
  struct ParamSource {
    int launch = 0;  // 0 = first, 1 = second
    int index = 0;   // parameter index in that kernel
    bool operator==(const ParamSource&) const = default;
  };
  std::vector<ParamSource> params;
  int elided = -1;  // index of the first kernel's parameter that held the temporary
  bool operator==(const FusionDeclaration&) const = default;
};
//   // warplens-fused: kernel=F first=A second=B params=A0,A1,A3,B1,B2 elides=A2
std::string format_fusion_declaration(const FusionDeclaration& fusion);
std::optional<FusionDeclaration> parse_fusion_declaration(std::string_view line);

// Float sums the rewrite adds in another order than the original (partial
// sums per lane or per block): the number of terms of the longest one, as a
// product of the kernel's integer parameters and constants (empty: unknown,
// bounded by the elements the kernel reads). The verifier widens its
// tolerance by what rounding in such a sum explains
// (agent/verifier/reassociation.h); the declaration is written as
//   // warplens-reassociates: kernel=NAME terms=p3*p2
using ReassociatedTerms = std::vector<ParamExtent>;
std::string format_reassociation_declaration(const std::string& kernel, const ReassociatedTerms& terms);
// Two rewrites' declarations combined: one of them, or unknown when both
// declare different sums.
std::optional<ReassociatedTerms> combine_reassociations(const std::optional<ReassociatedTerms>& a,
                                                        const std::optional<ReassociatedTerms>& b);

struct Candidate {
  std::string id;                 // unique within a job, e.g. "c07"
  std::string kernel;             // the kernel being optimised (original name)
  std::string result_kernel;      // the kernel to time in the candidate (differs after fusion)
  std::string policy;             // "builtin", "llm", "directory"
  RewritePlan plan;               // empty for free-form (LLM) edits
  std::string description;        // one line for people
  std::string source;             // the full rewritten file
  std::vector<TextEdit> edits;    // minimal edits against the original text
  std::vector<LaunchChange> launch_changes;  // applied in order, each to the previous result
  std::optional<FusionDeclaration> fusion;
  std::optional<ReassociatedTerms> reassociation;  // set: float sums reordered (see above)
  std::vector<std::string> notes;  // safety conditions checked, assumptions made
  double predicted_gain = 1.0;     // the policy's guess, for ordering only; never shown as a result
};

// The header written above a candidate's source in a candidates directory:
// its plan, notes and declarations, all as comments.
std::string candidate_file_header(const Candidate& c);
// Launch and fusion declarations found in a candidate file's text.
std::vector<LaunchChange> find_launch_declarations(std::string_view text);
std::optional<FusionDeclaration> find_fusion_declaration(std::string_view text);

}  // namespace warplens::agent
