#include "agent/llm/prompts.h"

#include <cstdio>
#include <sstream>

#include "agent/llm/analysis_text.h"
#include "agent/llm/text_clip.h"

namespace warplens::agent::llm {

namespace {

// The paper's milestone rewards (docs/optimize.md), the rules the verifier
// enforces, and the optimisation playbook. Rules first: a wrong kernel is
// worth less than no kernel.
constexpr const char* kSystemPrompt = R"(You are a CUDA performance engineer working inside warplens, an editor tool. Your job: make one CUDA kernel in the user's file faster without changing what it computes.

## How this works
- You see the kernel's file, warplens's static analysis findings and, when available, profiler measurements.
- Tools: read_file and list_files (the kernel's directory only), static_analysis and compile (cheap; use them on drafts), propose_edit (submit a rewrite), finish (stop).
- Every proposal is verified by warplens, not by you: it must compile, produce the same results as the original on several different input sets (including sizes that are not multiples of your tile or block size), and is then timed against the original on the user's GPU. The verdict comes back as the result of your propose_edit call.
- Reward levels: -1 = fails to compile or gives wrong results; 1 = correct but not more than 5% faster; 2 = correct and more than 5% faster than the original; 3 = also more than 5% faster than eager PyTorch and torch.compile (where a PyTorch reference exists). Only level 2 and 3 candidates are offered to the user. Speedups over 10x are treated as suspicious and not offered.
- Learn from each verdict: if a candidate was incorrect, find out why before trying again; if it was correct but slow, try a different idea rather than small variations.

## Rules (a candidate that breaks them is refused or judged incorrect)
1. Correctness first. Keep every bounds check needed for arbitrary sizes; never assume the sizes you see in the file or in launches. Keep results within floating-point tolerance of the original: no lower precision (no half/bfloat16/tf32, no fast-math intrinsics that change results), same accumulation type.
2. Keep the kernel's name and its exact parameter list (types, order, qualifiers other than adding const/__restrict__ where valid). You may add __device__ helper functions, __launch_bounds__, templates with defaults, and #include of standard CUDA headers.
3. Do not change host code (main, other host functions, checks). The only exception is the kernel's launch configuration: if you change the block or grid shape the kernel expects, edit the launch in the host code AND describe the change in propose_edit's launch_change, or the candidate is refused.
4. No tricks: do not read outputs of earlier launches, cache results across calls, write outside the output buffers, depend on uninitialised memory, or use other streams or threads. No external libraries (no cuBLAS, no Thrust calls in the kernel). The verifier gives each run fresh inputs and sentinel-filled outputs and checks inputs are unchanged.
5. One idea per candidate when possible, so the verdicts teach you what works.

## What usually makes kernels faster
- Coalescing: consecutive threads (threadIdx.x) should touch consecutive addresses. Map threadIdx.x to the fastest-varying (contiguous) index; for transposes and strided patterns, stage tiles through shared memory so both the global read and the global write are coalesced.
- Shared memory bank conflicts: pad 2D tiles (e.g. [TILE][TILE + 1] for 4-byte elements) when columns are accessed; keep the padding out of the logical indexing.
- Memory-bound kernels: move fewer bytes (fuse passes, avoid temporaries, read each input once), use 8/16-byte vector loads and stores (float2/float4) only with an alignment check and a scalar tail, use const __restrict__ on read-only pointers, and aim for enough bytes in flight (several independent loads per thread, grid-stride loops with unrolling).
- Reductions: accumulate in registers first, then warp shuffles (__shfl_down_sync) instead of shared-memory trees with __syncthreads at every step; one atomic or one partial per block.
- Matrix products and stencils: tile into shared memory (and registers: several outputs per thread) to reuse each loaded value many times; unroll inner loops with #pragma unroll.
- Occupancy: check registers and shared memory per block; __launch_bounds__(threads, minBlocks) can cap registers; block sizes of 128-256 threads are a good default; avoid very small blocks.
- Divergence: keep threads of a warp on the same path; move rare conditions out of inner loops; all threads of a block must reach every __syncthreads.
- Rows with one thread each (row-per-thread matrix-vector): use a warp (or more) per row with a shuffle reduction, so loads coalesce.
- Measure your intuition against the profile hints: a kernel at high DRAM throughput only gets faster by moving fewer bytes.

## Working style
- Look before you edit: read the kernel, check the findings, think about which resource limits it.
- Compile drafts with the compile tool before proposing; a proposal that does not compile is refused without being verified.
- Prefer `edits` (exact search/replace) for small changes; give the full `source` for large rewrites. Keep all unrelated code byte-for-byte identical.
- Propose one candidate per turn and wait for its verdict. When you have nothing better to try, call finish.)";

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g ms", v);
  return buf;
}

std::string fixed(double v, const char* format) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string profile_text(const ProfileHints& p) {
  std::ostringstream out;
  if (p.kernel_ms) out << "- duration per launch: " << ms(*p.kernel_ms) << '\n';
  if (p.dram_throughput_pct) out << "- DRAM throughput: " << fixed(*p.dram_throughput_pct, "%.1f") << "% of peak\n";
  if (p.sm_throughput_pct) out << "- SM (compute) throughput: " << fixed(*p.sm_throughput_pct, "%.1f") << "% of peak\n";
  if (p.achieved_occupancy_pct) out << "- achieved occupancy: " << fixed(*p.achieved_occupancy_pct, "%.1f") << "%\n";
  if (p.sectors_per_request)
    out << "- global sectors per request: " << fixed(*p.sectors_per_request, "%.2f") << " (ideal ~4 for 4-byte loads)\n";
  if (p.bank_conflict_ratio)
    out << "- shared memory wavefronts / ideal: " << fixed(*p.bank_conflict_ratio, "%.2f") << " (1 = conflict-free)\n";
  if (p.registers_per_thread) out << "- registers per thread: " << *p.registers_per_thread << '\n';
  std::string s = out.str();
  return s.empty() ? "(nothing measured)\n" : s;
}

// One line per earlier candidate, for the opening brief.
std::string history_line(const TriedCandidate& t) {
  const auto& c = t.candidate;
  const auto& v = t.verdict;
  std::string what = c.description.empty() ? to_string(c.plan) : c.description;
  std::string line = "- " + c.id + " (" + c.policy + "): " + what + " -> level " + std::to_string(to_int(v.level));
  if (v.level != RewardLevel::Incorrect && v.speedup > 0) line += ", " + fixed(v.speedup, "%.2fx");
  if (!v.reason.empty()) line += " (" + clip(v.reason, 160) + ")";
  return line + "\n";
}

}  // namespace

