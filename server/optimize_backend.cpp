#include "server/optimize_backend.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "agent/program_verifier.h"
#include "agent/rewrite_engine.h"
#include "agent/search.h"
#include "profiler/gpu_probe.h"

namespace warplens::server {

OptimizeBackend gpu_optimize_backend(GpuProbe probe) {
  if (!probe) probe = [](std::stop_token s) { return profile::probe_gpus(s); };
  return [probe](const agent::OptimizeRequest& request, const agent::ProgressCallback& progress,
                 std::stop_token stop) -> OptimizeOutcome {
    if (!agent::rewrite_engine_available())
      throw OptimizeUnavailable(
          "this warplens build has no Clang rewrite engine (built with WARPLENS_WITH_CLANG=OFF), so it cannot "
          "propose rewrites; nothing is offered");
    // Checked first: a rewrite is offered only after it ran faster and
    // correct on this machine's GPU, so without one there is nothing to do.
    profile::GpuStatus gpu = probe(stop);
    if (!gpu.available)
      throw OptimizeUnavailable("no GPU to verify rewrites on (" + gpu.reason +
                                "); every rewrite must be checked and timed on a local GPU before it is offered, "
                                "so nothing is offered");
    OptimizeOutcome out;
    out.gpu_name = gpu.devices.empty() || gpu.devices.front().name.empty() ? "this GPU" : gpu.devices.front().name;

    agent::SearchOptions search;
    search.max_expansions = std::max(8, request.budget.max_candidates);
    agent::RewriteSearch policy(search);
    // The editor's buffer is the original: the verifier builds it (and each
    // candidate) from this text, with the file's directory on the include path.
    agent::ProgramVerifier verifier(request.file, agent::ProgramVerifierOptions{});
    spdlog::info("optimize: {} in {} on {}", request.kernel, request.file.path, out.gpu_name);
    out.result = agent::run_optimize_job(request, policy, verifier, nullptr, progress, stop);
    return out;
  };
}

}  // namespace warplens::server
