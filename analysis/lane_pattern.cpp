#include "analysis/lane_pattern.h"

#include <bit>
#include <cstdio>
#include <sstream>

namespace warplens {

namespace {

const Symbol kThreadX{SymbolKind::ThreadIdx, 0, "", false};
const Symbol kThreadY{SymbolKind::ThreadIdx, 1, "", false};

// `p` divided by `k` when every coefficient divides.
std::optional<Polynomial> divided(const Polynomial& p, std::int64_t k) {
  if (k <= 1) return p;
  Polynomial r;
  for (const auto& [m, c] : p.terms) {
    if (c % k != 0) return std::nullopt;
    r.terms[m] = c / k;
  }
  return r;
}

std::optional<std::int64_t> value_with(const Polynomial& p, const std::map<std::string, std::int64_t>& known) {
  std::int64_t total = 0;
  for (const auto& [m, c] : p.terms) {
    std::int64_t v = c;
    for (const auto& s : m) {
      if (s.kind != SymbolKind::Param) return std::nullopt;
      auto it = known.find(s.name);
      if (it == known.end()) return std::nullopt;
      v *= it->second;
    }
    total += v;
  }
  return total;
}

std::string symbolic_bytes(const Polynomial& coef, int element_bytes, std::string& symbol) {
  if (auto q = divided(coef, element_bytes); q && element_bytes > 1) {
    symbol = q->to_string();
    return "`" + symbol + "`×" + std::to_string(element_bytes) + " bytes";
  }
  symbol = coef.to_string();
  return "`" + symbol + "` bytes";
}

}  // namespace

std::string format_ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", r);
  return buf;
}

LaneStride describe_lane_stride(const ExprRef& byte_offset, int element_bytes, const AccessLanes& lanes,
                                const WarpLanes& w, const std::map<std::string, std::int64_t>& known) {
  LaneStride out;
  if (auto p = to_polynomial(byte_offset); p && w.shape.x > 1) {
    if (auto cx = p->coefficient_of(kThreadX)) {
      if (cx->is_constant()) {
        out.bytes = cx->constant_term();
        out.phrase = "consecutive lanes are " + std::to_string(*out.bytes) + " bytes apart";
      } else {
        out.phrase = "consecutive lanes are " + symbolic_bytes(*cx, element_bytes, out.symbol) + " apart";
        if (auto v = value_with(*cx, known)) {
          out.bytes = *v;
          out.phrase += " (" + std::to_string(*v) + " bytes at this launch)";
        }
      }
      // A block narrower than a warp puts several rows in one warp.
      if (w.shape.x < kWarpSize && w.shape.y > 1)
        if (auto cy = p->coefficient_of(kThreadY); cy && !cy->terms.empty()) {
          std::string sym;
          std::string rows = cy->is_constant() ? std::to_string(cy->constant_term()) + " bytes"
                                               : symbolic_bytes(*cy, element_bytes, sym);
          out.phrase += ", and each row of " + std::to_string(w.shape.x) + " lanes starts " + rows + " further";
        }
      return out;
    }
  }
  // Not a polynomial in threadIdx.x (tid % 32, tid / 2, ...): describe the
  // concrete offsets.
  int prev = -1;
  std::optional<std::int64_t> stride;
  bool regular = true;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!lane_in(lanes.active, lane)) continue;
    if (prev >= 0) {
      std::int64_t d = lanes.offsets.value[lane] - lanes.offsets.value[prev];
      if (!stride) stride = d;
      else if (*stride != d) regular = false;
    }
    prev = lane;
  }
  if (stride && regular) {
    out.bytes = *stride;
    out.phrase = "consecutive active lanes are " + std::to_string(*stride) + " bytes apart";
    return out;
  }
  std::ostringstream os;
  os << "the lanes' byte offsets are ";
  int shown = 0;
  int first = lanes.active ? std::countr_zero(lanes.active) : 0;
  for (int lane = 0; lane < kWarpSize && shown < 6; ++lane) {
    if (!lane_in(lanes.active, lane)) continue;
    os << (shown ? ", " : "") << (lanes.offsets.value[lane] - lanes.offsets.value[first]);
    ++shown;
  }
  os << ", …";
  out.phrase = os.str();
  return out;
}

std::string lane_table_markdown(const AccessLanes& lanes, const WarpLanes& w, int element_bytes, LaneColumn col,
                                int max_rows) {
  std::ostringstream os;
  os << "| lane | thread (x, y, z) | byte offset | " << (col == LaneColumn::Sector ? "sector" : "bank") << " |\n";
  os << "|---:|---|---:|---:|\n";
  // Offsets are shown from a 128-byte boundary near the first active lane:
  // that keeps sector and bank numbers true while hiding the uniform part
  // (blockIdx, loop counters) of the address.
  std::int64_t base = 0;
  if (lanes.active) {
    std::int64_t first = lanes.offsets.value[std::countr_zero(lanes.active)];
    base = (first >= 0 ? first / 128 : (first - 127) / 128) * 128;
  }
  int rows = 0;
  for (int lane = 0; lane < kWarpSize && rows < max_rows; ++lane) {
    if (!lane_in(w.exists, lane)) continue;
    const ThreadCoord& t = w.thread[lane];
    os << "| " << lane << " | (" << t.x << ", " << t.y << ", " << t.z << ") | ";
    if (!lane_in(lanes.active, lane)) {
      os << "inactive | |\n";
    } else {
      std::int64_t off = lanes.offsets.value[lane] - base;
      os << off << " | ";
      if (col == LaneColumn::Sector) {
        std::int64_t first = sector_of(off), last = sector_of(off + std::max(element_bytes, 1) - 1);
        os << first;
        if (last != first) os << "–" << last;
      } else {
        int b0 = bank_of(off), b1 = bank_of(off + std::max(element_bytes, 1) - 1);
        os << b0;
        if (b1 != b0) os << "–" << b1;
      }
      os << " |\n";
    }
    ++rows;
  }
  return os.str();
}

}  // namespace warplens
