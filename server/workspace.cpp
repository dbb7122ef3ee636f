#include "server/workspace.h"

#include <filesystem>

namespace warplens::server {

std::string Workspace::folder_for(const std::string& path) const {
  std::string best;
  for (const auto& folder : folders_) {
    std::string prefix = folder.empty() || folder.back() == '/' ? folder : folder + "/";
    if (path.rfind(prefix, 0) == 0 && folder.size() > best.size()) best = folder;
  }
  return best.empty() ? std::filesystem::path(path).parent_path().string() : best;
}

AnalysisOptions Workspace::analysis_options() const {
  // fallbackFlags' relative paths: against the (first) workspace folder.
  AnalysisOptions o = to_analysis_options(settings_, folders_.empty() ? "" : folders_.front());
  o.allowed_drivers.insert(o.allowed_drivers.end(), options_.allowed_drivers.begin(), options_.allowed_drivers.end());
  o.workspace_roots = folders_;
  return o;
}

std::chrono::milliseconds Workspace::debounce() const {
  return settings_.debounce_ms ? std::chrono::milliseconds(*settings_.debounce_ms) : options_.debounce;
}

}  // namespace warplens::server
