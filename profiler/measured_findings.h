// Measured results as findings on the exact source lines.
//
// A profile's per-line records become warplens::Findings with source
// "warplens-profile", reusing the static analyses' codes so the editor shows
// prediction and measurement under one name:
//   uncoalesced-global    global sectors per request above ideal
//   shared-bank-conflict  shared wavefronts above ideal (n-way conflicts)
//   warp-divergence       branch executions whose active threads split
//   register-spill        local-memory traffic (spills, local arrays)
//
// Placement: the hardware reports lines, not columns. With a KernelModel of
// the document the finding covers the statically found access of the same
// space and direction on that line (a store's finding on `o[x*N+y]`, not on
// the load beside it); branches cover the condition on that line. Without a
// model, or when nothing matches, it covers the whole line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/findings.h"
#include "analysis/kernel_model.h"
#include "profiler/profile_data.h"

namespace warplens::profile {

struct MeasuredFindingsOptions {
  double min_sector_excess = 1.25;     // actual/ideal sectors at or above which a line is reported
  double min_conflict_ways = 2.0;      // actual/ideal shared wavefronts
  double min_divergent_fraction = 0.1; // divergent / (divergent + uniform) branch executions
  double min_share = 0.01;             // a line's share of its kernel's traffic below which it stays quiet
};

struct MeasuredFindingsRequest {
  // The document: only its lines are reported, and findings carry this
  // path. Matched against the profile's paths exactly, then canonically,
  // then by file name when the profile holds one file of that name (a
  // profile recorded in another checkout). Empty: every file, with the
  // profile's paths.
  std::string file;
  std::string_view text;               // the document's text, for whole-line ranges (may be empty)
  const KernelModel* model = nullptr;  // its static model, for precise ranges (optional)
};

std::vector<Finding> measured_findings(const Profile& profile, const MeasuredFindingsRequest& request,
                                       const MeasuredFindingsOptions& options = {});

// Does the profile's `profile_path` name the document at `document_path`?
// (The matching rules above; exposed for the server's stale handling.)
bool same_source_file(const Profile& profile, const std::string& profile_path,
                      const std::string& document_path);

}  // namespace warplens::profile
