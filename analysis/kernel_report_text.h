// The words and tables shown for a KernelResourceReport: the code lens
// title above a kernel and the hover markdown on its name. Plain strings, no
// LSP: the server only wraps them.
#pragma once

#include <string>

namespace warplens {

struct KernelResourceReport;

// "64 regs · 12 KB smem · 50% occupancy (registers) @ 256 threads", with
// " (assumed)" after the block when it is the built-in default, and
// " · 272 B spilled" when ptxas spilled.
std::string code_lens_text(const KernelResourceReport& report);

// Resources, occupancy with limiter and block source, the lever, and the
// per-block-size table (current size in bold).
std::string kernel_hover_markdown(const KernelResourceReport& report);

}  // namespace warplens
