// Resource usage and occupancy in the editor (issue 4).
//
// After each successful parse the record goes to the OccupancyService, which
// runs nvcc in the background (never on the typing or request path). When
// the result for the document's current record arrives:
//   - its findings (cannot-launch, low-occupancy, register-spill,
//     resource-usage) are published with the static findings of that same
//     record, through a findings provider;
//   - code lenses are refreshed: above each kernel,
//     "64 regs · 12 KB smem · 50% occupancy (registers) @ 256 threads";
//   - hovering a kernel's name or launch site shows its resources (one
//     table), occupancy, the lever and occupancy by block size;
//   - the quick fixes (__launch_bounds__ for low-occupancy and
//     cannot-launch, the largest block that fits) are offered by the
//     built-in "fixes" code-action provider, which sees provider findings;
//   - warplens.kernelView gets the resources and the occupancy curve.
// Until then (nvcc takes seconds after each edit) the previous version's
// result stands in, its findings carried onto the current text
// (server/carried_findings.h): diagnostics stay until newer ones replace
// them, as with clangd, instead of blinking out after every edit.
#include <spdlog/spdlog.h>

#include "analysis/kernel_report_text.h"
#include "server/carried_findings.h"
#include "server/features.h"
#include "server/kernel_info.h"
#include "workflows/resources.h"

