#include "formats/report_json.h"

#include "formats/model_json.h"

namespace warplens::formats {

using nlohmann::json;

namespace {

json occupancy_row_json(const OccupancyRow& row) {
  const OccupancyResult& r = row.result;
  json j = {{"block_threads", row.block_threads}, {"exceeds_launch_bounds", row.exceeds_launch_bounds}};
  if (!r.ok || !r.cannot_launch.empty()) {
    j["occupancy"] = nullptr;
    j["cannot_launch"] = r.ok ? r.cannot_launch : r.error;
    return j;
  }
  j["blocks_per_sm"] = r.blocks_per_sm;
  j["active_warps"] = r.active_warps;
  j["occupancy"] = r.occupancy;
  j["limiter"] = r.limiters ? limiter_name(primary_limiter(r.limiters)) : "none";
  return j;
}

json lever_json(const OccupancyLever& lever) {
  json j = {{"limiter", lever.limiter ? limiter_name(lever.limiter) : "none"}, {"text", lever.text}};
  j["launch_bounds"] =
      lever.launch_bounds ? json::array({lever.launch_bounds->first, lever.launch_bounds->second}) : json();
  return j;
}

}  // namespace

json kernel_resources_json(const KernelResourceReport& r, Converter& convert, const std::string& file) {
  json j = {{"kernel", r.kernel},
            {"name", r.name},
            {"name_range", convert.range(file, r.name_range)},
            {"instance", r.instance},
            {"other_instances", r.other_instances},
            {"arch", r.arch},
            {"gpu", r.gpu},
            {"gpu_source", r.gpu_source},
            {"resources_known", r.resources_known},
            {"occupancy_known", r.occupancy_known},
            {"code_lens", r.code_lens}};
  if (r.resources_known) {
    j["registers"] = r.registers;
    j["shared_static_bytes"] = r.shared_static_bytes;
    j["stack_bytes"] = r.stack_bytes;
    j["spill_store_bytes"] = r.spill_store_bytes;
    j["spill_load_bytes"] = r.spill_load_bytes;
    j["barriers"] = r.barriers;
    j["register_limit"] = r.register_limit ? json(*r.register_limit) : json();
  } else {
    for (const char* key : {"registers", "shared_static_bytes", "stack_bytes", "spill_store_bytes",
                            "spill_load_bytes", "barriers", "register_limit"})
      j[key] = nullptr;
    j["resources_missing"] = r.resources_missing;
  }
  j["block_size"] = {{"x", r.block_size.x},
                     {"y", r.block_size.y},
                     {"z", r.block_size.z},
                     {"threads", r.block_size.threads()},
                     {"source", to_string(r.block_source)},
                     {"detail", r.block_source_detail}};
  j["shared_dynamic_bytes"] = r.shared_dynamic_bytes;
  j["unresolved_launches"] = r.unresolved_launches;
  if (r.occupancy_known) {
    j["occupancy"] = r.occupancy;
    j["blocks_per_sm"] = r.blocks_per_sm;
    j["active_warps"] = r.active_warps;
    j["max_warps"] = r.max_warps;
    j["limiter"] = r.limiter;
    j["limiters"] = r.limiters;
  } else {
    for (const char* key : {"occupancy", "blocks_per_sm", "active_warps", "max_warps", "limiter", "limiters"})
      j[key] = nullptr;
    j["occupancy_missing"] = r.occupancy_missing;
  }
  if (!r.cannot_launch.empty()) j["cannot_launch"] = r.cannot_launch;
  json table = json::array();
  for (const auto& row : r.table) table.push_back(occupancy_row_json(row));
  j["table"] = table;
  j["lever"] = r.lever ? lever_json(*r.lever) : json();
  return j;
}

json resource_usage_json(const OccupancyAnalysis& a) {
  const ResourceUsageResult& r = a.resources;
  return {{"status", to_string(r.status)},
          {"message", r.message},
          {"requestedArch", r.requested_arch},
          {"compiledArch", r.compiled_arch},
          {"archNote", r.arch_note},
          {"gpu", a.gpu.gpu ? json(a.gpu.gpu->name) : json()},
          {"gpuNote", a.gpu.note},
          {"cudaVersion", r.cuda_version},
          {"command", r.command},
          {"relocatable", r.relocatable},
          {"fromCache", r.from_cache},
          {"wallMs", r.wall_ms}};
}

json file_report_json(const FileReport& report, Converter& convert) {
  const AnalysisResult& result = *report.analysis;
  KernelModel model_copy;
  const KernelModel* model = &result.model;
  if (model->file.empty()) {  // a front end that could not run names no file
    model_copy = result.model;
    model_copy.file = report.path;
    model = &model_copy;
  }
  json file = model_json(*model, convert);
  file["file"] = report.path;
  file["parsed"] = result.parsed;
  file["parseMs"] = result.parse_ms;
  file["analysisMs"] = result.analysis_ms;  // static analyses only (not nvcc)
  file["toolchain"] = toolchain_json(result.toolchain);
  json kernels = json::array();
  if (report.resources) {
    file["resourceUsage"] = resource_usage_json(*report.resources);
    for (const auto& k : report.resources->kernels) kernels.push_back(kernel_resources_json(k, convert, report.path));
  } else {
    file["resourceUsage"] = {{"status", "skipped"}, {"message", report.resources_skipped}};
  }
  file["kernels"] = kernels;
  json diagnostics = json::array();
  if (report.diagnostics)
    for (const auto& f : *report.diagnostics) diagnostics.push_back(finding_json(f, convert));
  file["diagnostics"] = diagnostics;
  return file;
}

}  // namespace warplens::formats
