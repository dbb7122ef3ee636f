#include "analysis/bank_conflicts.h"

#include <cmath>
#include <sstream>

#include "analysis/access_evaluation.h"
#include "analysis/lane_pattern.h"
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

int n_way(const AccessEvaluation& e) {
  return std::max(1, int(std::lround(e.ratio())));
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

std::string explanation(const BoundAccess& a, const AccessEvaluation& e, const LaunchContext& ctx,
                        const Verdict& v, const std::string& why, const std::optional<PaddingChoice>& pad,
                        const SharedArray* array) {
  const MemoryAccess& m = *a.access;
  const WavefrontCount& wc = e.wavefronts;
  std::ostringstream os;
  os << "**" << n_way(e) << "-way shared-memory bank conflict** on the " << to_string(m.kind) << " `"
     << m.spelling << "`: " << e.actual << " wavefronts per warp request, ideal " << e.ideal << "\n\n";
  os << "Shared memory has 32 banks of 4-byte words (bank = byte address / 4 mod 32); a bank serves one "
        "word per wavefront, lanes reading the same word share it. Here "
     << why << ", so the busiest bank holds " << wc.degree << " distinct words";
  if (wc.phase_lanes < kWarpSize)
    os << " (" << m.element_bytes << "-byte accesses are served in phases of " << wc.phase_lanes
       << " lanes; worst phase: lanes " << wc.worst_phase * wc.phase_lanes << "–"
       << (wc.worst_phase + 1) * wc.phase_lanes - 1 << ")";
  os << ".\n\nDistinct words per bank:\n\n" << bank_map(wc) << "\n";
  os << "Block shape **" << format_block_shape(ctx.shape) << "** from " << ctx.source << "; warp " << e.warp.warp << ".";
  if (v.shape_dependent)
    os << " Other plausible block shapes give a different verdict, so this is reported as information.";
  os << "\n\n" << lane_table_markdown(e.lanes, e.warp, m.element_bytes, LaneColumn::Bank) << "\n";
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
  std::vector<const BoundAccess*> accesses;
  for (const auto& a : view.accesses)
    if (judged(a)) accesses.push_back(&a);
  EvaluationTable table = evaluate_accesses(
      accesses, contexts, 1,
      [](const BoundAccess& a, const AccessLanes& lanes, AccessEvaluation& e, bool first) -> std::pair<int, int> {
        // A struct wider than its alignment is several instructions: count each.
        const int bytes = std::max(a.access->element_bytes, 1);
        const int chunk = access_chunk_bytes(bytes, a.access->element_align);
        int wavefronts = 0, ideal = 0;
        for (int piece = 0; piece < bytes / chunk; ++piece) {
          WavefrontCount wc = count_wavefronts(shifted(lanes.offsets, std::int64_t(piece) * chunk), lanes.active, chunk);
          if (first && (piece == 0 || wc.degree > e.degree)) {
            e.wavefronts = wc;
            e.degree = wc.degree;
          }
          wavefronts += wc.wavefronts;
          ideal += wc.ideal;
        }
        return {wavefronts, ideal};
      });
  auto flags = flag_accesses(accesses, table, double(std::max(options.bank_conflict_threshold, 2)));

  std::vector<Finding> out;
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    auto verdict = combine_contexts(flags[i], table[i], contexts);
    if (!verdict) continue;
    const BoundAccess& a = *accesses[i];
    const MemoryAccess& m = *a.access;
    const AccessEvaluation& e = table[i][std::size_t(verdict->context)];
    const LaunchContext& ctx = contexts.contexts[std::size_t(verdict->context)];
    LaneStride stride = describe_lane_stride(a.byte_offset, m.element_bytes, e.lanes, e.warp, ctx.known_params);

    // Same array, same kernel: what the padding must not make worse.
    const SharedArray* array = array_of(a);
    std::optional<PaddingChoice> pad;
    if (array) {
      std::vector<const BoundAccess*> same;
      EvaluationTable same_table;
      std::size_t target = 0;
      for (std::size_t j = 0; j < accesses.size(); ++j) {
        if (accesses[j]->shared_array != a.shared_array || array_of(*accesses[j]) != array) continue;
        if (j == i) target = same.size();
        same.push_back(accesses[j]);
        same_table.push_back(table[j]);
      }
      pad = choose_padding(*array, target, same, same_table);
    }

    Finding f;
    f.code = codes::kSharedBankConflict;
    f.severity = verdict->severity;
    f.location = {file, m.range};
    f.kernel = view.kernel->key;
    std::ostringstream msg;
    msg << n_way(e) << "-way bank conflict on shared " << to_string(m.kind) << " of `" << m.spelling
        << "`: " << stride.phrase << " — " << e.actual << " wavefronts per request, ideal " << e.ideal;
    if (e.lanes.depends_on_unknown && !stride.symbol.empty())
      msg << " (the degree depends on `" << stride.symbol << "`; any even multiple of words conflicts)";
    if (verdict->shape_dependent)
      msg << "; with the guessed block " << format_block_shape(ctx.shape) << ", other block shapes differ";
    else if (ctx.origin == ShapeOrigin::LaunchSite && contexts.contexts.size() > 1)
      msg << "; worst with block " << format_block_shape(ctx.shape);
    if (!a.via.empty()) msg << " (in kernel `" << view.kernel->name << "`, " << describe_chain(a.via) << ")";
    f.message = msg.str();
    f.explanation_markdown = explanation(a, e, ctx, *verdict, stride.phrase, pad, array);
    if (pad && array) f.fixes.push_back(padding_fix(*array, *pad, file, n_way(e)));
    f.data.set("access", std::string(to_string(m.kind)));
    f.data.set("degree", std::int64_t(n_way(e)));
    f.data.set("wavefronts", std::int64_t(e.actual));
    f.data.set("ideal", std::int64_t(e.ideal));
    f.data.set("block_shape", format_block_shape(ctx.shape));
    f.data.set("block_source", ctx.source);
    f.data.set("shape_dependent", verdict->shape_dependent);
    f.data.set("array", a.shared_array);
    if (pad) f.data.set("padding", std::int64_t(pad->pad_elements));
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace warplens
