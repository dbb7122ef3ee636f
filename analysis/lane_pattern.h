// Words for what the warp model computed: how an access's address moves
// from lane to lane ("consecutive lanes are `cols`×4 bytes apart"), and the
// per-lane table the hover shows. Shared by the coalescing and bank-conflict
// analyses so both speak the same way.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "analysis/warp_model.h"

namespace warplens {

struct LaneStride {
  std::string phrase;                 // "consecutive lanes are `cols`×4 bytes apart"
  std::string symbol;                 // the symbolic coefficient ("cols"), empty when numeric
  std::optional<std::int64_t> bytes;  // the lane stride in bytes when it is one number
};

// `byte_offset` is the access's offset in the kernel's terms; `lanes` its
// evaluation for warp `w`. Known parameter values turn a symbolic stride
// into a number as well ("`n`×4 bytes apart (n = 1024: 4096 bytes)").
LaneStride describe_lane_stride(const ExprRef& byte_offset, int element_bytes, const AccessLanes& lanes,
                                const WarpLanes& w, const std::map<std::string, std::int64_t>& known);

// Markdown table of the first lanes: lane, thread, byte offset, and the
// sector (global) or bank (shared) it falls in. When the lanes' offsets
// depend on an unknown value (AccessLanes::depends_on_unknown), the offset
// is given from the first active lane in terms of `byte_offset`'s symbols
// ("lane 0 + 12 * n") or "unknown", and the sector or bank as "unknown":
// never the stand-in numbers the model evaluated with.
enum class LaneColumn : std::uint8_t { Sector, Bank };
std::string lane_table_markdown(const AccessLanes& lanes, const WarpLanes& w, int element_bytes, LaneColumn col,
                                int max_rows = 8, const ExprRef& byte_offset = nullptr);

std::string format_ratio(double r);  // "8.0"

}  // namespace warplens
