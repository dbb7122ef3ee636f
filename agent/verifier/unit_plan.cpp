#include "agent/verifier/unit_plan.h"

#include <algorithm>

#include "agent/verifier/plan_builder.h"

namespace warplens::verifier {

const capture::LaunchRecord& UnitPlan::record(int launch) const {
  for (std::size_t i = 0; i < launches.size(); ++i)
    if (launches[i] == launch) return records.at(i);
  throw std::runtime_error("internal: no unit " + std::to_string(launch));
}

std::vector<int> UnitPlan::parts(int launch) const {
  for (const auto& s : sequences)
    if (s.id == launch) return s.launches;
  return {launch};
}

namespace {

KernelSourceFacts facts_of(const TokenizedSource& source, const KernelDefinition* def, const std::string& name) {
  if (def) return kernel_source_facts(source, *def);
  KernelSourceFacts f;
  f.kernel = name;
  return f;
}

std::optional<UnitPlan> single_kernel(const UnitRequest& req, const capture::CaptureManifest& manifest,
                                      const TokenizedSource& original, const TokenizedSource& candidate,
                                      std::string* error) {
  auto selected = select_kernel_launches(manifest, req.kernel, req.timing_launch, error);
  if (!selected) return std::nullopt;
  UnitPlan u;
  u.symbol = u.original_symbol = u.candidate_symbol = selected->symbol;
  u.launches = selected->launches;
  for (int l : u.launches) u.records.push_back(manifest.launches.at(static_cast<std::size_t>(l)));
  const std::string name = kernel_base_name(u.symbol);
  u.original_name = u.candidate_name = name;
  const auto original_kernels = find_kernels(original);
  const auto candidate_kernels = find_kernels(candidate);
  const KernelDefinition* original_def = find_kernel(original_kernels, name);
  const KernelDefinition* candidate_def = find_kernel(candidate_kernels, name);
  std::string why;
  auto signature = resolve_signature(u.symbol, original_def, &why);
  if (!signature) {
    if (error) *error = "original source: " + why;
    return std::nullopt;
  }
  const capture::LaunchRecord& timed = u.records.front();
  if (signature->params.size() != timed.params.size()) {
    if (error)
      *error = "the original source's `" + name + "` has " + std::to_string(signature->params.size()) +
               " parameters, the captured launch has " + std::to_string(timed.params.size()) +
               ": is this the source the captured program was built from?";
    return std::nullopt;
  }
  u.signature = *signature;
  if (original_def) {
    KernelSourceFacts candidate_facts = req.candidate_facts ? *req.candidate_facts : facts_of(candidate, candidate_def, name);
    std::vector<CapturedScalar> scalars;
    for (const auto& r : u.records)
      for (const auto& s : captured_scalars(r, *signature)) scalars.push_back(s);
    u.source_findings = compare_kernel_sources(kernel_source_facts(original, *original_def), candidate_facts, scalars);
  }
  return u;
}

// The original pair's facts as one parameter list (producer's, then the
// consumer's), and the fused kernel's facts aligned to it: the uses of each
// unit parameter are those of the fused parameters it feeds. The two
// temporary parameters are exempt (not reading them is the point), and a
// parameter equal in every captured pair to one the candidate reads (the
// shared bound `n` of both kernels) counts as read through it.
std::vector<SourceFinding> compare_fused_sources(const KernelSourceFacts& a, const KernelSourceFacts& b,
                                                 const KernelSourceFacts& fused, const FusionSpec& fusion,
                                                 const UnitPlan& u, const std::vector<CapturedScalar>& scalars,
                                                 std::vector<std::string>& notes) {
  KernelSourceFacts original;
  original.found = a.found && b.found;
  original.kernel = a.kernel + " + " + b.kernel;
  for (const auto* f : {&a, &b}) {
    for (const auto& n : f->param_names) original.param_names.push_back(f->kernel + "." + n);
    original.param_uses.insert(original.param_uses.end(), f->param_uses.begin(), f->param_uses.end());
    original.literals.insert(original.literals.end(), f->literals.begin(), f->literals.end());
    original.device_side_launch = original.device_side_launch || f->device_side_launch;
    original.half_precision = original.half_precision || f->half_precision;
  }
  const std::size_t n = original.param_uses.size();
  const int a_count = static_cast<int>(a.param_uses.size());
  KernelSourceFacts aligned = fused;
  aligned.param_names = original.param_names;
  aligned.param_uses.assign(n, 0);
  for (std::size_t k = 0; k < fusion.params.size() && k < fused.param_uses.size(); ++k) {
    const auto& p = fusion.params[k];
    const std::size_t m = static_cast<std::size_t>((p.part == 0 ? 0 : a_count) + p.index);
    if (m < n) aligned.param_uses[m] += fused.param_uses[k];
  }
  const std::size_t tmp_a = static_cast<std::size_t>(fusion.elided);
  const std::size_t tmp_b = static_cast<std::size_t>(a_count + fusion.consumer_temporary());
  for (std::size_t m : {tmp_a, tmp_b})
    if (m < n) aligned.param_uses[m] = std::max(aligned.param_uses[m], original.param_uses[m]);
  for (std::size_t p = 0; p < n; ++p) {
    if (original.param_uses[p] == 0 || aligned.param_uses[p] > 0 || u.signature.params.at(p).is_pointer) continue;
    for (std::size_t q = 0; q < n; ++q) {
      if (q == p || aligned.param_uses[q] == 0 || u.signature.params.at(q).is_pointer) continue;
      if (!same_scalar_in_every_record(u.records, u.signature, p, q)) continue;
      aligned.param_uses[p] = original.param_uses[p];
      notes.push_back("source comparison: the fused kernel reads " + original.param_names[p] + " as " +
                      original.param_names[q] + " (equal in every captured pair)");
      break;
    }
  }
  return compare_kernel_sources(original, aligned, scalars);
}

std::optional<UnitPlan> fused_pair(const UnitRequest& req, const capture::CaptureManifest& manifest,
                                   const TokenizedSource& original, const TokenizedSource& candidate,
                                   std::string* error) {
  const FusionSpec& fusion = *req.fusion;
  auto fail = [&](const std::string& why) -> std::optional<UnitPlan> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (fusion.params.empty() || fusion.elided < 0 || fusion.consumer_temporary() < 0)
    return fail("the fusion declaration is incomplete (" + describe(fusion) + ")");
  auto pairs = select_launch_pairs(manifest, fusion, error);
  if (pairs.empty()) return std::nullopt;
  if (req.timing_launch >= 0) {
    auto it = std::find_if(pairs.begin(), pairs.end(),
                           [&](auto p) { return p.first == req.timing_launch || p.second == req.timing_launch; });
    if (it == pairs.end())
      return fail("launch " + std::to_string(req.timing_launch) + " of the capture is in no `" + fusion.first +
                  "` + `" + fusion.second + "` pair");
    std::rotate(pairs.begin(), it, it + 1);
  }
  const auto& first_a = manifest.launches.at(static_cast<std::size_t>(pairs.front().first));
  const auto& first_b = manifest.launches.at(static_cast<std::size_t>(pairs.front().second));
  UnitPlan u;
  u.original_symbol = first_a.kernel;
  u.symbol = first_a.kernel + " + " + first_b.kernel;
  const std::string name_a = kernel_base_name(first_a.kernel), name_b = kernel_base_name(first_b.kernel);
  u.original_name = name_a;
  u.original_steps = {{"", first_a.kernel, name_a}, {"", first_b.kernel, name_b}};
  u.candidate_name = req.kernel;  // its mangled name was never captured: found by name
  u.candidate_params = fusion.params;
  u.elided = {ParamSource{0, fusion.elided}};

  const auto original_kernels = find_kernels(original);
  const KernelDefinition* def_a = find_kernel(original_kernels, name_a);
  const KernelDefinition* def_b = find_kernel(original_kernels, name_b);
  std::string why;
  auto sig_a = resolve_signature(first_a.kernel, def_a, &why);
  if (!sig_a) return fail("original source: " + why);
  auto sig_b = resolve_signature(first_b.kernel, def_b, &why);
  if (!sig_b) return fail("original source: " + why);
  if (sig_a->params.size() != first_a.params.size() || sig_b->params.size() != first_b.params.size())
    return fail("the original source's `" + name_a + "` / `" + name_b + "` take " + std::to_string(sig_a->params.size()) +
                " / " + std::to_string(sig_b->params.size()) + " parameters, the captured launches " +
                std::to_string(first_a.params.size()) + " / " + std::to_string(first_b.params.size()) +
                ": is this the source the captured program was built from?");
  u.signature.name = name_a + "+" + name_b;
  u.signature.qualified = u.signature.name;
  u.signature.origin = sig_a->origin == sig_b->origin ? sig_a->origin : "symbol+source";
  for (const auto* sig : {&*sig_a, &*sig_b})
    for (auto p : sig->params) {
      p.name = (sig == &*sig_a ? name_a : name_b) + "." + (p.name.empty() ? "param" : p.name);
      u.signature.params.push_back(std::move(p));
    }

  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto& a = manifest.launches.at(static_cast<std::size_t>(pairs[k].first));
    const auto& b = manifest.launches.at(static_cast<std::size_t>(pairs[k].second));
    if (a.kernel != first_a.kernel || b.kernel != first_b.kernel) continue;  // another overload
    const int id = kSequenceLaunchBase + static_cast<int>(u.sequences.size());
    auto merged = merge_launches({&a, &b}, id, &why);
    if (!merged) return fail("launches " + std::to_string(a.index) + " and " + std::to_string(b.index) + ": " + why);
    // The temporary must be reached only through the two parameters that
    // carried it: anything else in that allocation would go unchecked.
    const int tmp_a = merged->merged_param({0, fusion.elided});
    const int tmp_b = merged->merged_param({1, fusion.consumer_temporary()});
    const int alloc = allocation_of_param(merged->record, tmp_a);
    if (alloc < 0)
      return fail("`" + name_a + "`'s parameter " + std::to_string(fusion.elided) +
                  " (the fused temporary) is not a device pointer in launch " + std::to_string(a.index));
    for (const auto& p : merged->record.pointers)
      if (p.allocation == alloc && p.param != tmp_a && p.param != tmp_b)
        return fail("the fused temporary's allocation is also reached through " +
                    u.signature.params.at(static_cast<std::size_t>(p.param)).name +
                    ": leaving it unchecked would hide that output");
    u.sequences.push_back({id, {a.index, b.index}});
    u.launches.push_back(id);
    u.records.push_back(std::move(merged->record));
  }
  if (u.launches.empty()) return fail("no `" + name_a + "` + `" + name_b + "` pair of the same kernel instances");
  const auto candidate_kernels = find_kernels(candidate);
  const KernelDefinition* def_f = find_kernel(candidate_kernels, req.kernel);
  KernelSourceFacts fused_facts = req.candidate_facts ? *req.candidate_facts : facts_of(candidate, def_f, req.kernel);
  std::vector<CapturedScalar> scalars;
  for (const auto& r : u.records)
    for (const auto& s : captured_scalars(r, u.signature)) scalars.push_back(s);
  if (def_a && def_b)
    u.source_findings = compare_fused_sources(kernel_source_facts(original, *def_a), kernel_source_facts(original, *def_b),
                                              fused_facts, fusion, u, scalars, u.notes);
  u.notes.push_back("fused launch sequence: every `" + name_a + "` launch followed by the `" + name_b +
                    "` launch that reads its temporary is replayed as one unit (" + std::to_string(u.launches.size()) +
                    " pair(s)); the candidate's `" + req.kernel + "` runs once in their place and every output of the "
                    "pair but the temporary (" + u.signature.params.at(static_cast<std::size_t>(fusion.elided)).name +
                    ") is compared");
  return u;
}

}  // namespace

std::optional<UnitPlan> plan_units(const UnitRequest& request, const capture::CaptureManifest& manifest,
                                   const TokenizedSource& original, const TokenizedSource& candidate,
                                   std::string* error) {
  return request.fusion ? fused_pair(request, manifest, original, candidate, error)
                        : single_kernel(request, manifest, original, candidate, error);
}

}  // namespace warplens::verifier
