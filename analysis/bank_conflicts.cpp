#include "analysis/bank_conflicts.h"

#include <cmath>
#include <sstream>

#include "analysis/access_evaluation.h"
#include "analysis/access_merging.h"
#include "analysis/lane_pattern.h"
#include "analysis/register_reuse.h"
#include "analysis/shared_padding.h"

namespace warplens {

namespace {

bool judged(const BoundAccess& a) {
  return a.space == MemorySpace::Shared && (a.access->kind == AccessKind::Load || a.access->kind == AccessKind::Store);
}

const SharedArray* array_of(const BoundAccess& a) {
  const Function* owner = a.shared_array_owner ? a.shared_array_owner : a.owner;
  for (const auto& s : owner->shared_arrays)
    if (s.name == a.shared_array) return &s;
  return nullptr;
}

// The worst request's degree (the averaged ratio can be lower: some warps or
// loop iterations conflict, others do not).
int n_way(const AccessEvaluation& e) {
  return std::max({1, int(std::lround(e.ratio())), int(std::lround(e.peak_ratio))});
}

// True when the average is well below the worst request.
bool averaged(const AccessEvaluation& e) { return e.peak_ratio > e.ratio() + 0.05; }

std::string per_request(const AccessEvaluation& e) {
  std::ostringstream os;
  if (averaged(e)) {
    os << format_ratio(e.actual) << " wavefronts per request on average, ideal " << format_ratio(e.ideal) << " ("
       << e.samples_in_excess << " of " << e.samples << " modelled requests conflict"
       << (e.iterated ? ", over the loop's iterations" : "") << ")";
  } else {
    os << e.actual << " wavefronts per request, ideal " << e.ideal;
  }
  return os.str();
}

std::string bank_map(const WavefrontCount& wc) {
  std::ostringstream os;
  auto cell = [&](int v) { os << (v < 10 ? "  " : " ") << v; };
  os << "```\nbank ";
  for (int b = 0; b < kBankCount; ++b) cell(b);
  os << "\nwords";
  for (int b = 0; b < kBankCount; ++b) cell(wc.words_per_bank[std::size_t(b)]);
  os << "\n```\n";
  return os.str();
}

std::string explanation(const BoundAccess& a, const AccessEvaluation& e, const KernelContexts& contexts,
                        const Verdict& v, const std::string& why, const std::optional<PaddingChoice>& pad,
                        const SharedArray* array) {
  const MemoryAccess& m = *a.access;
  const WavefrontCount& wc = e.wavefronts;
  std::ostringstream os;
  os << "**" << n_way(e) << "-way shared-memory bank conflict** on the " << to_string(m.kind) << " `"
     << m.spelling << "`: " << per_request(e) << "\n\n";
  os << "Shared memory has 32 banks of 4-byte words (bank = byte address / 4 mod 32); a bank serves one "
        "word per wavefront, lanes reading the same word share it. Here "
     << why << ", so the busiest bank holds " << wc.degree << " distinct words";
  if (wc.phase_lanes < kWarpSize)
    os << " (" << m.element_bytes << "-byte accesses are served in phases of " << wc.phase_lanes
       << " lanes; worst phase: lanes " << wc.worst_phase * wc.phase_lanes << "–"
       << (wc.worst_phase + 1) * wc.phase_lanes - 1 << ")";
  os << ".\n\nDistinct words per bank:\n\n" << bank_map(wc) << "\n";
  os << shape_paragraph(v, contexts, e);
  os << "\n\n" << lane_table_markdown(e.lanes, e.warp, m.element_bytes, LaneColumn::Bank, 8, a.byte_offset) << "\n";
  if (pad && array)
    os << "Fix: pad the innermost dimension of `" << array->name << "` by " << pad->pad_elements
       << " element" << (pad->pad_elements == 1 ? "" : "s") << " (`[" << array->innermost_dim_spelling
       << "]` → `[" << pad->new_extent << "]`); this makes the access conflict-free without adding "
          "wavefronts to the kernel's other accesses of the array.";
  else if (array && array->address_escapes)
    os << "No padding fix offered: `" << array->name
       << "` is used through pointer arithmetic or reinterpretation, so its layout cannot be changed safely.";
  else
    os << "Fix: change the layout (pad the innermost dimension or swizzle the index) so that the lanes of a "
          "warp fall into distinct banks.";
  return os.str();
}

}  // namespace

std::vector<Finding> find_bank_conflicts(const KernelView& view, const KernelContexts& contexts,
                                         const AnalysisOptions& options, const std::string& file) {
  // A load the compiler serves from a register issues no shared request.
  const std::set<const BoundAccess*> reused = reused_loads(view);
  // A run the compiler merges is one wider request (access_merging.h).
  const MergedAccesses merged = merged_accesses(view, contexts);
  Judgement j = judge_accesses(
      view, contexts,
      [&](const BoundAccess& a) { return judged(a) && !reused.count(&a) && !merged.absorbed.count(&a); }, 1,
      [&](const BoundAccess& a, const AccessLanes& lanes, AccessEvaluation& e, bool first) -> std::pair<int, int> {
        const MemoryAccess& m = *a.access;
        const int width = merged.width_of(a);
        WavefrontCount wc = count_access_wavefronts(lanes.offsets, lanes.active, width ? width : m.element_bytes,
                                                    width ? width : m.element_align);
        if (first) {
          e.wavefronts = wc;
          e.degree = wc.degree;
        }
        return {wc.wavefronts, wc.ideal};
      },
      options.bank_conflict_average_threshold, double(std::max(options.bank_conflict_threshold, 2)));

  std::vector<Finding> out;
  for (const JudgedAccess& r : j.reported) {
    const Verdict* verdict = &r.verdict;
    const BoundAccess& a = *r.access;
    const MemoryAccess& m = *a.access;
    const AccessEvaluation& e = *r.evaluation;
    const LaunchContext& ctx = *r.context;
    LaneStride stride = describe_lane_stride(a.byte_offset, m.element_bytes, e.lanes, e.warp, ctx.known_params);

    // Same array, same kernel: what the padding must not make worse.
    const SharedArray* array = array_of(a);
    std::optional<PaddingChoice> pad;
    if (array) {
      std::vector<const BoundAccess*> same;
      EvaluationTable same_table;
      std::size_t target = 0;
      for (std::size_t k = 0; k < j.accesses.size(); ++k) {
        if (j.accesses[k]->shared_array != a.shared_array || array_of(*j.accesses[k]) != array) continue;
        if (k == r.index) target = same.size();
        same.push_back(j.accesses[k]);
        same_table.push_back(j.table[k]);
      }
      pad = choose_padding(*array, target, same, same_table);
    }

    Finding f;
    f.code = codes::kSharedBankConflict;
    f.severity = verdict->severity;
    f.location = {file_of(*a.owner, file), m.range};
    f.related = call_chain_related(a.via, a.via_in, file);
    f.kernel = view.kernel->key;
    std::ostringstream msg;
    msg << n_way(e) << "-way bank conflict on shared " << to_string(m.kind) << " of `" << m.spelling
        << "`: " << stride.phrase << " — " << per_request(e);
    if (e.lanes.depends_on_unknown && !stride.symbol.empty())
      msg << " (the degree depends on `" << stride.symbol << "`; any even multiple of words conflicts)";
    msg << context_note(*verdict, contexts, a, view);
    f.message = msg.str();
    f.explanation_markdown = explanation(a, e, contexts, *verdict, stride.phrase, pad, array);
    if (pad && array) f.fixes.push_back(padding_fix(*array, *pad, file, n_way(e)));
    set_context_evidence(f, *verdict, contexts, a);
    f.data.set("degree", std::int64_t(n_way(e)));
    f.data.set("wavefronts", std::int64_t(e.actual));
    f.data.set("ratio", e.ratio());
    f.data.set("ideal", std::int64_t(e.ideal));
    f.data.set("array", a.shared_array);
    if (pad) f.data.set("padding", std::int64_t(pad->pad_elements));
    out.push_back(std::move(f));
  }
  // Addresses from per-lane loaded data that even random data does not
  // model (a scatter to the position a search returned): information that
  // the data decides the conflicts, instead of silence.
  for (std::size_t i = 0; i < j.accesses.size(); ++i) {
    const BoundAccess& a = *j.accesses[i];
    bool modelled = false;
    for (const AccessEvaluation& e : j.table[i]) modelled = modelled || e.modelled;
    if (modelled || !per_lane_data_dependent(a, contexts)) continue;
    out.push_back(data_dependent_finding(a, view, contexts, file, codes::kSharedBankConflict));
  }
  return out;
}

}  // namespace warplens
