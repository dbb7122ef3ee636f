#include "mcp/result_json.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "mcp/workspace.h"

namespace warplens::mcp {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// UTF-16 code units in the first `bytes` bytes of `line` (a byte column
// past the end counts the rest as single units).
int utf16_units(std::string_view line, int bytes) {
  int units = 0;
  std::size_t i = 0, end = std::min(line.size(), static_cast<std::size_t>(std::max(bytes, 0)));
  while (i < end) {
    auto c = static_cast<unsigned char>(line[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    units += len == 4 ? 2 : 1;  // astral characters are surrogate pairs
    i += len;
  }
  return units + std::max(0, bytes - static_cast<int>(line.size()));
}

std::string_view line_of(const std::string& text, int line) {
  std::size_t start = 0;
  for (int l = 0; l < line; ++l) {
    start = text.find('\n', start);
    if (start == std::string::npos) return {};
    ++start;
  }
  std::size_t end = text.find('\n', start);
  return std::string_view(text).substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string file_uri(const std::string& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string uri = "file://";
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      uri.push_back(ch);
    } else {
      uri.push_back('%');
      uri.push_back(kHex[c >> 4]);
      uri.push_back(kHex[c & 15]);
    }
  }
  return uri;
}

json evidence_json(const Evidence& e) {
  json j = json::object();
  for (const auto& [key, value] : e.fields) std::visit([&](const auto& v) { j[key] = v; }, value);
  return j;
}

json expression(const ExprRef& e) {
  if (!e) return nullptr;
  auto poly = to_polynomial(e);
  return {{"tree", to_string(e)}, {"affine", poly ? poly->to_string() : std::string("not affine")}};
}

const char* kind_name(FunctionKind k) {
  switch (k) {
    case FunctionKind::Kernel: return "kernel";
    case FunctionKind::Device: return "device";
    case FunctionKind::HostDevice: return "host-device";
  }
  return "kernel";
}

template <class T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json();
}

json dim3_json(const Dim3Value& d) { return {{"spelling", d.spelling}, {"value", d.value ? json(*d.value) : json()}}; }

}  // namespace

RangeConverter::RangeConverter(std::string path, std::string text, std::string root)
    : path_(std::move(path)), root_(std::move(root)) {
  texts_[path_] = std::make_shared<std::string>(std::move(text));
}

