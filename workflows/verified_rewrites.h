// The winners of an optimize job as a door offers them, and applying one.
//
// verified_rewrites(): only candidates the verifier passed at reward level
// >= 2 (correct, more than 5% faster, plausible), fastest first, each with a
// title, the evidence as markdown, and its edits against the exact text the
// job optimised. The job already filters its offers; this checks each offer
// against its own verdict again, because an offer reaching the user
// unverified is the one failure this feature must not have.
//
// The language server turns each into a versioned WorkspaceEdit the editor
// previews and applies on the user's say (server/optimize_rewrites.h); a
// door without an editor (the command line, an MCP tool) applies one with
// apply_verified_rewrite() after the user agreed, and only to the text it
// was verified for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "workflows/optimize.h"

namespace warplens::workflows {

struct VerifiedRewrite {
  std::string candidate_id;
  // "Apply verified rewrite: 3.1× faster (level 2, correct on 5 input sets on NVIDIA H200): pad-shared(pad=1)"
  std::string title;
  std::string summary;              // markdown evidence: plan, checks, timings
  double speedup = 0;
  std::vector<TextEdit> edits;      // against the text the job optimised (engine ranges)
  std::uint64_t base_text_hash = 0; // agent::text_hash of that text
};

std::vector<VerifiedRewrite> verified_rewrites(const OptimizeOutcome& outcome);

// "3.1×" (one decimal; two below 1.1 so 1.06× does not read as 1.1×).
std::string format_speedup(double speedup);

// `text` with the rewrite applied; nullopt with `error` when `text` is not
// the text the rewrite was verified for (edited since), or the edits do not
// fit it.
std::optional<std::string> apply_verified_rewrite(const VerifiedRewrite& rewrite, const std::string& text,
                                                  std::string& error);

// Applies the rewrite to the file at `path` in place (written to a
// temporary file next to it, then renamed over it); false with `error` when
// the file cannot be read or written, or changed since the job read it.
bool apply_verified_rewrite_to_file(const VerifiedRewrite& rewrite, const std::string& path, std::string& error);

}  // namespace warplens::workflows
