#include "analysis/coalescing.h"

#include <bit>
#include <sstream>

#include "analysis/access_evaluation.h"
#include "analysis/access_merging.h"
#include "analysis/lane_pattern.h"

namespace warplens {

namespace {

// Indirect-looking accesses are judged too: when the loaded index turns out
// warp-uniform (`val[row_ptr[warp] + lane]`) the warp model computes them;
// when it is per lane, their evaluation is unknown and they drop out here.
bool judged(const BoundAccess& a) {
  return a.space == MemorySpace::Global && (a.access->kind == AccessKind::Load || a.access->kind == AccessKind::Store);
}

// Does the access's address depend on data each lane loads for itself?
bool per_lane_indirect(const BoundAccess& a, const KernelContexts& contexts) {
  if (!a.indirect || !a.byte_offset) return a.indirect;
  const LaunchContext& ctx = contexts.contexts.front();
  EvalContext ec{ctx.shape, Assumption::LargeA, &ctx.known_params};
  WarpLanes w = warp_lanes(ctx.shape, 0);
  AccessLanes lanes = evaluate_access(a.byte_offset, lane_guards(a.guards), w, ec);
  return lanes.active != 0 && !lanes.modelled;
}

// Reported by uncoalesced-global or shared-bank-conflict as a data-dependent
// address (information), so no indirect-access hint: global loads and stores,
// and shared ones the bank model cannot evaluate even with random data (a
// histogram's `s_hist[value]` it can: that keeps its hint beside the
// bank-conflict verdict on random data).
bool reported_as_data_dependent(const BoundAccess& a, const KernelContexts& contexts) {
  if (a.access->kind != AccessKind::Load && a.access->kind != AccessKind::Store) return false;
  if (a.space == MemorySpace::Global) return true;
  if (a.space != MemorySpace::Shared || !a.byte_offset) return a.space == MemorySpace::Shared;
  const LaunchContext& ctx = contexts.contexts.front();
  EvalContext ec{ctx.shape, Assumption::LargeA, &ctx.known_params};
  ec.random_draw = 1;
  AccessLanes lanes = evaluate_access(a.byte_offset, lane_guards(a.guards), warp_lanes(ctx.shape, 0), ec);
  return !lanes.modelled;
}

std::string where(const BoundAccess& a, const KernelView& view) {
  if (a.via.empty()) return {};
  return " (in kernel `" + view.kernel->name + "`, " + describe_chain(a.via) + ")";
}

// What makes the access cost more than ideal, in one phrase.
std::string cause(const BoundAccess& a, const AccessEvaluation& e, const LaunchContext& ctx, LaneStride& stride) {
  const int bytes = a.access->element_bytes;
  stride = describe_lane_stride(a.byte_offset, bytes, e.lanes, e.warp, ctx.known_params);
  if (stride.bytes && *stride.bytes == bytes && e.alignment_varies)
    return "consecutive lanes are contiguous but the warp's start moves between 32-byte alignments from one "
           "block or iteration to the next (a row pitch or offset that is not a multiple of 32 bytes)";
  if (stride.bytes && *stride.bytes == bytes && e.lanes.active) {
    std::int64_t first = e.lanes.offsets.value[std::countr_zero(e.lanes.active)];
    std::int64_t mis = ((first % kSectorBytes) + kSectorBytes) % kSectorBytes;
    if (mis != 0)
      return "consecutive lanes are contiguous but the warp's data starts " + std::to_string(mis) +
             " bytes into a 32-byte sector (misaligned)";
  }
  return stride.phrase;
}

std::string explanation(const BoundAccess& a, const AccessEvaluation& e, const KernelContexts& contexts,
                        const Verdict& v, const std::string& why, const LaneStride& stride) {
  const MemoryAccess& m = *a.access;
  std::ostringstream os;
  os << "**Uncoalesced global " << to_string(m.kind) << "** of `" << m.spelling << "`: " << e.actual
     << " sectors per warp request, ideal " << e.ideal << " (" << format_ratio(e.ratio()) << "× the traffic)\n\n";
  os << "Each warp request fetches whole 32-byte sectors. " << lane_count(e.lanes.active)
     << " active lanes × " << m.element_bytes << " bytes (`" << m.element_type << "`) fit in " << e.ideal
     << " sectors, but " << why << ", so the request touches " << e.actual << ".\n\n";
  os << shape_paragraph(v, contexts, e);
  os << "\n\n" << lane_table_markdown(e.lanes, e.warp, m.element_bytes, LaneColumn::Sector, 8, a.byte_offset) << "\n";
  os << "Assumptions: base pointers are 256-byte aligned (as `cudaMalloc` returns); warp-uniform terms "
        "(blockIdx, loop counters, uniform parameters) are aligned and cancel out";
  if (e.lanes.depends_on_unknown || !stride.symbol.empty())
    os << "; the per-lane stride `" << (stride.symbol.empty() ? "?" : stride.symbol)
       << "` is taken to be large (lanes at least 32 bytes apart), so the table gives offsets in terms of it and "
          "no sectors";
  os << ".\n\nFix: make consecutive threads (threadIdx.x) walk the contiguous dimension, or stage the data "
        "through shared memory and read it there in the transposed order.";
  return os.str();
}

}  // namespace

std::vector<Finding> find_uncoalesced_accesses(const KernelView& view, const KernelContexts& contexts,
                                               const AnalysisOptions& options, const std::string& file) {
  // A run the compiler merges (`p[k].x`, `p[k].y` of a float2) is one wider
  // request (access_merging.h).
  const MergedAccesses merged = merged_accesses(view, contexts);
  Judgement j = judge_accesses(
      view, contexts, [&](const BoundAccess& a) { return judged(a) && !merged.absorbed.count(&a); }, kVariations,
      [&](const BoundAccess& a, const AccessLanes& lanes, AccessEvaluation&, bool) -> std::pair<int, int> {
        const MemoryAccess& m = *a.access;
        const int width = merged.width_of(a);
        SectorCount sc = count_access_sectors(lanes.offsets, lanes.active, width ? width : m.element_bytes,
                                              width ? width : m.element_align);
        return {sc.sectors, sc.ideal};
      },
      options.uncoalesced_threshold);

  std::vector<Finding> out;
  for (const JudgedAccess& r : j.reported) {
    const Verdict* verdict = &r.verdict;
    const BoundAccess& a = *r.access;
    const MemoryAccess& m = *a.access;
    const AccessEvaluation& e = *r.evaluation;
    const LaunchContext& ctx = *r.context;
    LaneStride stride;
    std::string why = cause(a, e, ctx, stride);

    Finding f;
    f.code = codes::kUncoalescedGlobal;
    f.severity = verdict->severity;
    f.location = {file_of(*a.owner, file), m.range};
    f.related = call_chain_related(a.via, a.via_in, file);
    f.kernel = view.kernel->key;
    std::ostringstream msg;
    msg << "uncoalesced " << to_string(m.kind) << " of `" << m.spelling << "`: " << why << " — " << e.actual
        << " sectors per request, ideal " << e.ideal << " (" << format_ratio(e.ratio()) << "× traffic";
    if (e.lanes.depends_on_unknown && !stride.symbol.empty()) msg << " for large `" << stride.symbol << "`";
    msg << ")";
    msg << context_note(*verdict, contexts, a, view);
    f.message = msg.str();
    f.explanation_markdown = explanation(a, e, contexts, *verdict, why, stride);
    set_context_evidence(f, *verdict, contexts, a);
    auto number = [](double v) -> EvidenceValue {
      if (v == double(std::int64_t(v))) return std::int64_t(v);
      return v;
    };
    f.data.set("sectors", number(e.actual));
    f.data.set("ideal", number(e.ideal));
    f.data.set("ratio", e.ratio());
    f.data.set("active_lanes", std::int64_t(lane_count(e.lanes.active)));
    if (stride.bytes) f.data.set("lane_stride_bytes", *stride.bytes);
    if (!stride.symbol.empty()) f.data.set("lane_stride_symbol", stride.symbol);
    out.push_back(std::move(f));
  }
  // Addresses from per-lane loaded data: the model cannot count their
  // sectors; information that the data decides, instead of silence.
  for (std::size_t i = 0; i < j.accesses.size(); ++i) {
    const BoundAccess& a = *j.accesses[i];
    bool modelled = false;
    for (const AccessEvaluation& e : j.table[i]) modelled = modelled || e.modelled;
    if (modelled || !per_lane_data_dependent(a, contexts)) continue;
    out.push_back(data_dependent_finding(a, view, contexts, file, codes::kUncoalescedGlobal));
  }
  return out;
}

std::vector<Finding> find_indirect_accesses(const KernelView& view, const KernelContexts& contexts,
                                           const std::string& file) {
  std::vector<Finding> out;
  if (contexts.contexts.empty()) return out;
  for (const auto& a : view.accesses) {
    if (!per_lane_indirect(a, contexts)) continue;
    if (a.space != MemorySpace::Global && a.space != MemorySpace::Shared) continue;
    if (reported_as_data_dependent(a, contexts)) continue;
    const MemoryAccess& m = *a.access;
    Finding f;
    f.code = codes::kIndirectAccess;
    f.severity = Severity::Hint;
    f.location = {file_of(*a.owner, file), m.range};
    f.related = call_chain_related(a.via, a.via_in, file);
    f.kernel = view.kernel->key;
    const bool shared = a.space == MemorySpace::Shared;
    f.message = std::string("data-dependent ") + (shared ? "shared-memory " : "") + to_string(m.kind) + " `" +
                m.spelling + "`: each lane's address comes from loaded data, so " +
                (shared ? "bank conflicts" : "coalescing") + " cannot be judged statically" + where(a, view);
    std::ostringstream md;
    md << "**Indirect " << (shared ? "shared-memory " : "global ") << to_string(m.kind) << "** `" << m.spelling
       << "`\n\nThe address of each lane depends on values read from memory (a gather/scatter such as "
          "`in[idx[i]]`). How many "
       << (shared ? "wavefronts (bank conflicts)" : "32-byte sectors")
       << " a warp request needs depends on those values: sorted or clustered indices are cheap, random "
          "ones cost up to one "
       << (shared ? "wavefront" : "sector") << " per lane. Profile the kernel to measure it.";
    f.explanation_markdown = md.str();
    f.data.set("access", std::string(to_string(m.kind)));
    f.data.set("space", std::string(to_string(a.space)));
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace warplens
