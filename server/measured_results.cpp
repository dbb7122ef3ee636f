#include "server/measured_results.h"

#include "profiler/measured_findings.h"

namespace warplens::server {

namespace prof = warplens::profile;

MeasuredDocument measure_document(std::shared_ptr<const prof::Profile> profile, std::string origin,
                                  const Document& document, const KernelModel* model) {
  MeasuredDocument m;
  m.origin = std::move(origin);
  m.version = document.version;
  m.text = document.text.text();
  prof::MeasuredFindingsRequest request;
  request.file = document.path;
  request.text = m.text;
  request.model = model;
  m.findings = prof::measured_findings(*profile, request);
  m.kernels = prof::kernel_summaries(*profile, model);
  for (auto& k : m.kernels) k.function = nullptr;
  m.profile = std::move(profile);
  return m;
}

bool profile_covers(const prof::Profile& profile, const std::string& document_path) {
  const std::string* last = nullptr;  // lines are sorted by file: test each file once
  for (const auto& line : profile.lines) {
    if (last && *last == line.file) continue;
    last = &line.file;
    if (prof::same_source_file(profile, line.file, document_path)) return true;
  }
  return false;
}

bool measured_current(const MeasuredDocument& measured, const Document& document) {
  // The text decides, not the version number: a document reopened without
  // a close starts its versions again.
  return document.text.text() == measured.text;
}

std::string stale_prefix(std::int64_t measured_version) {
  return "(stale: measured on version " + std::to_string(measured_version) + ") ";
}

std::vector<Finding> measured_findings_for(const MeasuredDocument& measured, const Document& document) {
  if (measured_current(measured, document)) return measured.findings;
  std::vector<Finding> out;
  for (Finding f : measured.findings) {
    if (f.location.range.start.line >= document.text.line_count()) continue;  // the line is gone
    f.message = stale_prefix(measured.version) + f.message;
    if (f.severity == Severity::Error || f.severity == Severity::Warning) f.severity = Severity::Information;
    f.data.set("stale", true);
    f.data.set("measured_version", measured.version);
    out.push_back(std::move(f));
  }
  return out;
}

const prof::KernelSummary* measured_kernel(const MeasuredDocument& measured, const KernelModel& model,
                                           const Function& kernel) {
  for (const auto& s : measured.kernels)
    if (prof::find_model_kernel(model, s.name) == &kernel) return &s;
  return nullptr;
}

}  // namespace warplens::server
