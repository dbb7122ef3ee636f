// The Clang implementation of rewrite_engine.h: parse once, run every
// registered rewrite's check on the kernel, apply on request.
#include <chrono>
#include <memory>

#include "agent/rewrite_engine.h"
#include "agent/rewrites/rewrite.h"
#include "analysis/clang/parsed_ast.h"
#include "common/crash_recovery.h"
#include "common/large_stack.h"

namespace warplens::agent {
namespace rw {

// One accessor per rewrite file.
const Rewrite& inline_device_call_rewrite();
const Rewrite& pointer_walk_rewrite();
const Rewrite& block_dim_index_rewrite();
const Rewrite& unflatten_index_rewrite();
const Rewrite& register_accumulator_rewrite();
const Rewrite& pad_shared_rewrite();
const Rewrite& stage_shared_tile_rewrite();
const Rewrite& permute_tile_rewrite();
const Rewrite& restrict_const_rewrite();
const Rewrite& vectorize_rewrite();
const Rewrite& vectorize_struct_rewrite();
const Rewrite& vectorize_loop_rewrite();
const Rewrite& block_size_rewrite();
const Rewrite& launch_bounds_rewrite();
const Rewrite& unroll_rewrite();
const Rewrite& grid_stride_rewrite();
const Rewrite& warp_shuffle_reduction_rewrite();
const Rewrite& reduction_grid_stride_rewrite();
const Rewrite& swap_thread_mapping_rewrite();
const Rewrite& tile_k_loop_rewrite();
const Rewrite& interleave_chunks_rewrite();
const Rewrite& split_serial_loop_rewrite();
const Rewrite& stage_row_walk_rewrite();
const Rewrite& warp_per_row_rewrite();
const Rewrite& column_block_rewrite();
const Rewrite& fuse_elementwise_rewrite();
const Rewrite& register_tile_rewrite();
const Rewrite& privatize_atomics_rewrite();
const Rewrite& stencil_tile_rewrite();
const Rewrite& window_tile_rewrite();
const Rewrite& window_tile_1d_rewrite();
const Rewrite& stencil_stream_rewrite();
const Rewrite& coarsen_2d_rewrite();

const std::vector<const Rewrite*>& clang_rewrites() {
  // Catalogue order (rewrite_catalogue.cpp).
  static const std::vector<const Rewrite*> all = {
      &inline_device_call_rewrite(),
      &pointer_walk_rewrite(),
      &block_dim_index_rewrite(),
      &unflatten_index_rewrite(),
      &register_accumulator_rewrite(),
      &pad_shared_rewrite(),
      &stage_shared_tile_rewrite(),
      &permute_tile_rewrite(),
      &restrict_const_rewrite(),
      &vectorize_rewrite(),
      &vectorize_struct_rewrite(),
      &vectorize_loop_rewrite(),
      &coarsen_2d_rewrite(),
      &block_size_rewrite(),
      &launch_bounds_rewrite(),
      &unroll_rewrite(),
      &grid_stride_rewrite(),
      &warp_shuffle_reduction_rewrite(),
      &reduction_grid_stride_rewrite(),
      &swap_thread_mapping_rewrite(),
      &tile_k_loop_rewrite(),
      &register_tile_rewrite(),
      &privatize_atomics_rewrite(),
      &stencil_tile_rewrite(),
      &window_tile_rewrite(),
      &window_tile_1d_rewrite(),
      &stencil_stream_rewrite(),
      &interleave_chunks_rewrite(),
      &split_serial_loop_rewrite(),
      &stage_row_walk_rewrite(),
      &warp_per_row_rewrite(),
      &column_block_rewrite(),
      &fuse_elementwise_rewrite(),
  };
  return all;
}

std::int64_t param(const RewriteStep& step, const std::string& name) {
  if (auto it = step.params.find(name); it != step.params.end()) return it->second;
  if (const RewriteInfo* info = find_rewrite(step.rewrite))
    for (const auto& p : info->params)
      if (p.name == name && !p.values.empty()) return p.values.front();
  return 0;
}

namespace {

const Rewrite* find_clang_rewrite(const std::string& name) {
  for (const Rewrite* r : clang_rewrites())
    if (name == r->name()) return r;
  return nullptr;
}

const clang::FunctionDecl* find_kernel(const ParsedFile& f, const std::string& name, std::vector<std::string>& all) {
  const clang::FunctionDecl* found = nullptr;
  for (const clang::FunctionDecl* k : kernels_in(f)) {
    all.push_back(k->getNameAsString());
    if (k->getNameAsString() == name && !found) found = k;
  }
  return found;
}

// What the rewrites check: the kernel, or for a function template every
// instantiation in the file. The edits go to the one pattern they share, so
// an option is kept only when it applies to each instantiation with the
// same result (a rewrite proven for `scale<float>` is not assumed for
// `scale<double>`).
std::vector<const clang::FunctionDecl*> kernel_versions(const clang::FunctionDecl* k) {
  std::vector<const clang::FunctionDecl*> out;
  if (const clang::FunctionTemplateDecl* t = k->getDescribedFunctionTemplate())
    for (const clang::FunctionDecl* spec : t->specializations())
      if (spec->isTemplateInstantiation() && spec->getBody()) out.push_back(spec);
  if (out.empty()) out.push_back(k);
  return out;
}

ApplyResult run_apply(KernelContext& ctx, const Rewrite& rewrite, const RewriteStep& step) {
  ApplyResult r;
  RewriteOutput out(ctx.file);
  std::string error;
  ctx.file.forget_issued_names();
  if (!rewrite.apply(ctx, step, out, error)) {
    r.error = error.empty() ? out.edits.error() : error;
    if (r.error.empty()) r.error = step.rewrite + " does not apply";
    return r;
  }
  auto text = out.edits.result();
  if (!text) {
    r.error = "edits do not apply: " + out.edits.error();
    return r;
  }
  if (*text == ctx.file.text) {
    r.error = step.rewrite + " changed nothing";
    return r;
  }
  r.ok = true;
  r.source = std::move(*text);
  r.result_kernel = out.result_kernel.empty() ? ctx.kernel->getNameAsString() : out.result_kernel;
  r.launch_changes = std::move(out.launch_changes);
  r.fusion = std::move(out.fusion);
  r.reassociation = std::move(out.reassociation);
  r.notes = std::move(out.notes);
  return r;
}

}  // namespace
}  // namespace rw

bool rewrite_engine_available() { return true; }

namespace {

// The rewrites walk the AST recursively, as the model builder does: on a
// stack as large as the parse's, so that what the parse's limits let through
// is walked without overflowing the caller's (a job thread's 8 MiB).
// A crash in there (Clang's, or a rewrite's) is recovered as in the parse
// (common/crash_recovery.h): an error for this kernel, not the process.
template <class Result, class Fn>
Result on_parse_stack(Fn fn) {
  Result result;
  common::RecoveredCrash crash;
  common::run_with_stack(parse_stack_bytes(), [&](std::size_t) { crash = common::run_recovering([&] { result = fn(); }); });
  if (crash) {
    result = Result{};
    result.error = std::string("the rewrite engine crashed on this kernel (") + common::describe(crash) +
                   "); nothing is proposed for it";
  }
  return result;
}

KernelSurvey survey_kernel_here(const SourceFile& file, const std::string& kernel, const EngineOptions& options,
                                bool apply, std::stop_token stop) {
  KernelSurvey survey;
  const auto t0 = std::chrono::steady_clock::now();
  std::string error;
  auto parsed = rw::parse_file(file, options, error, stop);
  survey.parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (parsed) survey.toolchain = parsed->ast->result.toolchain;
  if (!parsed) {
    survey.error = error;
    return survey;
  }
  survey.parsed = true;
  const clang::FunctionDecl* k = rw::find_kernel(*parsed, kernel, survey.kernels);
  if (!k) {
    survey.error = "no __global__ function named `" + kernel + "` in " + file.path;
    return survey;
  }
  std::vector<std::unique_ptr<rw::KernelContext>> versions;
  for (const clang::FunctionDecl* v : rw::kernel_versions(k)) versions.push_back(std::make_unique<rw::KernelContext>(*parsed, v));
  rw::KernelContext& ctx = *versions.front();
  for (const rw::Rewrite* r : rw::clang_rewrites()) {
    if (stop.stop_requested()) break;
    const RewriteInfo* info = find_rewrite(r->name());
    rw::CheckResult check = r->check(ctx);
    if (check.proposals.empty()) {
      survey.refused.push_back({r->name(), check.refusal.empty() ? "does not apply" : check.refusal});
      continue;
    }
    for (std::size_t i = 1; i < versions.size() && !check.proposals.empty(); ++i) {
      rw::CheckResult other = r->check(*versions[i]);
      if (other.proposals.empty()) {
        survey.refused.push_back({r->name(), "not for every instantiation of the template: " + other.refusal});
        check.proposals.clear();
      }
    }
    for (auto& p : check.proposals) {
      RewriteOption o;
      o.step = p.step;
      o.step.rewrite = r->name();
      o.stage = info ? info->stage : RewriteStage::Memory;
      o.addresses = info ? info->addresses : std::vector<std::string>{};
      o.motivation = p.motivation;
      o.predicted_gain = p.predicted_gain;
      if (apply) {
        o.result = rw::run_apply(ctx, *r, o.step);
        bool differ = false;
        for (std::size_t i = 1; i < versions.size() && o.result->ok && !differ; ++i) {
          ApplyResult other = rw::run_apply(*versions[i], *r, o.step);
          if (!other.ok || other.source != o.result->source) {
            differ = true;
            survey.refused.push_back({r->name(), o.step.to_string() + ": the template's instantiations need "
                                                 "different edits (" +
                                                     (other.ok ? std::string("their results differ") : other.error) +
                                                     ")"});
          }
        }
        if (differ) continue;
      }
      survey.options.push_back(std::move(o));
    }
  }
  return survey;
}

ApplyResult apply_rewrite_here(const SourceFile& file, const std::string& kernel, const RewriteStep& step,
                               const EngineOptions& options, std::stop_token stop) {
  ApplyResult r;
  const rw::Rewrite* rewrite = rw::find_clang_rewrite(step.rewrite);
  if (!rewrite) {
    r.error = "unknown rewrite `" + step.rewrite + "`";
    return r;
  }
  std::string error;
  auto parsed = rw::parse_file(file, options, error, stop);
  if (!parsed) {
    r.error = error;
    return r;
  }
  std::vector<std::string> all;
  const clang::FunctionDecl* k = rw::find_kernel(*parsed, kernel, all);
  if (!k) {
    r.error = "no __global__ function named `" + kernel + "`";
    return r;
  }
  std::optional<ApplyResult> result;
  for (const clang::FunctionDecl* v : rw::kernel_versions(k)) {
    rw::KernelContext ctx(*parsed, v);
    rw::CheckResult check = rewrite->check(ctx);
    if (check.proposals.empty()) {
      r.error = step.rewrite + " does not apply: " + check.refusal;
      return r;
    }
    ApplyResult one = rw::run_apply(ctx, *rewrite, step);
    if (!one.ok) return one;
    if (result && result->source != one.source) {
      r.error = "the template's instantiations need different edits";
      return r;
    }
    result = std::move(one);
  }
  return *result;
}

}  // namespace

KernelSurvey survey_kernel(const SourceFile& file, const std::string& kernel, const EngineOptions& options,
                           bool apply, std::stop_token stop) {
  return on_parse_stack<KernelSurvey>([&] { return survey_kernel_here(file, kernel, options, apply, stop); });
}

ApplyResult apply_rewrite(const SourceFile& file, const std::string& kernel, const RewriteStep& step,
                          const EngineOptions& options, std::stop_token stop) {
  return on_parse_stack<ApplyResult>([&] { return apply_rewrite_here(file, kernel, step, options, stop); });
}

}  // namespace warplens::agent
