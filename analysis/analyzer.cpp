#include "analysis/analyzer.h"

#include <chrono>

#include "analysis/frontend.h"
#include "analysis/static_analyses.h"

namespace warplens {

AnalysisResult analyze(const SourceFile& file, const AnalysisOptions& options, std::stop_token stop) {
  AnalysisResult result;
  result.file = file.path;
  auto t0 = std::chrono::steady_clock::now();
  ParseResult parsed = parse_translation_unit(file, options, stop);
  auto t1 = std::chrono::steady_clock::now();
  result.parse_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  result.model = std::move(parsed.model);
  result.findings = std::move(parsed.diagnostics);
  result.toolchain = std::move(parsed.toolchain);
  result.parsed = parsed.parsed;
  result.cancelled = parsed.cancelled || stop.stop_requested();
  if (result.cancelled || !result.parsed || !options.run_static_analyses) return result;
  // Static analyses are added here as they land (coalescing, bank conflicts,
  // divergence, occupancy): each is a function KernelModel -> findings.
  for (auto& f : run_static_analyses(result.model, options, stop)) result.findings.push_back(std::move(f));
  result.analysis_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  return result;
}

}  // namespace warplens
