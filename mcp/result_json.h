// The JSON the analysis tools return, built here from the engine's types:
// mcp/ is a door of its own and uses none of server/'s LSP views
// (docs/architecture.md). The shapes follow `warplens check --format json`
// and `warplens report --format json` (docs/formats/report.md) where they
// overlap, so an agent and a script read the same names: ranges are 0-based
// lines and UTF-16 characters, as LSP and MCP clients count them.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/analyzer.h"
#include "analysis/occupancy_findings.h"

namespace warplens::mcp {

// Converts engine ranges (UTF-8 byte columns) to UTF-16 columns. The
// analysed file's text is given; other files (headers) are read when they
// are inside `root`, else their columns are left as bytes.
class RangeConverter {
 public:
  RangeConverter(std::string path, std::string text, std::string root);
  nlohmann::json range(const std::string& file, const Range& r);  // {start: {line, character}, end: ...}
  nlohmann::json range(const Range& r) { return range(path_, r); }
  const std::string& path() const { return path_; }

 private:
  const std::string* text_of(const std::string& file);
  std::string path_, root_;
  std::map<std::string, std::shared_ptr<std::string>> texts_;  // null: not read
};

// {code, severity, source, message, file, range, numbers, kernel?, docs?}:
// `numbers` is the finding's evidence, `docs` its page in `docs_dir`
// (docs/diagnostics/<code>.md) as a file URI when that page exists.
nlohmann::json finding_json(const Finding& finding, RangeConverter& convert, const std::string& docs_dir);

// A function of the kernel model: name, key, signature, kind, range,
// launchBounds, params, sharedArrays, accesses (with their index expression
// as a tree and in affine form), barriers, loops.
nlohmann::json function_json(const Function& f, RangeConverter& convert);
nlohmann::json launch_json(const LaunchSite& l, RangeConverter& convert);
// One kernel's resources and occupancy (docs/occupancy.md's keys).
nlohmann::json kernel_resources_json(const KernelResourceReport& r);
// The nvcc run behind them: {status, message, compiledArch, gpu}.
nlohmann::json resource_usage_json(const OccupancyAnalysis& a);

}  // namespace warplens::mcp