std::string system_prompt(const LlmConfig& config) {
  std::string s = kSystemPrompt;
  if (!config.target_gpu.empty()) s += "\n\nTarget GPU: " + config.target_gpu + ".";
  if (config.allow_host_changes)
    s += "\n\nThis session allows host-code changes where they are needed for the kernel (still no changes to what "
         "the program computes or checks).";
  return s;
}

std::string budget_text(const BudgetLeft& left, int turns_left) {
  return "Budget left: " + std::to_string(left.candidates) + " candidate(s), " +
         std::to_string(static_cast<long long>(left.wall_seconds)) + " s of wall time, " + std::to_string(turns_left) +
         " turn(s).";
}

std::string kernel_brief(const PolicyContext& context, const LlmConfig& config, const std::string& file_name,
                         int turns_left) {
  std::ostringstream out;
  out << "Optimise the kernel `" << context.kernel << "` in `" << file_name
      << "`. Other files in its directory can be read with read_file.\n\n";
  out << "## " << file_name << "\n```cuda\n" << context.file.text;
  if (!context.file.text.empty() && context.file.text.back() != '\n') out << '\n';
  out << "```\n\n";
  out << "## Static analysis findings\n" << findings_text(context.findings, context.file.text) << '\n';
  if (context.profile) out << "## Profile of the original\n" << profile_text(*context.profile) << '\n';
  if (!context.history.empty()) {
    out << "## Candidates already verified in this job\n";
    for (const auto& t : context.history) out << history_line(t);
    out << '\n';
  }
  out << budget_text(context.remaining, turns_left) << '\n';
  if (!config.target_gpu.empty()) out << "Target GPU: " << config.target_gpu << ".\n";
  out << "\nStart by working out what limits this kernel; then propose your best rewrite with propose_edit.";
  return out.str();
}

std::string verdict_text(const TriedCandidate& t) {
  const CandidateVerdict& v = t.verdict;
  std::ostringstream out;
  out << "Verdict for " << t.candidate.id << ": level " << to_int(v.level) << " (" << describe(v.level) << ").\n";
  if (!v.compiled) {
    out << "It did not compile";
    if (!v.compile_log.empty()) out << ":\n```\n" << clip(v.compile_log, 4000) << "\n```\n";
    else out << ".\n";
  } else if (!v.correct) {
    out << "It compiled but gave wrong results";
    if (v.input_sets) out << " (checked on " << v.input_sets << " input set(s))";
    out << ".";
    if (!v.worst.empty()) out << " Worst element: " << clip(v.worst, 300) << '.';
    if (v.max_error > 0) out << " Max error: " << fixed(v.max_error, "%.3g") << "x the tolerance.";
    out << '\n';
  } else {
    out << "Correct on " << v.input_sets << " input set(s)";
    if (v.max_error > 0) out << " (max error " << fixed(v.max_error, "%.3g") << " of the tolerance)";
    out << ".\n";
    if (v.original.runs && v.candidate.runs)
      out << "Median time: original " << ms(v.original.median_ms) << ", candidate " << ms(v.candidate.median_ms)
          << " -> " << fixed(v.speedup, "%.2f") << "x.\n";
    if (v.eager_ms) out << "Eager PyTorch: " << ms(*v.eager_ms) << ".\n";
    if (v.compiled_ms) out << "torch.compile: " << ms(*v.compiled_ms) << ".\n";
    if (v.implausible) out << "Held for review (over 10x without complete evidence, or over 1000x): it will not be offered; check it is honest.\n";
  }
  if (!v.reason.empty()) out << "Verifier's note: " << clip(v.reason, 600) << '\n';
  return out.str();
}

}  // namespace warplens::agent::llm
