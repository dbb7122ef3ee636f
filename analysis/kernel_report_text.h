// The words and tables shown for a KernelResourceReport: the code lens
// title above a kernel and the hover markdown on its name. Plain strings, no
// LSP: the server only wraps them.
#pragma once

#include <cctype>
#include <string>

namespace warplens {

struct KernelResourceReport;

// "64 regs · 12 KB smem · 50% occupancy (registers) @ 256 threads", with
// " (assumed)" after the block when it is the built-in default, and
// " · 272 B spilled" when ptxas spilled.
std::string code_lens_text(const KernelResourceReport& report);

// The hover's resource section: one table of resources, the block and its
// source, occupancy (with its limiter below 100%), the lever, and occupancy
// by block size on one line (current size in bold). Short enough for an
// editor float; the report view draws the whole curve.
std::string kernel_hover_markdown(const KernelResourceReport& report);

// "**Theoretical occupancy 50%**: 4 blocks × 8 warps = 32 of 64 warps per SM,
// limited by registers." or "**Cannot launch** with 1024 threads: ... .
// `__launch_bounds__(1024)` makes ptxas fit 64 registers per thread ...".
std::string occupancy_sentence(const KernelResourceReport& report);

}  // namespace warplens
