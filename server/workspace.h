// What the editor has open and how it wants it analysed: the open
// documents, the settings, the workspace folders, and the analysis options
// built from them. Text sync writes the documents; the configuration
// feature and initialize write the settings and folders; every other
// feature only reads.
//
// Used on the io thread only.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "analysis/analysis_options.h"
#include "server/document_store.h"
#include "server/server_options.h"
#include "server/settings.h"

namespace warplens::server {

class Workspace {
 public:
  explicit Workspace(const ServerOptions& options) : options_(options) {}
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  DocumentStore documents;

  const Settings& settings() const { return settings_; }
  void set_settings(Settings settings) { settings_ = std::move(settings); }

  // From initialize: absolute paths (rootUri when the client sent no
  // folders). Empty for a client without a workspace.
  const std::vector<std::string>& folders() const { return folders_; }
  void set_folders(std::vector<std::string> folders) { folders_ = std::move(folders); }
  // The workspace folder holding `path` (the innermost), else the file's
  // directory: where the workspace's commands (buildCommand, profileCommand) run.
  std::string folder_for(const std::string& path) const;

  // The settings as the engine takes them, with the --allow-driver globs
  // and the workspace roots.
  AnalysisOptions analysis_options() const;
  // The effective debounce: the setting if set, else the --debounce-ms flag.
  std::chrono::milliseconds debounce() const;

 private:
  const ServerOptions& options_;
  Settings settings_;
  std::vector<std::string> folders_;
};

}  // namespace warplens::server
