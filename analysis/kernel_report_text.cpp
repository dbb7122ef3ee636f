#include "analysis/kernel_report_text.h"

#include "analysis/kernel_resource_report.h"

namespace warplens {

namespace {

std::string threads_phrase(const BlockShape& b) {
  std::string s = format_block_shape(b);
  if (b.y != 1 || b.z != 1) s += " (" + std::to_string(b.threads()) + ")";
  return s + " threads";
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
      s += " · " + format_percent(r.occupancy) + " occupancy (" + r.limiter + ") @ " + threads_phrase(r.block_size);
      if (r.block_source == BlockShapeSource::BuiltinDefault) s += " (assumed)";
    }
  }
  if (r.spill_store_bytes > 0 || r.spill_load_bytes > 0)
    s += " · " + format_bytes(std::max(r.spill_store_bytes, r.spill_load_bytes)) + " spilled";
  return s;
}

std::string kernel_hover_markdown(const KernelResourceReport& r) {
  std::string md = "**`" + r.name + "`**";
  if (!r.arch.empty()) md += " · " + r.arch;
  if (!r.gpu.empty()) md += " · " + r.gpu;
  md += "\n\n";
  if (!r.resources_known) {
    md += "Resource usage unavailable: " + r.resources_missing + ".\n";
    return md;
  }
  if (!r.other_instances.empty()) md += "Instantiation `" + r.instance + "` (the lowest occupancy of its instantiations)\n\n";
  md += "| registers | shared (static) | shared (dynamic) | stack | spill stores / loads | barriers |\n"
        "|---:|---:|---:|---:|---:|---:|\n";
  md += "| " + std::to_string(r.registers) + " | " + format_bytes(r.shared_static_bytes) + " | " +
        format_bytes(r.shared_dynamic_bytes) + " | " + format_bytes(r.stack_bytes) + " | " +
        format_bytes(r.spill_store_bytes) + " / " + format_bytes(r.spill_load_bytes) + " | " +
        std::to_string(r.barriers) + " |\n\n";
  if (r.register_limit) md += "Registers capped at " + std::to_string(*r.register_limit) + " by `-maxrregcount`.\n\n";

  if (!r.occupancy_known) {
    md += "Occupancy unavailable: " + r.occupancy_missing + ".\n";
    return md;
  }
  md += "Block " + threads_phrase(r.block_size) + " from " + r.block_source_detail + "\n\n";
  if (!r.cannot_launch.empty()) {
    md += "**Cannot launch**: " + r.cannot_launch + ".\n\n";
  } else {
    md += "**Theoretical occupancy " + format_percent(r.occupancy) + "**: " + std::to_string(r.blocks_per_sm) +
          (r.blocks_per_sm == 1 ? " block" : " blocks") + " × " +
          std::to_string(r.blocks_per_sm ? r.active_warps / r.blocks_per_sm : 0) + " warps = " +
          std::to_string(r.active_warps) + " of " + std::to_string(r.max_warps) +
          " warps per SM, limited by " + r.limiters + ".\n\n";
  }
  if (r.lever) md += r.lever->text + ".\n\n";
  if (!r.table.empty()) {
    md += "| threads | blocks/SM | warps/SM | occupancy | limited by |\n|---:|---:|---:|---:|---|\n";
    for (const auto& row : r.table) {
      bool current = row.block_threads == r.block_size.threads();
      auto cell = [&](const std::string& v) { return current ? "**" + v + "**" : v; };
      md += "| " + cell(std::to_string(row.block_threads)) + " | ";
      if (row.exceeds_launch_bounds) {
        md += "— | — | — | exceeds `__launch_bounds__` |\n";
      } else if (!row.result.ok) {
        md += "— | — | — | " + row.result.error + " |\n";
      } else if (row.result.blocks_per_sm == 0) {
        md += "0 | 0 | 0% | " + row.result.cannot_launch + " |\n";
      } else {
        md += cell(std::to_string(row.result.blocks_per_sm)) + " | " + cell(std::to_string(row.result.active_warps)) +
              " | " + cell(format_percent(row.result.occupancy)) + " | " + limiter_list(row.result.limiters) + " |\n";
      }
    }
    md += "\n";
  }
  if (r.launches.size() > 1) {
    md += "Launch configurations:\n";
    for (const auto& l : r.launches) {
      md += "- " + threads_phrase(l.block.shape) + ", " + format_bytes(l.shared_dynamic_bytes) +
            " dynamic shared memory (" + l.block.description + "): ";
      md += l.result.ok ? format_percent(l.result.occupancy) : l.result.error;
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
  md += "Device limits: " + r.gpu_source + ". Registers and shared memory from ptxas; occupancy from CUDA's "
        "occupancy calculator.";
  return md;
}

}  // namespace warplens
