#include "analysis/kernel_resource_report.h"

#include <algorithm>

#include "analysis/gpu_probe.h"
#include "analysis/kernel_report_text.h"
#include "analysis/kernel_symbols.h"

namespace warplens {

GpuSelection select_gpu(const std::string& arch_setting, bool probe_local_gpu) {
  GpuSelection s;
  if (arch_setting == "native") {
    GpuProbeResult local = probe_local_gpu ? probe_gpu() : GpuProbeResult{{}, "GPU probing disabled", 0};
    if (local.properties) {
      s.gpu = local.properties;
      s.arch = local.properties->arch;
      return s;
    }
    s.arch = "sm_90";
    s.gpu = catalog_properties(s.arch);
    s.note = "arch is \"native\" but no GPU answered (" + local.error + "); using " + s.arch;
    return s;
  }
  s.arch = arch_setting;
  auto cc = parse_arch(arch_setting);
  if (probe_local_gpu && cc) {
    GpuProbeResult local = probe_gpu();
    if (local.properties && local.properties->cc == *cc) {
      s.gpu = local.properties;
      return s;
    }
  }
  s.gpu = catalog_properties(arch_setting);
  if (!s.gpu)
    s.note = cc ? "no device properties for " + arch_setting + " (known: " + catalog_arch_list() + ")"
                : "unknown architecture \"" + arch_setting + "\" (expected e.g. sm_90, or native)";
  return s;
}

namespace {

std::string missing_resources_reason(const ResourceUsageResult& r) {
  switch (r.status) {
    case ResourceUsageStatus::Ok: return {};
    case ResourceUsageStatus::BuildFailed: return "nvcc could not compile the device code";
    case ResourceUsageStatus::NvccNotFound: return "nvcc not found";
    case ResourceUsageStatus::NotAllowed: return "nvcc not allowed to run";
    case ResourceUsageStatus::ArchUnsupported: return "nvcc cannot compile for " + r.requested_arch;
    case ResourceUsageStatus::Cancelled: return "resource usage not computed yet";
    case ResourceUsageStatus::TimedOut: return "nvcc timed out";
    case ResourceUsageStatus::Failed: return "nvcc could not run";
  }
  return "unknown";
}

// One instance's numbers (a kernel, or one instantiation of a template).
struct Evaluated {
  const FunctionResources* resources = nullptr;
  std::vector<LaunchOccupancy> launches;
  int worst = -1;  // index into launches
};

Evaluated evaluate(const FunctionResources& fr, const Function& kernel, const BlockShapeResolution& shapes,
                   const GpuSelection& gpu) {
  Evaluated e;
  e.resources = &fr;
  bool has_extern_shared = std::any_of(kernel.shared_arrays.begin(), kernel.shared_arrays.end(),
                                       [](const SharedArray& a) { return a.is_extern; });
  for (const auto& c : shapes.candidates) {
    LaunchOccupancy lo;
    lo.block = c;
    lo.shared_dynamic_bytes = c.dynamic_shared_bytes.value_or(0);
    lo.dynamic_shared_unknown =
        !c.dynamic_shared_bytes.has_value() || (has_extern_shared && c.source != BlockShapeSource::LaunchSite);
    if (gpu.gpu) {
      OccupancyInput in;
      in.registers = fr.registers.value_or(0);
      in.shared_static_bytes = fr.shared_static_bytes;
      in.shared_dynamic_bytes = lo.shared_dynamic_bytes;
      in.barriers = fr.barriers;
      in.block_threads = static_cast<int>(std::min<std::int64_t>(c.shape.threads(), 1 << 20));
      if (kernel.launch_bounds && kernel.launch_bounds->max_threads)
        in.launch_bounds_max_threads = static_cast<int>(*kernel.launch_bounds->max_threads);
      lo.result = compute_occupancy(*gpu.gpu, in);
    }
    e.launches.push_back(std::move(lo));
  }
  for (int i = 0; i < static_cast<int>(e.launches.size()); ++i) {
    const auto& r = e.launches[i].result;
    if (!r.ok) continue;
    if (e.worst < 0 || r.occupancy < e.launches[e.worst].result.occupancy) e.worst = i;
  }
  return e;
}

// What would let a block that fits nowhere launch: a smaller block, or
// (when registers are the problem and the block is legal) the register
// target ptxas picks under __launch_bounds__(threads).
KernelResourceReport::LaunchRemedy launch_remedy(const GpuProperties& gpu, const OccupancyInput& in) {
  KernelResourceReport::LaunchRemedy remedy;
  int top = gpu.max_threads_per_block;
  if (in.launch_bounds_max_threads > 0) top = std::min(top, in.launch_bounds_max_threads);
  for (int t = top / gpu.warp_size * gpu.warp_size; t >= gpu.warp_size; t -= gpu.warp_size) {
    OccupancyInput trial = in;
    trial.block_threads = t;
    if (compute_occupancy(gpu, trial).blocks_per_sm > 0) {
      remedy.largest_block = t;
      break;
    }
  }
  OccupancyInput legal = in;
  legal.launch_bounds_max_threads = 0;
  if (in.block_threads <= gpu.max_threads_per_block && compute_occupancy(gpu, legal).limit_registers == 0) {
    for (int regs = std::min(in.registers, gpu.max_regs_per_thread); regs >= 1; --regs) {
      legal.registers = regs;
      OccupancyResult fit = compute_occupancy(gpu, legal);
      if (fit.blocks_per_sm > 0) {
        remedy.registers_to_fit = regs;
        remedy.launch_bounds_help = true;
        break;
      }
    }
  }
  if (in.launch_bounds_max_threads > 0 && in.block_threads > in.launch_bounds_max_threads &&
      in.block_threads <= gpu.max_threads_per_block) {
    // Raising the bound to the launch's size makes it legal, if the
    // registers ptxas then targets let one block fit.
    OccupancyInput raised = in;
    raised.launch_bounds_max_threads = in.block_threads;
    OccupancyResult now = compute_occupancy(gpu, raised);
    remedy.launch_bounds_help = now.blocks_per_sm > 0 || remedy.launch_bounds_help;
  }
  return remedy;
}

std::string unresolved_description(const LaunchSite& l) {
  return "line " + std::to_string(l.range.start.line + 1) + ": `" + l.block.spelling + "`";
}

}  // namespace

KernelResourceReport build_kernel_report(const KernelModel& model, const Function& kernel,
                                         const ResourceUsageResult& resources, const GpuSelection& gpu,
                                         const AnalysisOptions& options) {
  KernelResourceReport rep;
  rep.kernel = kernel.key;
  rep.name = kernel.name;
  rep.name_range = kernel.name_range;
  rep.arch = gpu.gpu ? gpu.gpu->arch : gpu.arch;
  if (gpu.gpu) {
    rep.gpu = gpu.gpu->name;
    rep.gpu_source = gpu.gpu->source;
  }
  BlockShapeResolution shapes = resolve_block_shapes(model, kernel, options);
  for (int i : shapes.unresolved_launches) rep.unresolved_launches.push_back(unresolved_description(model.launches[i]));
  const BlockShapeCandidate& first = shapes.candidates.front();
  rep.block_size = first.shape;
  rep.block_source = first.source;
  rep.block_source_detail = first.description;

  // Which of ptxas' functions are this kernel.
  std::vector<const FunctionResources*> entries;
  std::vector<std::string> names;
  if (resources.status == ResourceUsageStatus::Ok) {
    for (const auto& f : resources.functions)
      if (f.is_entry && f.registers) {
        entries.push_back(&f);
        names.push_back(f.demangled);
      }
  }
  std::vector<int> matched = match_function_symbols(kernel, names);
  if (resources.status != ResourceUsageStatus::Ok) {
    rep.resources_missing = missing_resources_reason(resources);
  } else if (matched.empty()) {
    rep.resources_missing = kernel.is_template ? "the template is not instantiated in this file"
                                               : "ptxas reported no code for `" + kernel.name + "`";
  }
  if (!rep.resources_missing.empty()) {
    rep.occupancy_missing = rep.resources_missing;
    rep.code_lens = code_lens_text(rep);
    rep.hover_markdown = kernel_hover_markdown(rep);
    return rep;
  }

  // Templates: report the instantiation with the lowest occupancy (or the
  // most registers when occupancy is unknown), list the others.
  std::vector<Evaluated> evaluated;
  for (int i : matched) evaluated.push_back(evaluate(*entries[i], kernel, shapes, gpu));
  auto worse = [](const Evaluated& a, const Evaluated& b) {
    bool ka = a.worst >= 0, kb = b.worst >= 0;
    if (ka && kb) return a.launches[a.worst].result.occupancy < b.launches[b.worst].result.occupancy;
    if (ka != kb) return ka;
    return a.resources->registers.value_or(0) > b.resources->registers.value_or(0);
  };
  auto chosen_it = std::min_element(evaluated.begin(), evaluated.end(), worse);
  Evaluated chosen = *chosen_it;
  for (const auto& e : evaluated)
    if (e.resources != chosen.resources)
      rep.other_instances.push_back(e.resources->demangled + ": " +
                                    std::to_string(e.resources->registers.value_or(0)) + " registers");

  const FunctionResources& fr = *chosen.resources;
  rep.resources_known = true;
  rep.instance = fr.demangled;
  rep.registers = fr.registers.value_or(0);
  rep.shared_static_bytes = fr.shared_static_bytes;
  rep.stack_bytes = fr.stack_bytes();
  rep.spill_store_bytes = fr.spill_store_bytes;
  rep.spill_load_bytes = fr.spill_load_bytes;
  rep.barriers = fr.barriers;
  rep.register_limit = fr.register_limit;
  rep.launches = chosen.launches;

  if (!gpu.gpu) {
    rep.occupancy_missing = gpu.note;
  } else if (chosen.worst < 0) {
    rep.occupancy_missing = chosen.launches.empty() ? "no block size" : chosen.launches.front().result.error;
  } else {
    const LaunchOccupancy& w = chosen.launches[chosen.worst];
    const OccupancyResult& r = w.result;
    rep.block_size = w.block.shape;
    rep.block_source = w.block.source;
    rep.block_source_detail = w.block.description;
    rep.shared_dynamic_bytes = w.shared_dynamic_bytes;
    rep.occupancy_known = true;
    rep.occupancy = r.occupancy;
    rep.blocks_per_sm = r.blocks_per_sm;
    rep.active_warps = r.active_warps;
    rep.max_warps = r.max_warps;
    const bool full = r.occupancy >= 1.0 - 1e-9;
    rep.limiter = r.limiters && !full ? limiter_name(primary_limiter(r.limiters)) : "none";
    rep.limiters = full ? "none" : limiter_list(r.limiters);
    rep.cannot_launch = r.cannot_launch;
    OccupancyInput in;
    in.registers = rep.registers;
    in.shared_static_bytes = rep.shared_static_bytes;
    in.shared_dynamic_bytes = rep.shared_dynamic_bytes;
    in.barriers = rep.barriers;
    in.block_threads = static_cast<int>(rep.block_size.threads());
    if (kernel.launch_bounds && kernel.launch_bounds->max_threads)
      in.launch_bounds_max_threads = static_cast<int>(*kernel.launch_bounds->max_threads);
    std::vector<int> extra;
    for (const auto& l : chosen.launches) extra.push_back(static_cast<int>(l.block.shape.threads()));
    rep.table = occupancy_table(*gpu.gpu, in, table_block_sizes(extra));
    std::vector<int> every;
    for (int t = gpu.gpu->warp_size; t <= gpu.gpu->max_threads_per_block; t += gpu.gpu->warp_size) every.push_back(t);
    rep.curve = occupancy_table(*gpu.gpu, in, every);
    if (r.blocks_per_sm > 0) rep.lever = find_lever(*gpu.gpu, in, r, options.occupancy_threshold);
    if (!r.cannot_launch.empty()) rep.remedy = launch_remedy(*gpu.gpu, in);
  }
  rep.code_lens = code_lens_text(rep);
  rep.hover_markdown = kernel_hover_markdown(rep);
  return rep;
}

}  // namespace warplens
