// Resource usage and occupancy in the editor (issue 4).
//
// After each successful parse the record goes to the OccupancyService, which
// runs nvcc in the background (never on the typing or request path). When
// the result for the document's current record arrives:
//   - its findings (low-occupancy, register-spill, resource-usage) are
//     published with the static findings of that same record, through a
//     findings provider: the diagnostics of a version are always the static
//     findings plus the resource findings computed for that version, never
//     an older version's;
//   - code lenses are refreshed: above each kernel,
//     "64 regs · 12 KB smem · 50% occupancy (registers) @ 256 threads";
//   - hovering a kernel's name or launch site shows resources, occupancy,
//     the lever and the per-block-size table;
//   - the __launch_bounds__ quick fix of low-occupancy is offered by the
//     built-in "fixes" code-action provider, which sees provider findings.
#include <spdlog/spdlog.h>

#include "server/features.h"
#include "server/kernel_info.h"

namespace warplens::server {

namespace {

const KernelResourceReport* report_for(const OccupancyAnalysis& a, const Function& kernel) {
  for (const auto& r : a.kernels)
    if (r.kernel == kernel.key) return &r;
  return nullptr;
}

std::vector<Finding> resource_findings(const AnalysisRecord& record, ServerContext& ctx) {
  if (auto result = ctx.occupancy->result(record)) return result->findings;
  return {};
}

std::vector<KernelLens> resource_lens(const CodeLensQuery& q) {
  auto result = q.ctx.occupancy->result(q.record);
  if (!result) return {};  // still computing: the lens appears with the refresh
  const KernelResourceReport* r = report_for(*result, q.kernel);
  if (!r || r->code_lens.empty()) return {};
  return {KernelLens{r->code_lens, std::nullopt}};
}

std::optional<HoverSection> resource_hover(const HoverQuery& q) {
  Range where;
  const Function* kernel = kernel_at(q.record.result.model, q.position, &where);
  if (!kernel) return std::nullopt;
  if (auto result = q.ctx.occupancy->result(q.record)) {
    const KernelResourceReport* r = report_for(*result, *kernel);
    if (!r || r->hover_markdown.empty()) return std::nullopt;
    return HoverSection{r->hover_markdown, where};
  }
  if (q.ctx.occupancy->pending(q.record))
    return HoverSection{"*Resource usage and occupancy: compiling with nvcc…*", where};
  return std::nullopt;
}

}  // namespace

void register_occupancy(ServerContext& ctx) {
  if (!ctx.options.occupancy) return;
  OccupancyService::Hooks hooks;
  hooks.is_current = [&ctx](const RecordPtr& record) {
    auto current = ctx.scheduler.current(record->document->uri);
    return current && current->generation == record->generation;
  };
  hooks.ready = [&ctx](const RecordPtr& record) {
    ctx.diagnostics_changed.emit(record->document->uri);
    ctx.refresh_code_lenses();
  };
  ctx.occupancy = std::make_unique<OccupancyService>(ctx.io, ctx.options.occupancy, std::move(hooks));

  ctx.findings_providers.push_back(resource_findings);
  ctx.code_lens_providers.push_back(resource_lens);
  ctx.hover_providers.push_back(resource_hover);

  ctx.analysis_published.connect(
      [&ctx](const RecordPtr& record) { ctx.occupancy->submit(record, ctx.analysis_options()); });
  ctx.document_closed.connect([&ctx](const std::string& uri) { ctx.occupancy->forget(uri); });
  ctx.stopping.connect([&ctx] { ctx.occupancy->stop(); });
}

}  // namespace warplens::server
