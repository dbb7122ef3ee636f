#include "workflows/analyze_file.h"

#include "workflows/resources.h"

namespace warplens::workflows {

std::vector<Finding> FileAnalysis::findings() const {
  std::vector<Finding> out = result.findings;
  if (resources) out.insert(out.end(), resources->findings.begin(), resources->findings.end());
  return out;
}

FileAnalysis analyze_file(const SourceFile& file, const AnalysisOptions& options, bool resource_usage,
                          std::stop_token stop) {
  FileAnalysis a;
  a.result = analyze(file, options, stop);
  a.resources_skipped = resource_usage ? resource_skip_reason(a.result) : "resource usage was not asked for";
  if (a.resources_skipped.empty()) a.resources = analyze_resources(file, a.result.model, options, stop);
  return a;
}

}  // namespace warplens::workflows