namespace warplens::server {

namespace {

const KernelResourceReport* report_for(const OccupancyAnalysis& a, const Function& kernel) {
  for (const auto& r : a.kernels)
    if (r.kernel == kernel.key) return &r;
  for (const auto& r : a.kernels)  // the key changes with the signature; the name rarely does
    if (r.name == kernel.name) return &r;
  return nullptr;
}

// The result to show for `record`: its own, or while nvcc recompiles after
// an edit, the previous version's (clangd keeps diagnostics until newer ones
// replace them; dropping them for the seconds nvcc takes makes every error
// blink out after each keystroke). `carried` says which.
struct Shown {
  OccupancyPtr result;
  RecordPtr from;  // the record it was computed for, when carried
  bool carried = false;
};

Shown shown_for(const AnalysisRecord& record, const OccupancyService& occupancy) {
  if (auto own = occupancy.result(record)) return {own, nullptr, false};
  // Not yet pending is fine: the diagnostics feature publishes a new record
  // before this feature's analysis_published slot submits it. A record that
  // will not be compiled (no device code, not parsed) carries nothing.
  if (!occupancy.pending(record) && !workflows::resource_skip_reason(record.result).empty()) return {};
  auto latest = occupancy.latest(record.document->uri);
  if (!latest.result || !latest.record || latest.record->generation >= record.generation) return {};
  return {latest.result, latest.record, true};
}

std::vector<Finding> resource_findings(const OccupancyService& occupancy, const AnalysisRecord& record) {
  Shown shown = shown_for(record, occupancy);
  if (!shown.result) return {};
  if (!shown.carried) return shown.result->findings;
  return carry_findings(shown.result->findings, record.document->path, shown.from->document->text.text(),
                        record.document->text.text());
}

std::vector<KernelLens> resource_lens(const OccupancyService& occupancy, const CodeLensQuery& q) {
  Shown shown = shown_for(q.record, occupancy);
  if (!shown.result) return {};  // still computing: the lens appears with the refresh
  const KernelResourceReport* r = report_for(*shown.result, q.kernel);
  if (!r || r->code_lens.empty()) return {};
  return {KernelLens{r->code_lens, std::nullopt}};
}

std::optional<HoverSection> resource_hover(const OccupancyService& occupancy, const HoverQuery& q) {
  Range where;
  const Function* kernel = kernel_at(q.record.result.model, q.position, &where);
  if (!kernel) return std::nullopt;
  Shown shown = shown_for(q.record, occupancy);
  if (shown.result) {
    const KernelResourceReport* r = report_for(*shown.result, *kernel);
    if (!r || r->hover_markdown.empty()) return std::nullopt;
    std::string md = r->hover_markdown;
    if (shown.carried)
      md = "*Updating: nvcc is compiling the current text; these numbers are from version " +
           std::to_string(shown.from->document->version) + ".*\n\n" + md;
    return HoverSection{md, where, HoverOrder::kResources};
  }
  if (occupancy.pending(q.record))
    return HoverSection{"*Resource usage and occupancy: compiling with nvcc…*", where, HoverOrder::kResources};
  return std::nullopt;
}

json row_json(const OccupancyRow& row, const KernelResourceReport& r) {
  json j = {{"threads", row.block_threads}};
  if (row.exceeds_launch_bounds) {
    j["occupancy"] = nullptr;
    j["note"] = "exceeds __launch_bounds__";
  } else if (!row.result.ok) {
    j["occupancy"] = nullptr;
    j["note"] = row.result.error;
  } else if (row.result.blocks_per_sm == 0) {
    j["occupancy"] = 0.0;
    j["note"] = row.result.cannot_launch;
  } else {
    j["occupancy"] = row.result.occupancy;
    j["blocks_per_sm"] = row.result.blocks_per_sm;
    // No limiter at 100%: nothing keeps it lower.
    j["limiter"] = row.result.occupancy >= 1.0 - 1e-9 ? "none" : limiter_name(primary_limiter(row.result.limiters));
  }
  j["current"] = row.block_threads == r.block_size.threads();
  return j;
}

// The kernel report view's resources and occupancy curve (warplens.kernelView).
// `threshold`: the occupancyThreshold setting the view shows the curve against.
void resource_view(const OccupancyService& occupancy, double threshold, const KernelViewQuery& q, json& view) {
  Shown shown = shown_for(q.record, occupancy);
  if (!shown.result) {
    view["resources"] = {{"known", false},
                         {"missing", occupancy.pending(q.record) ? "nvcc is still compiling"
                                                                        : workflows::resource_skip_reason(q.record.result)}};
    return;
  }
  const OccupancyAnalysis& a = *shown.result;
  if (a.gpu.gpu) {
    const GpuProperties& g = *a.gpu.gpu;
    auto table = catalog_properties(g.arch);  // peaks: a probed GPU reports its limits only
    view["gpu"] = {{"arch", g.arch},
                   {"name", g.name},
                   {"source", g.source},
                   {"dram_gbs", g.dram_bandwidth_gbs > 0 ? g.dram_bandwidth_gbs
                                : table                  ? table->dram_bandwidth_gbs
                                                         : 0.0},
                   {"fp32_gflops", g.fp32_gflops > 0 ? g.fp32_gflops : table ? table->fp32_gflops : 0.0}};
  }
  const KernelResourceReport* r = report_for(a, q.kernel);
  if (!r) {
    view["resources"] = {{"known", false}, {"missing", "no resource usage for this kernel"}};
    return;
  }
  view["resources"] = {{"known", r->resources_known},
                       {"missing", r->resources_missing},
                       {"registers", r->registers},
                       {"shared_static_bytes", r->shared_static_bytes},
                       {"shared_dynamic_bytes", r->shared_dynamic_bytes},
                       {"stack_bytes", r->stack_bytes},
                       {"spill_store_bytes", r->spill_store_bytes},
                       {"spill_load_bytes", r->spill_load_bytes},
                       {"barriers", r->barriers},
                       {"code_lens", r->code_lens},
                       {"stale_version", shown.carried ? json(shown.from->document->version) : json()}};
  json curve = json::array();
  for (const auto& row : r->curve) curve.push_back(row_json(row, *r));
  json launches = json::array();
  for (const auto& l : r->launches)
    launches.push_back({{"threads", l.block.shape.threads()},
                        {"shape", format_block_shape(l.block.shape)},
                        {"source", l.block.description},
                        {"occupancy", l.result.ok ? json(l.result.occupancy) : json()}});
  view["occupancy"] = {{"known", r->occupancy_known},
                       {"missing", r->occupancy_missing},
                       {"value", r->occupancy},
                       {"blocks_per_sm", r->blocks_per_sm},
                       {"active_warps", r->active_warps},
                       {"max_warps", r->max_warps},
                       {"limiter", r->limiter},
                       {"limiters", r->limiters},
                       {"cannot_launch", r->cannot_launch},
                       {"largest_block", r->remedy.largest_block},
                       {"registers_to_fit", r->remedy.registers_to_fit},
                       {"threshold", threshold},
                       {"sentence", occupancy_sentence(*r)},
                       {"lever", r->lever ? json(r->lever->text) : json()},
                       {"block",
                        {{"shape", format_block_shape(r->block_size)},
                         {"threads", r->block_size.threads()},
                         {"source", to_string(r->block_source)},
                         {"detail", r->block_source_detail}}},
                       {"curve", std::move(curve)},
                       {"launches", std::move(launches)}};
}

}  // namespace

// The service itself is built with the server (server/server_context.cpp,
// its hooks republish and refresh lenses when a result arrives); this
// feature feeds it every published record and shows its results.
void register_occupancy(Registry& registry, Events& events, const Workspace& workspace, OccupancyService& occupancy) {
  registry.findings_providers.push_back(
      [&occupancy](const AnalysisRecord& record) { return resource_findings(occupancy, record); });
  registry.code_lens_providers.push_back([&occupancy](const CodeLensQuery& q) { return resource_lens(occupancy, q); });
  registry.hover_providers.push_back([&occupancy](const HoverQuery& q) { return resource_hover(occupancy, q); });
  registry.kernel_view_providers.push_back([&occupancy, &workspace](const KernelViewQuery& q, json& view) {
    resource_view(occupancy, workspace.settings().occupancy_threshold, q, view);
  });

  events.analysis_published.connect(
      [&occupancy, &workspace](const RecordPtr& record) { occupancy.submit(record, workspace.analysis_options()); });
  events.document_closed.connect([&occupancy](const std::string& uri) { occupancy.forget(uri); });
  events.stopping.connect([&occupancy] { occupancy.stop(); });
}

}  // namespace warplens::server
