#include "analysis/shared_padding.h"

#include <cctype>

namespace warplens {

namespace {

bool is_integer_literal(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// (wavefronts, ideal) of the warp `e` shows, with the array's innermost
// extent `n` padded by `pad` elements (0: as declared).
std::pair<int, int> wavefronts_with(const AccessEvaluation& e, const MemoryAccess& m, int array_bytes, std::int64_t n,
                                    std::int64_t pad) {
  LaneValues moved = e.lanes.offsets;
  if (pad)
    for (int lane = 0; lane < kWarpSize; ++lane)
      if (lane_in(e.lanes.active, lane)) moved.value[lane] = padded_offset(moved.value[lane], array_bytes, n, pad);
  const int bytes = std::max(m.element_bytes, 1);
  const int chunk = access_chunk_bytes(bytes, m.element_align);
  int wavefronts = 0, ideal = 0;
  for (int piece = 0; piece < bytes / chunk; ++piece) {
    WavefrontCount wc = count_wavefronts(shifted(moved, std::int64_t(piece) * chunk), e.lanes.active, chunk);
    wavefronts += wc.wavefronts;
    ideal += wc.ideal;
  }
  return {wavefronts, ideal};
}

}  // namespace

std::int64_t padded_offset(std::int64_t byte_offset, int element_bytes, std::int64_t n, std::int64_t pad) {
  const std::int64_t eb = std::max(element_bytes, 1);
  std::int64_t element = byte_offset / eb;
  std::int64_t within = byte_offset % eb;
  return ((element / n) * (n + pad) + element % n) * eb + within;
}

std::optional<PaddingChoice> choose_padding(const SharedArray& array, std::size_t target,
                                            const std::vector<const BoundAccess*>& accesses,
                                            const EvaluationTable& table) {
  if (array.address_escapes || array.is_extern || array.dims.size() < 2) return std::nullopt;
  const std::int64_t n = array.dims.back();
  if (n <= 0 || array.element_bytes <= 0 || array.innermost_dim_range.empty()) return std::nullopt;
  const int eb = array.element_bytes;
  // Every access must address whole elements from a non-negative offset, or
  // the index remapping is not the array's layout.
  for (std::size_t a = 0; a < accesses.size(); ++a)
    for (const auto& e : table[a]) {
      if (!e.modelled) continue;
      for (int lane = 0; lane < kWarpSize; ++lane)
        if (lane_in(e.lanes.active, lane) && (e.lanes.offsets.value[lane] < 0)) return std::nullopt;
      if (accesses[a]->access->element_bytes > eb || accesses[a]->access->reinterpreted) return std::nullopt;
    }

  const int max_pad = std::max(1, 128 / eb);  // one full bank cycle
  for (int pad = 1; pad <= max_pad; ++pad) {
    bool ok = true;
    for (std::size_t a = 0; a < accesses.size() && ok; ++a) {
      const MemoryAccess& m = *accesses[a]->access;
      for (const auto& e : table[a]) {
        if (!e.modelled) continue;
        auto [after, ideal] = wavefronts_with(e, m, eb, n, pad);
        auto [before, unused] = wavefronts_with(e, m, eb, n, 0);
        (void)unused;
        // The reported access becomes conflict-free; no other gets worse.
        if (a == target ? after > ideal : after > before) {
          ok = false;
          break;
        }
      }
    }
    if (!ok) continue;
    PaddingChoice c;
    c.pad_elements = pad;
    c.new_extent_value = n + pad;
    c.new_extent = is_integer_literal(array.innermost_dim_spelling)
                       ? std::to_string(n + pad)
                       : array.innermost_dim_spelling + " + " + std::to_string(pad);
    return c;
  }
  return std::nullopt;
}

Fix padding_fix(const SharedArray& array, const PaddingChoice& choice, const std::string& file, int degree) {
  Fix f;
  f.title = "Pad `" + array.name + "` to " + std::to_string(choice.new_extent_value) +
            " columns (removes the " + std::to_string(degree) + "-way bank conflict)";
  f.file = file;
  f.edits.push_back({array.innermost_dim_range, choice.new_extent});
  f.preferred = true;
  return f;
}

}  // namespace warplens
