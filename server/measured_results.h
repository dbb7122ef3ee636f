// A profile's results for one open document, pinned to the document
// version they were measured on.
//
// The hardware measured the program built from one text. While the
// document still has that text, its measured findings are published as
// they are. After an edit they are *stale*: still shown (the numbers remain
// useful while the user works on a fix), but never as if current:
//   - the message starts with "(stale: measured on version N) ",
//   - warnings and errors become information,
//   - `data.stale` is true and `data.measured_version` is N,
//   - findings whose line no longer exists are dropped,
// and code lenses and hovers say "stale" too. Undoing back to the measured
// text makes them current again. warplens.clearProfile removes them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "analysis/kernel_model.h"
#include "profiler/kernel_summary.h"
#include "profiler/profile_data.h"
#include "server/document_store.h"

namespace warplens::server {

struct MeasuredDocument {
  std::shared_ptr<const profile::Profile> profile;
  std::string origin;            // "profiled `./app` on NVIDIA H200", "recorded profile /p.json"
  std::int64_t version = 0;      // the document version measured
  std::string text;              // that version's text
  std::vector<Finding> findings; // placed on that text
  // Per kernel; KernelSummary::function is cleared (the model it pointed into
  // is not kept): kernels are matched to a model by name when shown.
  std::vector<profile::KernelSummary> kernels;
};

// Places `profile`'s results on `document`: measured_findings (with the
// document's static model when there is one for exactly this text, so a
// store's finding covers the store, not the load beside it) and kernel
// summaries.
MeasuredDocument measure_document(std::shared_ptr<const profile::Profile> profile, std::string origin,
                                  const Document& document, const KernelModel* model);

// Does the profile hold line records or kernels for this document's file?
bool profile_covers(const profile::Profile& profile, const std::string& document_path);

// True when `document` has the text the results were measured on.
bool measured_current(const MeasuredDocument& measured, const Document& document);

// "(stale: measured on version N) "
std::string stale_prefix(std::int64_t measured_version);

// The findings to publish with `document`: as measured, or marked stale.
std::vector<Finding> measured_findings_for(const MeasuredDocument& measured, const Document& document);

// The summary of `kernel` (a kernel of `model`), or null.
const profile::KernelSummary* measured_kernel(const MeasuredDocument& measured, const KernelModel& model,
                                              const Function& kernel);

}  // namespace warplens::server
