// textDocument/hover, from the analysis of the current version: a card for
// the kernel whose name or launch site is under the cursor, and the
// explanation of every finding under it (the analysis's own and the findings
// providers'). Other features add sections through
// Registry::hover_providers; sections are ordered by HoverOrder.
//
// One message per hover: editors show the diagnostics under the cursor
// themselves (VS Code above the hover, Neovim in its diagnostic float), so a
// finding contributes its explanation only, never its message again, and
// two findings with the same explanation (the kernel's resource report is
// shown once, by the occupancy feature) contribute it once.
#include <algorithm>

#include "protocol/lsp_features.h"
#include "server/features.h"
#include "server/kernel_info.h"
#include "server/request_helpers.h"

namespace warplens::server {

namespace {

bool under_cursor(const Range& range, Position p) {
  return range.empty() ? range.start == p : range.contains(p);
}

// The range of `f` under the cursor: its own, or for fusable-intermediate
// (a data flow between launches) also its related places (the producer
// launch, the allocation), so hovering either end explains the flow.
std::optional<Range> finding_range_at(const Finding& f, const std::string& path, Position p) {
  if (under_cursor(f.location.range, p)) return f.location.range;
  if (f.code == codes::kFusableIntermediate)
    for (const auto& r : f.related)
      if ((r.location.file.empty() || r.location.file == path) && under_cursor(r.location.range, p))
        return r.location.range;
  return std::nullopt;
}

std::optional<HoverSection> finding_explanations(const Analyses& analyses, const HoverQuery& q) {
  const auto& record = q.record;
  std::string markdown;
  std::optional<Range> first;
  std::vector<const std::string*> shown;
  for (const auto& f : analyses.findings_for(record)) {
    const std::string& file = f.location.file.empty() ? record.document->path : f.location.file;
    if (file != record.document->path) continue;
    std::optional<Range> at = finding_range_at(f, record.document->path, q.position);
    if (!at || f.explanation_markdown.empty()) continue;
    bool repeated = false;
    for (const std::string* s : shown) repeated |= *s == f.explanation_markdown;
    if (repeated) continue;
    shown.push_back(&f.explanation_markdown);
    if (!markdown.empty()) markdown += "\n\n---\n\n";
    markdown += f.explanation_markdown;
    if (!first) first = at;
  }
  if (markdown.empty()) return std::nullopt;
  return HoverSection{markdown, first, HoverOrder::kFindings};
}

std::optional<HoverSection> kernel_card(const HoverQuery& q) {
  Range where;
  const Function* k = kernel_at(q.record.result.model, q.position, &where);
  if (!k) return std::nullopt;
  return HoverSection{kernel_markdown(q.record.result.model, *k), where, HoverOrder::kKernel};
}

}  // namespace

void register_hover(Registry& registry, const Workspace& workspace, Analyses& analyses, const Client& client) {
  registry.capabilities.hoverProvider = true;
  registry.hover_providers.push_back([&analyses](const HoverQuery& q) { return finding_explanations(analyses, q); });
  registry.hover_providers.push_back(kernel_card);

  registry.methods.on_request<protocol::HoverParams>(
      "textDocument/hover",
      [&registry, &workspace, &analyses, &client](const protocol::HoverParams& p, RequestContext& rc) {
        answer_from_current_record(workspace, analyses, rc, p.textDocument.uri, nullptr,
                                   [&registry, &client, p](const RecordPtr& record) -> json {
          HoverQuery query{*record, engine_position(*record, p.position, client.encoding())};
          std::vector<HoverSection> sections;
          for (const auto& provider : registry.hover_providers)
            if (auto section = provider(query)) sections.push_back(std::move(*section));
          std::stable_sort(sections.begin(), sections.end(), [](const HoverSection& a, const HoverSection& b) {
            return static_cast<int>(a.order) < static_cast<int>(b.order);
          });
          std::string markdown;
          std::optional<Range> range;
          for (const auto& section : sections) {
            if (!markdown.empty()) markdown += "\n\n---\n\n";
            markdown += section.markdown;
            if (!range) range = section.range;
          }
          if (markdown.empty()) return nullptr;
          const auto& formats = client.capabilities().hoverContentFormat;
          bool markdown_ok = formats.empty() || std::find(formats.begin(), formats.end(), "markdown") != formats.end();
          protocol::Hover hover;
          hover.contents = {markdown_ok ? protocol::markup_kind::kMarkdown : protocol::markup_kind::kPlainText,
                            markdown};
          if (range) hover.range = record->document->text.to_client(*range, client.encoding());
          return hover;
        });
      });
}

}  // namespace warplens::server