const std::string* RangeConverter::text_of(const std::string& file) {
  auto it = texts_.find(file);
  if (it != texts_.end()) return it->second.get();
  std::shared_ptr<std::string> text;
  std::error_code ec;
  auto canon = fs::weakly_canonical(file, ec);
  // Only the workspace's own files are read; a system header keeps byte columns.
  if (!ec && is_within(canon, root_) && fs::is_regular_file(canon, ec) && fs::file_size(canon, ec) < (16u << 20)) {
    std::ifstream in(canon, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    text = std::make_shared<std::string>(ss.str());
  }
  texts_[file] = text;
  return text.get();
}

json RangeConverter::range(const std::string& file, const Range& r) {
  const std::string* text = text_of(file.empty() ? path_ : file);
  auto pos = [&](const Position& p) {
    int character = text ? utf16_units(line_of(*text, p.line), p.column) : p.column;
    return json{{"line", p.line}, {"character", character}};
  };
  return {{"start", pos(r.start)}, {"end", pos(r.end)}};
}

json finding_json(const Finding& f, RangeConverter& convert, const std::string& docs_dir) {
  const std::string& file = f.location.file.empty() ? convert.path() : f.location.file;
  json j = {{"code", f.code},
            {"severity", warplens::to_string(f.severity)},
            {"source", f.source.empty() ? std::string("warplens") : f.source},
            {"message", f.message},
            {"file", file},
            {"range", convert.range(file, f.location.range)},
            {"numbers", evidence_json(f.data)}};
  if (!f.kernel.empty()) j["kernel"] = f.kernel;
  std::error_code ec;
  if (!docs_dir.empty() && !f.code.empty() && f.code.find('/') == std::string::npos) {
    fs::path page = fs::path(docs_dir) / (f.code + ".md");
    if (fs::is_regular_file(page, ec)) j["docs"] = file_uri(page.string());
  }
  return j;
}

json function_json(const Function& f, RangeConverter& convert) {
  auto range = [&](const Range& r) { return convert.range(r); };
  json j = {{"name", f.name},
            {"key", f.key},
            {"signature", f.signature},
            {"kind", kind_name(f.kind)},
            {"range", range(f.range)},
            {"isTemplate", f.is_template},
            {"templateArgs", f.template_args},
            {"launchBounds", nullptr}};
  if (f.launch_bounds)
    j["launchBounds"] = {{"maxThreads", optional_json(f.launch_bounds->max_threads)},
                         {"minBlocks", optional_json(f.launch_bounds->min_blocks)},
                         {"spelling", f.launch_bounds->spelling}};
  json params = json::array(), shared = json::array(), accesses = json::array(), barriers = json::array(),
       loops = json::array();
  for (const auto& p : f.params)
    params.push_back({{"name", p.name},
                      {"type", p.type},
                      {"isPointer", p.is_pointer},
                      {"pointeeType", p.pointee_type},
                      {"pointeeConst", p.pointee_const},
                      {"restrict", p.is_restrict}});
  for (const auto& s : f.shared_arrays)
    shared.push_back({{"name", s.name},
                      {"elementType", s.element_type},
                      {"elementBytes", s.element_bytes},
                      {"dims", s.dims},
                      {"extern", s.is_extern},
                      {"range", range(s.range)}});
  for (const auto& a : f.accesses)
    accesses.push_back({{"space", warplens::to_string(a.space)},
                        {"kind", warplens::to_string(a.kind)},
                        {"base", a.base},
                        {"spelling", a.spelling},
                        {"range", range(a.range)},
                        {"elementBytes", a.element_bytes},
                        {"index", expression(a.index)},
                        {"guarded", !a.guards.empty()},
                        {"loops", a.loops}});
  for (const auto& b : f.barriers) barriers.push_back({{"spelling", b.spelling}, {"range", range(b.range)}});
  for (const auto& l : f.loops)
    loops.push_back({{"inductionVariable", l.induction_variable},
                     {"init", expression(l.init)},
                     {"step", expression(l.step)},
                     {"bound", expression(l.bound)},
                     {"range", range(l.range)},
                     {"unroll", optional_json(l.unroll)}});
  j["params"] = params;
  j["sharedArrays"] = shared;
  j["accesses"] = accesses;
  j["barriers"] = barriers;
  j["loops"] = loops;
  return j;
}

json launch_json(const LaunchSite& l, RangeConverter& convert) {
  return {{"kernel", l.kernel},
          {"caller", l.caller},
          {"range", convert.range(l.range)},
          {"grid", dim3_json(l.grid)},
          {"block", dim3_json(l.block)},
          {"sharedBytes", {{"spelling", l.shared_bytes_spelling}, {"value", optional_json(l.shared_bytes)}}},
          {"inLoop", l.in_loop}};
}

json kernel_resources_json(const KernelResourceReport& r) {
  json j = {{"kernel", r.kernel},
            {"name", r.name},
            {"instance", r.instance},
            {"arch", r.arch},
            {"gpu", r.gpu},
            {"resources_known", r.resources_known},
            {"occupancy_known", r.occupancy_known},
            {"summary", r.code_lens}};
  if (r.resources_known) {
    j["registers"] = r.registers;
    j["shared_static_bytes"] = r.shared_static_bytes;
    j["stack_bytes"] = r.stack_bytes;
    j["spill_store_bytes"] = r.spill_store_bytes;
    j["spill_load_bytes"] = r.spill_load_bytes;
  } else {
    j["resources_missing"] = r.resources_missing;
  }
  j["block_size"] = {{"x", r.block_size.x},
                     {"y", r.block_size.y},
                     {"z", r.block_size.z},
                     {"source", to_string(r.block_source)},
                     {"detail", r.block_source_detail}};
  if (r.occupancy_known) {
    j["occupancy"] = r.occupancy;
    j["blocks_per_sm"] = r.blocks_per_sm;
    j["active_warps"] = r.active_warps;
    j["max_warps"] = r.max_warps;
    j["limiter"] = r.limiter;
  } else {
    j["occupancy_missing"] = r.occupancy_missing;
  }
  if (!r.cannot_launch.empty()) j["cannot_launch"] = r.cannot_launch;
  json table = json::array();
  for (const auto& row : r.table) {
    json t = {{"block_threads", row.block_threads}};
    if (row.result.ok && row.result.cannot_launch.empty()) {
      t["occupancy"] = row.result.occupancy;
      t["blocks_per_sm"] = row.result.blocks_per_sm;
      t["limiter"] = row.result.limiters ? limiter_name(primary_limiter(row.result.limiters)) : "none";
    } else {
      t["occupancy"] = nullptr;
      t["cannot_launch"] = row.result.ok ? row.result.cannot_launch : row.result.error;
    }
    table.push_back(t);
  }
  j["table"] = table;
  if (r.lever) j["lever"] = r.lever->text;
  return j;
}

json resource_usage_json(const OccupancyAnalysis& a) {
  const ResourceUsageResult& r = a.resources;
  return {{"status", to_string(r.status)},
          {"message", r.message},
          {"compiledArch", r.compiled_arch},
          {"gpu", a.gpu.gpu ? json(a.gpu.gpu->name) : json()}};
}

}  // namespace warplens::mcp
