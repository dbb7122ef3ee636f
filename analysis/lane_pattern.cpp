#include "analysis/lane_pattern.h"

#include "analysis/markdown_table.h"

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

namespace {

// Lane `lane`'s offset minus the first active lane's, in the kernel's
// terms: sum over x, y, z of (coefficient of threadIdx.d) x (difference in
// d). nullopt when the offset is not a polynomial in threadIdx.
std::optional<Polynomial> symbolic_delta(const Polynomial& p, const ThreadCoord& from, const ThreadCoord& to) {
  Polynomial delta;
  const std::int64_t d[3] = {to.x - from.x, to.y - from.y, to.z - from.z};
  for (int dim = 0; dim < 3; ++dim) {
    Symbol t{SymbolKind::ThreadIdx, dim, "", false};
    auto c = p.coefficient_of(t);
    if (!c) return std::nullopt;
    if (d[dim] != 0) delta = delta + c->scaled(d[dim]);
  }
  return delta;
}

}  // namespace

std::string lane_table_markdown(const AccessLanes& lanes, const WarpLanes& w, int element_bytes, LaneColumn col,
                                int max_rows, const ExprRef& byte_offset) {
  MarkdownTable t;
  t.headers = {"lane", "thread (x, y, z)", "byte offset", col == LaneColumn::Sector ? "sector" : "bank"};
  t.align = {Align::Right, Align::Left, Align::Right, Align::Right};
  // Offsets are shown from a 128-byte boundary near the first active lane:
  // that keeps sector and bank numbers true while hiding the uniform part
  // (blockIdx, loop counters) of the address. When the lanes' spacing
  // depends on a value the source does not fix (a row pitch `n`), the
  // numbers the model evaluated with are stand-ins, not offsets: the table
  // then shows each lane's offset from the first one in the kernel's terms,
  // and no sector or bank.
  const bool unknown = lanes.depends_on_unknown;
  std::optional<Polynomial> poly = unknown ? to_polynomial(byte_offset) : std::nullopt;
  std::int64_t base = 0;
  const int first_lane = lanes.active ? std::countr_zero(lanes.active) : 0;
  if (lanes.active) {
    std::int64_t first = lanes.offsets.value[first_lane];
    base = (first >= 0 ? first / 128 : (first - 127) / 128) * 128;
  }
  int rows = 0;
  for (int lane = 0; lane < kWarpSize && rows < max_rows; ++lane) {
    if (!lane_in(w.exists, lane)) continue;
    const ThreadCoord& th = w.thread[lane];
    std::vector<std::string> row = {std::to_string(lane),
                                    "(" + std::to_string(th.x) + ", " + std::to_string(th.y) + ", " +
                                        std::to_string(th.z) + ")"};
    if (!lane_in(lanes.active, lane)) {
      row.push_back("inactive");
      row.push_back("");
    } else if (unknown) {
      std::optional<Polynomial> delta = poly ? symbolic_delta(*poly, w.thread[first_lane], th) : std::nullopt;
      if (lane == first_lane) row.push_back("unknown");
      else if (delta) row.push_back("lane " + std::to_string(first_lane) + " + " + delta->to_string());
      else row.push_back("unknown");
      row.push_back("unknown");
    } else {
      std::int64_t off = lanes.offsets.value[lane] - base;
      row.push_back(std::to_string(off));
      std::string where;
      if (col == LaneColumn::Sector) {
        std::int64_t first = sector_of(off), last = sector_of(off + std::max(element_bytes, 1) - 1);
        where = std::to_string(first);
        if (last != first) where += "–" + std::to_string(last);
      } else {
        int b0 = bank_of(off), b1 = bank_of(off + std::max(element_bytes, 1) - 1);
        where = std::to_string(b0);
        if (b1 != b0) where += "–" + std::to_string(b1);
      }
      row.push_back(where);
    }
    t.rows.push_back(std::move(row));
    ++rows;
  }
  return t.render();
}

}  // namespace warplens
