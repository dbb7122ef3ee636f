// A running sum inside a thread-per-row loop, written for a warp per row:
// the loop's elements go 32 at a time, one per lane; an inclusive shuffle
// scan gives each lane the sum of the chunk up to its element, and the
// carry (the sum of the earlier chunks, the accumulator itself) is the same
// in every lane. Statements after the update read `acc + inclusive`, those
// before it `acc + exclusive`; after the chunk every lane adds the chunk's
// total, so the accumulator leaves the loop holding the row's total in
// every lane, as the reductions of warp-per-row leave theirs.
#pragma once

#include <optional>
#include <string>

#include "agent/rewrites/row_loops.h"

namespace warplens::agent::rw {

// The scan shape of `loop` (ScanLoop in row_loops.h) for the accumulator
// `acc`, the only variable declared outside the loop that the loop changes;
// nullopt with `why`. The counter must be declared in the loop's header.
std::optional<ScanLoop> match_scan(const KernelContext& ctx, const clang::ForStmt* loop, const ForCounter& counter,
                                   const clang::VarDecl* acc, std::string& why);

// The warp's loop replacing `l` (a scan loop), from its first token to the
// end of its last statement; `scan_helper` names scan_helper_text's
// function. nullopt with `error` when the source cannot be copied (macros).
std::optional<std::string> warp_scan_loop_text(const KernelContext& ctx, const RowLoop& l,
                                               const std::string& scan_helper, std::string& error);

// The device function an emitted scan loop calls: an inclusive sum over the
// 32 lanes of a warp (lane i receives v(0) + ... + v(i)).
std::string scan_helper_text(const std::string& name);

}  // namespace warplens::agent::rw
