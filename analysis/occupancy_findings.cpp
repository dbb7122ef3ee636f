#include "analysis/occupancy_findings.h"

#include <algorithm>

#include "analysis/kernel_symbols.h"
#include "analysis/launch_bounds_fix.h"

namespace warplens {

namespace {

std::string source_phrase(const KernelResourceReport& r) {
  switch (r.block_source) {
    case BlockShapeSource::LaunchSite: return r.block_source_detail;
    case BlockShapeSource::LaunchBounds: return "from " + r.block_source_detail;
    case BlockShapeSource::KernelSetting: return "from the kernelBlockSizes setting";
    case BlockShapeSource::DefaultSetting: return "from the defaultBlockSize setting";
    case BlockShapeSource::BuiltinDefault: return "assumed: no launch, __launch_bounds__ or setting gives one";
  }
  return {};
}

std::string block_phrase(const BlockShape& b) {
  std::string s = format_block_shape(b);
  return (b.y != 1 || b.z != 1) ? s + " (" + std::to_string(b.threads()) + "-thread)" : s + "-thread";
}

Finding base_finding(const std::string& code, Severity sev, const std::string& file, Range range) {
  Finding f;
  f.code = code;
  f.severity = sev;
  f.location = {file, range};
  return f;
}

// Does the verdict depend on the block size we guessed? Not when every
// launchable size in the table is below the threshold as well.
bool every_size_below(const KernelResourceReport& r, double threshold) {
  for (const auto& row : r.table)
    if (!row.exceeds_launch_bounds && row.result.ok && row.result.occupancy + 1e-9 >= threshold) return false;
  return true;
}

void add_launch_related(Finding& f, const KernelResourceReport& r, const KernelModel& model, const std::string& file) {
  for (const auto& l : r.launches) {
    if (!(l.block.shape == r.block_size)) continue;
    for (int i : l.block.launch_indices) {
      const LaunchSite& site = model.launches[i];
      f.related.push_back({{file, site.range}, "launched with <<<" + site.grid.spelling + ", " +
                                                   site.block.spelling + ">>> here"});
    }
  }
}

}  // namespace

namespace {

bool is_integer_literal(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

void set_occupancy_evidence(Finding& f, const KernelResourceReport& r, double threshold) {
  f.data.set("registers", static_cast<std::int64_t>(r.registers));
  f.data.set("blocks_per_sm", static_cast<std::int64_t>(r.blocks_per_sm));
  f.data.set("occupancy", r.occupancy);
  f.data.set("limiter", r.limiter);
  f.data.set("block_size", static_cast<std::int64_t>(r.block_size.threads()));
  f.data.set("block_shape", format_block_shape(r.block_size));
  f.data.set("block_source", std::string(to_string(r.block_source)));
  f.data.set("arch", r.arch);
  f.data.set("shared_static_bytes", r.shared_static_bytes);
  f.data.set("shared_dynamic_bytes", r.shared_dynamic_bytes);
  f.data.set("threshold", threshold);
}

// The fixes for a block that fits nowhere: __launch_bounds__ with the block
// size (ptxas then fits the registers to it), and, at a launch whose block
// is an integer literal, the largest block that fits.
std::vector<Fix> cannot_launch_fixes(const KernelResourceReport& r, const Function& kernel, const std::string& file,
                                     const LaunchSite* site) {
  std::vector<Fix> fixes;
  const int threads = static_cast<int>(r.block_size.threads());
  if (r.remedy.launch_bounds_help) {
    int min_blocks = kernel.launch_bounds && kernel.launch_bounds->max_threads == threads
                         ? static_cast<int>(kernel.launch_bounds->min_blocks.value_or(0))
                         : 0;
    if (auto fix = launch_bounds_fix(kernel, file, threads, min_blocks)) {
      if (r.remedy.registers_to_fit > 0)
        fix->title += " (ptxas fits " + std::to_string(r.remedy.registers_to_fit) +
                      " registers per thread; check register-spill afterwards)";
      fix->preferred = true;
      fixes.push_back(std::move(*fix));
    }
  }
  if (site && r.remedy.largest_block > 0 && r.block_size.y == 1 && r.block_size.z == 1 &&
      is_integer_literal(site->block.spelling) && !site->block.range.empty()) {
    Fix fix;
    fix.file = file;
    fix.title = "Launch with " + std::to_string(r.remedy.largest_block) + " threads per block (the largest that " +
                "fits; adjust the grid to cover the data)";
    fix.edits.push_back({site->block.range, std::to_string(r.remedy.largest_block)});
    fixes.push_back(std::move(fix));
  }
  return fixes;
}

std::string remedy_phrase(const KernelResourceReport& r) {
  std::string s;
  const std::string threads = std::to_string(r.block_size.threads());
  if (r.remedy.launch_bounds_help)
    s = "`__launch_bounds__(" + threads + ")` lets ptxas fit the registers to " + threads + " threads" +
        (r.remedy.registers_to_fit > 0 ? " (" + std::to_string(r.remedy.registers_to_fit) + " per thread)" : "");
  if (r.remedy.largest_block > 0)
    s += (s.empty() ? "launch" : ", or launch") + std::string(" at most ") + std::to_string(r.remedy.largest_block) +
         " threads per block";
  return s;
}

}  // namespace

std::vector<Finding> kernel_findings(const KernelResourceReport& r, const Function& kernel, const KernelModel& model,
                                     const AnalysisOptions& options, const std::string& file) {
  std::vector<Finding> out;
  const double threshold = options.occupancy_threshold;
  if (r.occupancy_known && !r.cannot_launch.empty()) {
    // On the kernel, and on every launch with the offending block.
    Finding f = base_finding(codes::kCannotLaunch, Severity::Error, file, r.name_range);
    f.kernel = r.kernel;
    // Only a launch in this file is certain to fail; a block from a setting
    // or our own guess may not be what the program uses.
    if (r.block_source != BlockShapeSource::LaunchSite) f.severity = Severity::Information;
    std::string remedy = remedy_phrase(r);
    f.message = "`" + r.name + "` cannot launch with " + block_phrase(r.block_size) + " blocks (" + source_phrase(r) +
                "): " + r.cannot_launch + (remedy.empty() ? "" : " — " + remedy);
    f.fixes = cannot_launch_fixes(r, kernel, file, nullptr);
    set_occupancy_evidence(f, r, threshold);
    f.data.set("reason", r.cannot_launch);
    if (r.remedy.largest_block > 0) f.data.set("largest_block", static_cast<std::int64_t>(r.remedy.largest_block));
    if (r.remedy.registers_to_fit > 0)
      f.data.set("registers_to_fit", static_cast<std::int64_t>(r.remedy.registers_to_fit));
    add_launch_related(f, r, model, file);
    for (const auto& l : r.launches) {
      if (!(l.block.shape == r.block_size) || l.block.source != BlockShapeSource::LaunchSite) continue;
      for (int i : l.block.launch_indices) {
        const LaunchSite& site = model.launches[i];
        Finding at = base_finding(codes::kCannotLaunch, Severity::Error, file, site.range);
        at.kernel = r.kernel;
        at.message = "this launch of `" + r.name + "` fails: " + r.cannot_launch +
                     (remedy.empty() ? "" : " — " + remedy);
        at.fixes = cannot_launch_fixes(r, kernel, file, &site);
        at.data = f.data;
        at.related.push_back({{file, r.name_range}, "`" + r.name + "` is defined here"});
        out.push_back(std::move(at));
      }
    }
    out.insert(out.begin(), std::move(f));
  } else if (r.occupancy_known && r.occupancy + 1e-9 < threshold) {
    Finding f = base_finding(codes::kLowOccupancy, Severity::Warning, file, r.name_range);
    f.kernel = r.kernel;
    bool guessed = r.block_source == BlockShapeSource::BuiltinDefault;
    if (guessed && !every_size_below(r, threshold)) f.severity = Severity::Information;
    f.message = "low occupancy: `" + r.name + "` reaches " + format_percent(r.occupancy) + " (" +
                std::to_string(r.active_warps) + " of " + std::to_string(r.max_warps) + " warps per SM) on " + r.arch +
                " with " + block_phrase(r.block_size) + " blocks (" + source_phrase(r) + ")";
    f.message += r.lever ? " — " + r.lever->text : "; limited by " + r.limiters;
    if (r.lever && r.lever->launch_bounds) {
      if (auto fix = launch_bounds_fix(kernel, file, r.lever->launch_bounds->first, r.lever->launch_bounds->second)) {
        fix->title += " (may make ptxas spill: check register-spill afterwards)";
        f.fixes.push_back(std::move(*fix));
      }
    }
    set_occupancy_evidence(f, r, threshold);
    // The kernel's hover shows the resources and occupancy (the report's
    // hover_markdown) once; the finding adds only why it matters.
    f.explanation_markdown =
        "Fewer resident warps hide less memory latency. Higher occupancy is not always faster (fewer registers "
        "can mean spills): measure after a change.";
    add_launch_related(f, r, model, file);
    out.push_back(std::move(f));
  }
  if (r.resources_known && (r.spill_store_bytes > 0 || r.spill_load_bytes > 0)) {
    Finding f = base_finding(codes::kRegisterSpill, Severity::Warning, file, r.name_range);
    f.kernel = r.kernel;
    f.message = "`" + r.name + "` spills registers to local memory: " + format_bytes(r.spill_store_bytes) +
                " stored and " + format_bytes(r.spill_load_bytes) + " loaded per thread, at " +
                std::to_string(r.registers) + " registers on " + r.arch;
    std::string cause;
    if (r.register_limit) cause = "`-maxrregcount=" + std::to_string(*r.register_limit) + "` caps the registers";
    else if (kernel.launch_bounds && kernel.launch_bounds->min_blocks)
      cause = "`" + kernel.launch_bounds->spelling + "` limits the registers to fit " +
              std::to_string(*kernel.launch_bounds->min_blocks) + " blocks per SM";
    if (!cause.empty()) f.message += " (" + cause + ")";
    f.data.set("spill_store_bytes", r.spill_store_bytes);
    f.data.set("spill_load_bytes", r.spill_load_bytes);
    f.data.set("registers", static_cast<std::int64_t>(r.registers));
    f.data.set("stack_bytes", r.stack_bytes);
    f.data.set("arch", r.arch);
    if (r.register_limit) f.data.set("register_limit", static_cast<std::int64_t>(*r.register_limit));
    f.explanation_markdown =
        "ptxas ran out of registers for `" + r.name + "` and keeps some values in local memory (per-thread "
        "global memory, cached in L1/L2): every spill is an extra memory instruction.\n\n" +
        (cause.empty() ? std::string("Reduce live values (smaller unrolled arrays, recompute instead of keeping), "
                                     "or allow more registers.")
                       : cause + ": relax it, or reduce live values.");
    out.push_back(std::move(f));
  }
  return out;
}

namespace {

// "Entry function '_Z1kPf' uses too much shared data": the function's name range.
std::optional<Range> range_of_symbol_in(const std::string& message, const KernelModel& model) {
  auto q1 = message.find('\'');
  auto q2 = q1 == std::string::npos ? q1 : message.find('\'', q1 + 1);
  if (q2 == std::string::npos) return std::nullopt;
  std::vector<std::string> one = {demangle(message.substr(q1 + 1, q2 - q1 - 1))};
  for (const auto& fn : model.functions)
    if (!match_function_symbols(fn, one).empty() && !fn.name_range.empty()) return fn.name_range;
  return std::nullopt;
}

Finding build_failure(const ResourceUsageResult& res, const KernelModel& model, const std::string& file) {
  const ToolDiagnostic* first = nullptr;
  for (const auto& d : res.diagnostics)
    if (d.level != ToolDiagnostic::Level::Warning) {
      first = &d;
      break;
    }
  bool device_codegen = first && (first->tool == "ptxas" || first->tool == "nvlink");
  Finding f = base_finding(codes::kResourceUsage, device_codegen ? Severity::Error : Severity::Warning, file, {});
  if (first) {
    if (auto at = range_of_symbol_in(first->message, model)) f.location.range = *at;
    else if (first->file == file && first->line > 0) f.location.range = {{first->line - 1, 0}, {first->line, 0}};
  }
  f.message = "nvcc could not compile the device code for " + res.compiled_arch +
              ", so registers and occupancy are unknown: " + (first ? first->text() : res.message);
  std::string excerpt;
  int lines = 0;
  for (std::size_t pos = 0; pos < res.raw_output.size() && lines < 12; ++lines) {
    auto nl = res.raw_output.find('\n', pos);
    excerpt += res.raw_output.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos + 1);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  f.explanation_markdown = "nvcc's output:\n\n```\n" + excerpt + "```\n\nCommand:\n\n```sh\n" + res.command + "\n```";
  f.data.set("command", res.command);
  f.data.set("arch", res.compiled_arch);
  f.data.set("status", std::string(to_string(res.status)));
  f.data.set("cuda_version", res.cuda_version);
  return f;
}

}  // namespace

std::vector<Finding> resource_usage_findings(const ResourceUsageResult& res, const GpuSelection& gpu,
                                             const KernelModel& model, const std::string& file) {
  std::vector<Finding> out;
  auto note = [&](Severity sev, std::string message) {
    Finding f = base_finding(codes::kResourceUsage, sev, file, {});
    f.message = std::move(message);
    f.data.set("status", std::string(to_string(res.status)));
    out.push_back(std::move(f));
  };
  switch (res.status) {
    case ResourceUsageStatus::Ok: break;
    case ResourceUsageStatus::BuildFailed: out.push_back(build_failure(res, model, file)); break;
    case ResourceUsageStatus::NvccNotFound:
      note(Severity::Information, "registers, shared memory and occupancy need the CUDA toolkit: " + res.message);
      break;
    case ResourceUsageStatus::ArchUnsupported: note(Severity::Information, res.message); break;
    case ResourceUsageStatus::NotAllowed:
      note(Severity::Warning, "registers, shared memory and occupancy unavailable: " + res.message);
      break;
    case ResourceUsageStatus::TimedOut:
    case ResourceUsageStatus::Failed:
      note(Severity::Warning, "resource usage unavailable: " + res.message);
      break;
    case ResourceUsageStatus::Cancelled: return out;
  }
  if (!res.arch_note.empty()) note(Severity::Information, res.arch_note);
  for (const auto& refused : res.refused_flags) note(Severity::Warning, refused);
  if (!gpu.note.empty()) note(Severity::Information, gpu.note);
  if (res.status == ResourceUsageStatus::Ok && gpu.gpu && !occupancy_calculator_available())
    note(Severity::Information,
         "occupancy unavailable: this warplens was built without CUDA's cuda_occupancy.h (CUDA toolkit headers)");
  for (const auto& d : res.diagnostics)
    if (d.level == ToolDiagnostic::Level::Warning && d.tool == "nvlink") note(Severity::Information, d.text());

  // Spills in non-inlined __device__ functions (kernels report their own).
  if (res.status == ResourceUsageStatus::Ok) {
    for (const auto& fr : res.functions) {
      if (fr.is_entry || (fr.spill_store_bytes == 0 && fr.spill_load_bytes == 0)) continue;
      for (const auto& fn : model.functions) {
        if (fn.kind == FunctionKind::Kernel || match_function_symbols(fn, {fr.demangled}).empty()) continue;
        Finding f = base_finding(codes::kRegisterSpill, Severity::Warning, file, fn.name_range);
        f.kernel = fn.key;
        f.message = "`" + fn.name + "` spills registers to local memory: " + format_bytes(fr.spill_store_bytes) +
                    " stored and " + format_bytes(fr.spill_load_bytes) + " loaded per call, on " + res.compiled_arch;
        f.data.set("spill_store_bytes", fr.spill_store_bytes);
        f.data.set("spill_load_bytes", fr.spill_load_bytes);
        f.data.set("stack_bytes", fr.stack_bytes());
        f.data.set("arch", res.compiled_arch);
        out.push_back(std::move(f));
        break;
      }
    }
  }
  return out;
}

OccupancyAnalysis analyze_occupancy(const std::string& file, const KernelModel& model,
                                    const ResourceUsageResult& resources, const GpuSelection& gpu,
                                    const AnalysisOptions& options) {
  OccupancyAnalysis a;
  a.gpu = gpu;
  a.resources = resources;
  a.cancelled = resources.status == ResourceUsageStatus::Cancelled;
  a.findings = resource_usage_findings(resources, gpu, model, file);
  for (const auto& fn : model.functions) {
    if (fn.kind != FunctionKind::Kernel) continue;
    KernelResourceReport r = build_kernel_report(model, fn, resources, gpu, options);
    for (auto& f : kernel_findings(r, fn, model, options, file)) a.findings.push_back(std::move(f));
    a.kernels.push_back(std::move(r));
  }
  return a;
}

OccupancyAnalysis run_occupancy_analysis(const OccupancyRequest& request, const KernelModel& model,
                                         const AnalysisOptions& options, std::stop_token stop) {
  GpuSelection gpu = select_gpu(options.arch, request.probe_local_gpu);
  ResourceUsageRequest req;
  req.path = request.file.path;
  req.text = request.file.text;
  req.arch = gpu.arch;
  req.cuda_path = options.cuda_path;
  req.compile_args = request.compile_args;
  req.compile_args.insert(req.compile_args.end(), options.extra_args.begin(), options.extra_args.end());
  req.working_directory = request.working_directory;
  req.allowed_drivers = options.allowed_drivers;
  ResourceUsageResult res =
      compute_resource_usage(req, stop, request.cache ? request.cache : &default_resource_cache());
  if (res.status == ResourceUsageStatus::Cancelled) {
    OccupancyAnalysis a;
    a.gpu = std::move(gpu);
    a.resources = std::move(res);
    a.cancelled = true;
    return a;
  }
  return analyze_occupancy(request.file.path, model, res, gpu, options);
}

}  // namespace warplens
