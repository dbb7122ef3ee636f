#include "agent/verifier/replay/replay_units.h"

#include <stdexcept>

#include "agent/verifier/replay/replay_modes.h"
#include "agent/verifier/replay/replay_sets.h"

namespace warplens::replay {

using namespace verifier;

std::vector<CUfunction> find_original_kernels(const Module& module, const ReplayPlan& plan, std::string* first_symbol) {
  std::vector<CUfunction> out;
  if (plan.original_steps.empty()) {
    out.push_back(module.find(plan.original.symbol, plan.original.name, first_symbol));
    return out;
  }
  for (std::size_t i = 0; i < plan.original_steps.size(); ++i) {
    const KernelRef& k = plan.original_steps[i];
    std::string symbol;
    out.push_back(module.find(k.symbol, k.name, &symbol));
    if (i == 0 && first_symbol) *first_symbol = symbol;
  }
  return out;
}

std::unique_ptr<ReplaySide> make_original_side(const CapturedLaunches& capture, const std::vector<CUfunction>& kernels,
                                               int launch, std::uint64_t guard_bytes) {
  const capture::LaunchRecord& rec = capture.launch(launch);
  auto side = std::make_unique<ReplaySide>(kernels.at(0), rec, captured_geometry(rec), guard_bytes);
  const MergedLaunch* merged = capture.merged(launch);
  if (!merged) return side;
  if (kernels.size() != merged->geometry.size())
    throw std::runtime_error("internal: the plan names " + std::to_string(kernels.size()) + " original kernel(s) for a "
                             "sequence of " + std::to_string(merged->geometry.size()) + " launches");
  std::vector<LaunchStep> steps;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    LaunchStep s{kernels[k], merged->geometry[k], {}};
    for (int i = 0; i < merged->param_count[k]; ++i) s.params.push_back(merged->param_base[k] + i);
    steps.push_back(std::move(s));
  }
  try {
    side->set_steps(std::move(steps));
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("the original source, compiled, does not take captured launches' "
                                         "parameters: ") + e.what());
  }
  return side;
}

std::vector<LaunchGeometry> original_geometries(const CapturedLaunches& capture, int launch) {
  if (const MergedLaunch* merged = capture.merged(launch)) return merged->geometry;
  return {captured_geometry(capture.launch(launch))};
}

std::unique_ptr<ReplaySide> make_candidate_side(const CapturedLaunches& capture, const LaunchStep& step, int launch,
                                                std::uint64_t guard_bytes) {
  auto side = std::make_unique<ReplaySide>(step.function, capture.launch(launch), step.geometry, guard_bytes);
  if (!step.params.empty()) side->set_steps({step});
  return side;
}

std::optional<LaunchStep> candidate_step(const ReplayPlan& plan, const CapturedLaunches& capture, CUfunction candidate,
                                         int launch, int sm_count, std::string* error) {
  const capture::LaunchRecord& rec = capture.launch(launch);
  const MergedLaunch* merged = capture.merged(launch);
  // A fused launch takes the first launch's configuration (fuse-elementwise
  // requires identical ones); the merged record's geometry is the first part's.
  const verifier::LaunchLayout* layout = plan.layout_for(launch);
  auto geometry = candidate_geometry(captured_geometry(rec), plan.candidate_launch, sm_count,
                                     layout ? verifier::integer_params(*layout, rec.param_buffer) : verifier::ParamValues{},
                                     error);
  if (!geometry) return std::nullopt;
  LaunchStep step{candidate, *geometry, {}};
  for (const auto& p : plan.candidate_params) {
    if (merged && (p.part < 0 || static_cast<std::size_t>(p.part) >= merged->param_count.size() || p.index < 0 ||
                   p.index >= merged->param_count[static_cast<std::size_t>(p.part)])) {
      if (error) *error = "the fusion declaration names parameter " + std::to_string(p.index) + " of launch " +
                          std::to_string(p.part) + ", which the captured launch does not have";
      return std::nullopt;
    }
    step.params.push_back(merged ? merged->merged_param(p) : p.index);
  }
  if (std::string why = step.params.empty() ? "" : step_param_mismatch(step, rec); !why.empty()) {
    if (error) *error = "the candidate's parameters do not fit the captured launches: " + why;
    return std::nullopt;
  }
  return step;
}

std::vector<bool> elided_allocations(const ReplayPlan& plan, const CapturedLaunches& capture, int launch) {
  const capture::LaunchRecord& rec = capture.launch(launch);
  const MergedLaunch* merged = capture.merged(launch);
  std::vector<bool> out(rec.allocations.size(), false);
  for (const auto& p : plan.elided) {
    const int a = allocation_of_param(rec, merged ? merged->merged_param(p) : p.index);
    if (a >= 0) out[static_cast<std::size_t>(a)] = true;
  }
  return out;
}

}  // namespace warplens::replay
