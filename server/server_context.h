// What every feature of the language server shares (clangd's ClangdServer
// plus the LSP glue): the client connection, the method table, the open
// documents, the scheduler, the job runner, the settings, what was
// negotiated at initialize, and the extension points features plug into.
//
// Everything here is used on the io_context's thread, except the client
// connection and the job runner, which are thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "protocol/lsp_features.h"
#include "protocol/lsp_lifecycle.h"
#include "protocol/lsp_window.h"
#include "server/client_connection.h"
#include "server/convert.h"
#include "server/document_store.h"
#include "server/job_runner.h"
#include "server/method_table.h"
#include "server/occupancy_service.h"
#include "workflows/optimize.h"
#include "workflows/profile.h"
#include "server/scheduler.h"
#include "server/settings.h"

namespace warplens::server {

struct ServerOptions {
  std::chrono::milliseconds debounce{300};  // overridden by the debounceMs setting
  unsigned workers = 0;                     // analysis threads (at most the cores); 0: min(cores, 4)
  bool test_commands = false;               // enables warplens.debug.* (tests only)
  std::string docs_dir;                     // docs/diagnostics, for codeDescription links
  std::string version = "0.0.0";
  // --allow-driver GLOB: programs compile commands and cudaPath may run,
  // whatever the settings say (analysis/driver_policy.h).
  std::vector<std::string> allowed_drivers;
  // Resource usage and occupancy (nvcc; ~0.4-1.5 s on a cache miss), run in
  // the background after each parse: workflows/resources.h's
  // analyze_resources, or a test double. Empty: none (in-process tests that
  // do not exercise it).
  OccupancyFn occupancy;
  // Asked once at startup, off the main thread, for warplens/status's `gpu`,
  // and before each profile. Empty: no probe at startup (`gpu` stays null)
  // and profile::probe_gpus before a profile.
  workflows::GpuProbe gpu_probe;  // profile::probe_gpus, or a test double
  // Runs warplens.optimize jobs. Empty: gpu_optimize_backend(gpu_probe)
  // (the built-in search, verified on the local GPU); tests inject fakes.
  workflows::OptimizeBackend optimize;
};

// A list of callbacks: how features hear about events without knowing each other.
template <class... Args>
class Signal {
 public:
  void connect(std::function<void(Args...)> slot) { slots_.push_back(std::move(slot)); }
  void emit(Args... args) const {
    for (const auto& slot : slots_) slot(args...);
  }

 private:
  std::vector<std::function<void(Args...)>> slots_;
};

class ServerContext;

// Hover: each provider may add a markdown section for the cursor position.
struct HoverQuery {
  const AnalysisRecord& record;
  Position position;  // engine position (UTF-8 byte column)
  ServerContext& ctx;
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
  ServerContext& ctx;
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
  ServerContext& ctx;
  bool lazy;    // the client resolves edits through codeAction/resolve
};
struct CodeActionProvider {
  std::string name;  // recorded in data.provider, to route codeAction/resolve
  std::function<std::vector<protocol::CodeAction>(const CodeActionQuery&)> provide;
  std::function<void(protocol::CodeAction& action, const AnalysisRecord& record, ServerContext& ctx)> resolve;
};

// warplens.kernelView: each provider adds its part of one kernel's view
// (resources and occupancy, measurements) to `view`, as plain data the
// editor draws. Called once the record's resource usage is settled.
struct KernelViewQuery {
  const AnalysisRecord& record;
  const Function& kernel;
  ServerContext& ctx;
};
using KernelViewProvider = std::function<void(const KernelViewQuery&, nlohmann::json& view)>;

// workspace/executeCommand: commands are named warplens.<something>.
using CommandHandler = std::function<void(const protocol::ExecuteCommandParams&, RequestContext&)>;

// Findings that other features derive for one analysis record (resource
// usage, measured profiles). Called whenever the record's diagnostics are
// published, hovered or asked for fixes; features call
// ctx.diagnostics_changed.emit(uri) when theirs change.
using FindingsProvider = std::function<std::vector<Finding>(const AnalysisRecord&, ServerContext&)>;

// Findings from other sources than the static analysis, published together
// with it. Keyed by uri, then by source name.
struct ExtraFindings {
  std::optional<std::int64_t> version;  // the document version they belong to
  std::vector<Finding> findings;
};

class ServerContext {
 public:
  ServerContext(boost::asio::io_context& io, Outbox& out, AnalyzeFn analyze, ServerOptions options);

  boost::asio::io_context& io;
  ClientConnection client;
  ServerOptions options;
  MethodTable methods;

  // Negotiated at initialize.
  protocol::ClientCapabilities client_capabilities;
  PositionEncoding encoding = PositionEncoding::Utf16;
  protocol::ServerCapabilities capabilities;  // features fill in theirs at registration
  Settings settings;

  DocumentStore documents;
  Scheduler scheduler;
  JobRunner jobs;
  // Set by the occupancy feature when options.occupancy is.
  std::unique_ptr<OccupancyService> occupancy;

  // Extension points.
  std::vector<HoverProvider> hover_providers;
  std::vector<CodeLensProvider> code_lens_providers;
  std::vector<CodeActionProvider> code_action_providers;
  std::vector<FindingsProvider> findings_providers;
  std::vector<KernelViewProvider> kernel_view_providers;
  std::map<std::string, CommandHandler> commands;
  std::map<std::string, std::map<std::string, ExtraFindings>> extra_findings;
  // Jobs by the progress token they report under (for window/workDoneProgress/cancel).
  std::map<protocol::ProgressToken, std::uint64_t> progress_jobs;
  std::uint64_t next_progress_token = 0;

  // Events.
  Signal<const RecordPtr&> analysis_published;
  Signal<const DocumentPtr&, const std::string&> analysis_failed;
  Signal<std::size_t> analysis_activity;        // documents with pending work
  Signal<const std::string&> document_closed;   // uri
  Signal<const std::string&> diagnostics_changed;  // uri: extra findings changed
  Signal<> initialized;
  Signal<> settings_changed;
  Signal<> stopping;  // shutdown or exit: background work must stop

  // From initialize: the workspace folders (absolute paths; rootUri when the
  // client sent no folders). Empty for a client without a workspace.
  std::vector<std::string> workspace_folders;

  AnalysisOptions analysis_options() const {
    // fallbackFlags' relative paths: against the (first) workspace folder.
    AnalysisOptions o = to_analysis_options(settings, workspace_folders.empty() ? "" : workspace_folders.front());
    o.allowed_drivers.insert(o.allowed_drivers.end(), options.allowed_drivers.begin(), options.allowed_drivers.end());
    o.workspace_roots = workspace_folders;
    return o;
  }
  // Converter for results of `document` (pinned as the text to convert with).
  Converter converter(TextLookup& texts, const DocumentPtr& document) const;
  void show_message(protocol::MessageType type, const std::string& message);
  void log_message(protocol::MessageType type, const std::string& message);
  // Every finding of `record`'s version, in publication order: the
  // analysis's own (without Clang's when clangDiagnostics is "off"), then
  // each findings provider's, then extra_findings.
  std::vector<Finding> findings_for(const AnalysisRecord& record);
  // Asks the client to re-request code lenses (when it supports it).
  void refresh_code_lenses();
  // Schedules (re)analysis of an open document with the current settings.
  void analyze(const DocumentPtr& document, bool immediately = false);

  // The effective debounce: the setting if set, else the --debounce-ms flag.
  std::chrono::milliseconds debounce() const;
};

unsigned core_count();
unsigned default_worker_count();

}  // namespace warplens::server
