// Where features plug in at registration (clangd's LSPBinder plus the
// server's own extension points): the LSP methods, the capabilities
// announced at initialize, the warplens.* commands, and the providers other
// features call (hover sections, code lenses, code actions, derived
// findings, kernel-view data).
//
// Filled while the features register, before initialize; read on the io
// thread afterwards. A provider gets the query only: whatever else it needs
// it captured when its feature registered it, so its dependencies are its
// feature's.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/findings.h"
#include "analysis/kernel_model.h"
#include "protocol/lsp_features.h"
#include "protocol/lsp_lifecycle.h"
#include "server/method_table.h"
#include "server/scheduler.h"

namespace warplens::server {

// Hover: each provider may add a markdown section for the cursor position.
struct HoverQuery {
  const AnalysisRecord& record;
  Position position;  // engine position (UTF-8 byte column)
};
// Where a section goes in the hover: the kernel first (what it is, then its
// resources), measurements, then what the findings under the cursor explain.
enum class HoverOrder : int { kKernel = 0, kResources = 10, kMeasured = 20, kFindings = 30 };
struct HoverSection {
  std::string markdown;
  std::optional<Range> range;  // what the section is about (engine range)
  HoverOrder order = HoverOrder::kFindings;
};
using HoverProvider = std::function<std::optional<HoverSection>(const HoverQuery&)>;

// Code lenses: each provider may add titles above a kernel.
struct CodeLensQuery {
  const AnalysisRecord& record;
  const Function& kernel;
};
struct KernelLens {
  std::string title;
  std::optional<protocol::Command> command;  // none: a plain label
};
using CodeLensProvider = std::function<std::vector<KernelLens>(const CodeLensQuery&)>;

// Code actions: `provide` lists actions (cheaply, without edits when the
// client can resolve); `resolve` fills in the edit for one of them. The
// action's `data` must carry what resolve needs (stateless, like HTTP).
struct CodeActionQuery {
  const AnalysisRecord& record;
  Range range;  // engine range of the request
  const protocol::CodeActionParams& params;
  bool lazy;    // the client resolves edits through codeAction/resolve
};
struct CodeActionProvider {
  std::string name;  // recorded in data.provider, to route codeAction/resolve
  std::function<std::vector<protocol::CodeAction>(const CodeActionQuery&)> provide;
  std::function<void(protocol::CodeAction& action, const AnalysisRecord& record)> resolve;
};

// warplens.kernelView: each provider adds its part of one kernel's view
// (resources and occupancy, measurements) to `view`, as plain data the
// editor draws. Called once the record's resource usage is settled.
struct KernelViewQuery {
  const AnalysisRecord& record;
  const Function& kernel;
};
using KernelViewProvider = std::function<void(const KernelViewQuery&, nlohmann::json& view)>;

// workspace/executeCommand: commands are named warplens.<something>.
using CommandHandler = std::function<void(const protocol::ExecuteCommandParams&, RequestContext&)>;

// Findings that other features derive for one analysis record (resource
// usage, measured profiles). Called whenever the record's diagnostics are
// published, hovered or asked for fixes (Analyses::findings_for); features
// emit Events::diagnostics_changed(uri) when theirs change.
using FindingsProvider = std::function<std::vector<Finding>(const AnalysisRecord&)>;

struct Registry {
  MethodTable methods;
  protocol::ServerCapabilities capabilities;  // each feature fills in its own
  std::map<std::string, CommandHandler> commands;

  std::vector<HoverProvider> hover_providers;
  std::vector<CodeLensProvider> code_lens_providers;
  std::vector<CodeActionProvider> code_action_providers;
  std::vector<FindingsProvider> findings_providers;
  std::vector<KernelViewProvider> kernel_view_providers;
};

}  // namespace warplens::server
