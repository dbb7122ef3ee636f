#include "analysis/kernel_report_text.h"

#include "analysis/kernel_resource_report.h"
#include "analysis/markdown_table.h"

namespace warplens {

namespace {

std::string threads_phrase(const BlockShape& b) {
  std::string s = format_block_shape(b);
  if (b.y != 1 || b.z != 1) s += " (" + std::to_string(b.threads()) + ")";
  return s + " threads";
}

bool full_occupancy(const KernelResourceReport& r) { return r.occupancy >= 1.0 - 1e-9; }

// "64 → 50% · 128 → 50% · **256 → 50%** · 512 → —": the hover's one-line
// view of occupancy by block size (the report view draws the whole curve).
std::string by_block_size(const KernelResourceReport& r) {
  std::string s;
  for (const auto& row : r.table) {
    std::string value;
    if (row.exceeds_launch_bounds) value = "over `__launch_bounds__`";
    else if (!row.result.ok) value = "—";
    else if (row.result.blocks_per_sm == 0) value = "cannot launch";
    else value = format_percent(row.result.occupancy);
    std::string item = std::to_string(row.block_threads) + " → " + value;
    if (row.block_threads == r.block_size.threads()) item = "**" + item + "**";
    s += (s.empty() ? "" : " · ") + item;
  }
  return s;
}

}  // namespace

std::string code_lens_text(const KernelResourceReport& r) {
  if (!r.resources_known) return "resource usage unavailable: " + r.resources_missing;
  std::string s = std::to_string(r.registers) + " regs";
  std::int64_t smem = r.shared_static_bytes + r.shared_dynamic_bytes;
  if (smem > 0) s += " · " + format_bytes(smem) + " smem";
  if (r.occupancy_known) {
    if (!r.cannot_launch.empty()) {
      s += " · cannot launch @ " + threads_phrase(r.block_size);
    } else {
      s += " · " + format_percent(r.occupancy) + " occupancy";
      if (!full_occupancy(r)) s += " (" + r.limiter + ")";
      s += " @ " + threads_phrase(r.block_size);
      if (r.block_source == BlockShapeSource::BuiltinDefault) s += " (assumed)";
    }
  }
  if (r.spill_store_bytes > 0 || r.spill_load_bytes > 0)
    s += " · " + format_bytes(std::max(r.spill_store_bytes, r.spill_load_bytes)) + " spilled";
  return s;
}

std::string occupancy_sentence(const KernelResourceReport& r) {
  if (!r.occupancy_known) return "Occupancy unavailable: " + r.occupancy_missing + ".";
  if (!r.cannot_launch.empty()) {
    std::string s = "**Cannot launch** with " + threads_phrase(r.block_size) + ": " + r.cannot_launch + ".";
    std::string fixes;
    if (r.remedy.registers_to_fit > 0)
      fixes = "`__launch_bounds__(" + std::to_string(r.block_size.threads()) + ")` makes ptxas fit " +
              std::to_string(r.remedy.registers_to_fit) + " registers per thread (check for spills)";
    if (r.remedy.largest_block > 0)
      fixes += (fixes.empty() ? "" : ", or ") + std::string("blocks of at most ") +
               std::to_string(r.remedy.largest_block) + " threads fit";
    if (!fixes.empty()) s += " " + std::string(1, static_cast<char>(std::toupper(fixes[0]))) + fixes.substr(1) + ".";
    return s;
  }
  std::string s = "**Theoretical occupancy " + format_percent(r.occupancy) + "**: " + std::to_string(r.blocks_per_sm) +
                  (r.blocks_per_sm == 1 ? " block" : " blocks") + " × " +
                  std::to_string(r.blocks_per_sm ? r.active_warps / r.blocks_per_sm : 0) + " warps = " +
                  std::to_string(r.active_warps) + " of " + std::to_string(r.max_warps) + " warps per SM";
  if (!full_occupancy(r)) s += ", limited by " + r.limiters;
  return s + ".";
}

std::string kernel_hover_markdown(const KernelResourceReport& r) {
  std::string md = "**Resources**";
  if (!r.arch.empty()) md += " · " + r.arch;
  if (!r.gpu.empty()) md += " · " + r.gpu;
  md += "\n\n";
  if (!r.resources_known) {
    md += "Resource usage unavailable: " + r.resources_missing + ".\n";
    return md;
  }
  if (!r.other_instances.empty()) md += "Instantiation `" + r.instance + "` (the lowest occupancy of its instantiations)\n\n";
  MarkdownTable t;
  t.headers = {"registers", "shared (static)", "shared (dynamic)", "stack", "spill stores / loads", "barriers"};
  t.align = {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right};
  t.rows.push_back({std::to_string(r.registers), format_bytes(r.shared_static_bytes),
                    format_bytes(r.shared_dynamic_bytes), format_bytes(r.stack_bytes),
                    format_bytes(r.spill_store_bytes) + " / " + format_bytes(r.spill_load_bytes),
                    std::to_string(r.barriers)});
  md += t.render() + "\n";
  if (r.register_limit) md += "Registers capped at " + std::to_string(*r.register_limit) + " by `-maxrregcount`.\n\n";

  if (!r.occupancy_known) return md + occupancy_sentence(r) + "\n";
  md += "Block " + threads_phrase(r.block_size) + " from " + r.block_source_detail + ".\n\n";
  md += occupancy_sentence(r) + "\n\n";
  if (r.lever) md += r.lever->text + ".\n\n";
  if (!r.table.empty()) md += "By block size: " + by_block_size(r) + "\n\n";
  if (r.launches.size() > 1) {
    md += "Launch configurations:\n";
    for (const auto& l : r.launches) {
      md += "- " + threads_phrase(l.block.shape) + ", " + format_bytes(l.shared_dynamic_bytes) +
            " dynamic shared memory (" + l.block.description + "): ";
      md += l.result.ok ? (l.result.blocks_per_sm == 0 ? "cannot launch" : format_percent(l.result.occupancy))
                        : l.result.error;
      md += "\n";
    }
    md += "\n";
  }
  for (const auto& l : r.launches)
    if (l.dynamic_shared_unknown) {
      md += "Dynamic shared memory " +
            (l.block.dynamic_shared_spelling.empty() ? std::string("of an `extern __shared__` array")
                                                     : "`" + l.block.dynamic_shared_spelling + "`") +
            " is not a constant here: assumed 0 bytes.\n\n";
      break;
    }
  if (!r.unresolved_launches.empty()) {
    md += "Launches whose block size is not a constant:";
    for (const auto& u : r.unresolved_launches) md += " " + u + ";";
    md.back() = '.';
    md += "\n\n";
  }
  if (!r.other_instances.empty()) {
    md += "Other instantiations:";
    for (const auto& o : r.other_instances) md += "\n- `" + o + "`";
    md += "\n\n";
  }
  md += "*Device limits: " + r.gpu_source + ". Registers and shared memory from ptxas; occupancy from CUDA's "
        "occupancy calculator.*";
  return md;
}

}  // namespace warplens
