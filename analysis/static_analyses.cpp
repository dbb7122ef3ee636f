#include "analysis/static_analyses.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/bank_conflicts.h"
#include "analysis/coalescing.h"
#include "analysis/device_call_inlining.h"
#include "analysis/divergence.h"
#include "analysis/fusion.h"
#include "analysis/launch_contexts.h"

namespace warplens {

namespace {

// A template pattern is judged through its instantiations when it has any:
// only they have concrete element types and template arguments.
bool judged_through_instantiations(const Function& f, const KernelModel& model) {
  if (!f.is_template) return false;
  for (const auto& g : model.functions)
    if (&g != &f && g.kind == FunctionKind::Kernel && g.name == f.name && !g.template_args.empty()) return true;
  return false;
}

double strength(const Finding& f) {
  for (const char* key : {"ratio", "degree", "wavefronts", "sectors"})
    if (const EvidenceValue* v = f.data.get(key)) {
      if (auto d = std::get_if<double>(v)) return *d;
      if (auto i = std::get_if<std::int64_t>(v)) return double(*i);
    }
  return 0;
}

std::string access_of(const Finding& f) {
  if (const EvidenceValue* v = f.data.get("access"))
    if (auto s = std::get_if<std::string>(v)) return *s;
  return {};
}

// Lower Severity values are more severe.
bool worse(const Finding& a, const Finding& b) {
  if (a.severity != b.severity) return int(a.severity) < int(b.severity);
  return strength(a) > strength(b);
}

}  // namespace

std::vector<Finding> run_static_analyses(const KernelModel& model, const AnalysisOptions& options,
                                         std::stop_token stop) {
  std::vector<Finding> all;
  const std::string& file = model.file;
  for (const Function* kernel : model.kernels()) {
    if (stop.stop_requested()) return {};
    if (judged_through_instantiations(*kernel, model)) continue;
    KernelView view = bind_kernel(model, *kernel);
    KernelContexts contexts = launch_contexts(model, *kernel, view, options);
    if (contexts.contexts.empty()) continue;
    auto add = [&](std::vector<Finding> v) {
      for (auto& f : v) all.push_back(std::move(f));
    };
    add(find_uncoalesced_accesses(view, contexts, options, file));
    add(find_indirect_accesses(view, contexts, file));
    add(find_bank_conflicts(view, contexts, options, file));
    add(find_divergent_barriers(view, contexts, file));
    add(find_warp_divergence(view, contexts, file));
  }

  // One finding per (code, range, access kind): the worst.
  using Key = std::tuple<std::string, std::string, int, int, int, int, std::string>;
  std::map<Key, std::size_t> best;
  std::vector<Finding> out;
  for (auto& f : all) {
    const Range& r = f.location.range;
    Key k{f.code, f.location.file, r.start.line, r.start.column, r.end.line, r.end.column, access_of(f)};
    auto it = best.find(k);
    if (it == best.end()) {
      best.emplace(k, out.size());
      out.push_back(std::move(f));
    } else if (worse(f, out[it->second])) {
      out[it->second] = std::move(f);
    }
  }
  // Host-side data flow: one finding per intermediate buffer, several may
  // share the consumer's launch, so they are not de-duplicated by range.
  for (auto& f : find_fusable_intermediates(model, options, stop)) out.push_back(std::move(f));
  if (stop.stop_requested()) return {};
  // This file's findings first, then those in its headers' helpers.
  std::stable_sort(out.begin(), out.end(), [&](const Finding& a, const Finding& b) {
    const bool ha = a.location.file != file, hb = b.location.file != file;
    return std::tie(ha, a.location.file, a.location.range.start, a.code) <
           std::tie(hb, b.location.file, b.location.range.start, b.code);
  });
  return out;
}

}  // namespace warplens
