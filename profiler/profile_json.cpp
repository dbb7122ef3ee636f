// The JSON form of a profile ("warplens-profile/1"): writing, and reading
// with errors that name the offending value. Field by field in
// docs/profile-format.md.
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/file_read.h"
#include "common/json_limits.h"
#include "profiler/profile_data.h"

namespace warplens::profile {

using nlohmann::json;

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------
namespace {

json dim3_json(const Dim3& d) { return json::array({d.x, d.y, d.z}); }

json transfers_json(const Transfers& t) {
  return {{"count", t.count}, {"bytes", t.bytes}, {"total_ns", t.total_ns}};
}

json counters_json(const KernelCounters& c) {
  return {{"inst_executed", c.inst_executed},
          {"thread_inst_executed", c.thread_inst_executed},
          {"global_load_requests", c.global_load_requests},
          {"global_store_requests", c.global_store_requests},
          {"global_sectors", c.global_sectors},
          {"global_sectors_ideal", c.global_sectors_ideal},
          {"shared_load_requests", c.shared_load_requests},
          {"shared_store_requests", c.shared_store_requests},
          {"shared_wavefronts", c.shared_wavefronts},
          {"shared_wavefronts_ideal", c.shared_wavefronts_ideal},
          {"local_sectors", c.local_sectors},
          {"branch_divergent", c.branch_divergent},
          {"branch_uniform", c.branch_uniform},
          {"unmapped_inst_executed", c.unmapped_inst_executed}};
}

json line_json(const LineMetrics& l) {
  json j = {{"file", l.file}, {"line", l.line}, {"kernel", l.kernel},
            {"kind", to_string(l.kind)}, {"executed", l.executed}};
  // Only the fields that mean something for the kind: keeps the file readable.
  if (l.kind == LineKind::All) j["threads_executed"] = l.threads_executed;
  if (is_global(l.kind) || is_local(l.kind)) j["sectors"] = l.sectors;
  if (is_global(l.kind)) j["sectors_ideal"] = l.sectors_ideal;
  if (is_shared(l.kind)) {
    j["wavefronts"] = l.wavefronts;
    j["wavefronts_ideal"] = l.wavefronts_ideal;
  }
  if (l.kind == LineKind::Branch) {
    j["divergent"] = l.divergent;
    j["uniform"] = l.uniform;
  }
  json pcs = json::array();
  for (std::uint32_t pc : l.pcs) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", pc);
    pcs.push_back(buf);
  }
  j["pcs"] = std::move(pcs);
  return j;
}

}  // namespace

std::string to_json(const Profile& p, int indent) {
  json j;
  j["schema"] = p.schema;
  j["tool_version"] = p.tool_version;
  j["command"] = p.command;
  j["working_directory"] = p.working_directory;
  j["started_at"] = p.started_at;
  j["wall_ms"] = p.wall_ms;
  j["exit_code"] = p.exit_code;
  j["settings"] = {{"kernel_regex", p.settings.kernel_regex},
                   {"metric_launches", p.settings.metric_launches},
                   {"launch_records", p.settings.launch_records},
                   {"budget_ms", p.settings.budget_ms},
                   {"metrics", p.settings.metrics},
                   {"sass_mode", to_string(p.settings.sass_mode)}};
  json passes = json::array();
  for (const Pass& ps : p.passes)
    passes.push_back({{"kind", ps.kind}, {"wall_ms", ps.wall_ms}, {"exit_code", ps.exit_code},
                      {"metrics", ps.metrics}});
  j["passes"] = std::move(passes);

  json devices = json::array();
  for (const Device& d : p.devices)
    devices.push_back({{"index", d.index},
                       {"name", d.name},
                       {"chip", d.chip},
                       {"arch", d.arch()},
                       {"compute_capability", json::array({d.cc_major, d.cc_minor})},
                       {"sm_count", d.sm_count},
                       {"memory_clock_khz", d.memory_clock_khz},
                       {"memory_bus_width_bits", d.memory_bus_width_bits},
                       {"l2_cache_bytes", d.l2_cache_bytes},
                       {"peak_bandwidth_gbs", d.peak_bandwidth_gbs},
                       {"driver_version", d.driver_version}});
  j["devices"] = std::move(devices);

  json kernels = json::array();
  for (const Kernel& k : p.kernels) {
    json launches = json::array();
    for (const Launch& l : k.launches)
      launches.push_back({{"index", l.index},
                          {"pass", l.pass},
                          {"grid", dim3_json(l.grid)},
                          {"block", dim3_json(l.block)},
                          {"registers_per_thread", l.registers_per_thread},
                          {"static_shared_bytes", l.static_shared_bytes},
                          {"dynamic_shared_bytes", l.dynamic_shared_bytes},
                          {"local_bytes_per_thread", l.local_bytes_per_thread},
                          {"duration_ns", l.duration_ns},
                          {"instrumented", l.instrumented},
                          {"stream", l.stream},
                          {"device", l.device}});
    json kj = {{"name", k.name},
               {"mangled", k.mangled},
               {"launch_count", k.launch_count},
               {"metric_launches", k.metric_launches},
               {"timing",
                {{"launches", k.timing.launches},
                 {"total_ns", k.timing.total_ns},
                 {"min_ns", k.timing.min_ns},
                 {"max_ns", k.timing.max_ns},
                 {"mean_ns", k.timing.mean_ns()}}},
               {"launches", std::move(launches)}};
    kj["counters"] = k.counters ? counters_json(*k.counters) : json(nullptr);
    kernels.push_back(std::move(kj));
  }
  j["kernels"] = std::move(kernels);

  json lines = json::array();
  for (const LineMetrics& l : p.lines) lines.push_back(line_json(l));
  j["lines"] = std::move(lines);

  j["memcpy"] = {{"host_to_device", transfers_json(p.memcpy.host_to_device)},
                 {"device_to_host", transfers_json(p.memcpy.device_to_host)},
                 {"device_to_device", transfers_json(p.memcpy.device_to_device)},
                 {"host_to_host", transfers_json(p.memcpy.host_to_host)},
                 {"peer", transfers_json(p.memcpy.peer)},
                 {"other", transfers_json(p.memcpy.other)}};

  json warnings = json::array();
  for (const Warning& w : p.warnings) warnings.push_back({{"code", w.code}, {"message", w.message}});
  j["warnings"] = std::move(warnings);

  j["collector"] = {{"cupti_version", p.collector.cupti_version},
                    {"pid", p.collector.pid},
                    {"metrics", p.collector.metrics},
                    {"sass_overhead_ms", p.collector.sass_overhead_ms},
                    {"cubins", p.collector.cubins},
                    {"sass_records", p.collector.sass_records},
                    {"sass_values", p.collector.sass_values},
                    {"sass_nonzero_values", p.collector.sass_nonzero_values},
                    {"sass_unmatched_values", p.collector.sass_unmatched_values},
                    {"sass_setup", p.collector.sass_setup},
                    {"dropped_activity_records", p.collector.dropped_activity_records}};
  // error_handler::replace: a kernel name with invalid UTF-8 must not make
  // the whole profile unwritable.
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------
namespace {

// Thrown with the JSON path of the offending value; caught in parse_profile.
struct SchemaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A cursor over one JSON value that knows its path, for precise errors.
class Reader {
 public:
  Reader(const json& v, std::string path) : v_(v), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw SchemaError((path_.empty() ? std::string("document") : path_) + ": " + what);
  }
  const json& value() const { return v_; }
  bool has(const char* key) const { return v_.is_object() && v_.contains(key) && !v_[key].is_null(); }
  Reader at(const char* key) const {
    if (!v_.is_object()) fail("expected an object");
    if (!v_.contains(key)) Reader(v_, path_).fail(std::string("missing field \"") + key + "\"");
    return Reader(v_[key], join(key));
  }
  Reader at(std::size_t i) const { return Reader(v_[i], path_ + "[" + std::to_string(i) + "]"); }

  std::string str() const {
    if (!v_.is_string()) fail("expected a string");
    return v_.get<std::string>();
  }
  bool boolean() const {
    if (!v_.is_boolean()) fail("expected true or false");
    return v_.get<bool>();
  }
  double number() const {
    if (!v_.is_number()) fail("expected a number");
    return v_.get<double>();
  }
  std::int64_t integer() const {
    if (v_.is_number_unsigned()) {
      auto u = v_.get<std::uint64_t>();
      if (u > std::uint64_t(std::numeric_limits<std::int64_t>::max())) fail("integer out of range");
      return std::int64_t(u);
    }
    if (!v_.is_number_integer()) fail("expected an integer");
    return v_.get<std::int64_t>();
  }
  int int32() const {
    std::int64_t i = integer();
    if (i < std::numeric_limits<int>::min() || i > std::numeric_limits<int>::max())
      fail("integer out of range");
    return int(i);
  }
  std::uint64_t count() const {
    if (v_.is_number_unsigned()) return v_.get<std::uint64_t>();
    if (!v_.is_number_integer() || v_.get<std::int64_t>() < 0) fail("expected a non-negative integer");
    return std::uint64_t(v_.get<std::int64_t>());
  }
  std::size_t size() const {
    if (!v_.is_array()) fail("expected an array");
    return v_.size();
  }

  // Optional fields keep the default when absent or null.
  std::string str_or(const char* key, std::string d) const { return has(key) ? at(key).str() : d; }
  double number_or(const char* key, double d) const { return has(key) ? at(key).number() : d; }
  int int_or(const char* key, int d) const { return has(key) ? at(key).int32() : d; }
  std::int64_t integer_or(const char* key, std::int64_t d) const {
    return has(key) ? at(key).integer() : d;
  }
  std::uint64_t count_or(const char* key, std::uint64_t d = 0) const {
    return has(key) ? at(key).count() : d;
  }
  bool bool_or(const char* key, bool d) const { return has(key) ? at(key).boolean() : d; }

 private:
  std::string join(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  const json& v_;
  std::string path_;
};

Dim3 read_dim3(const Reader& r) {
  if (r.size() != 3) r.fail("expected an array of 3 integers");
  return {r.at(std::size_t(0)).integer(), r.at(std::size_t(1)).integer(),
          r.at(std::size_t(2)).integer()};
}

Transfers read_transfers(const Reader& r, const char* key) {
  if (!r.has(key)) return {};
  Reader t = r.at(key);
  return {t.count_or("count"), t.count_or("bytes"), t.count_or("total_ns")};
}

std::uint32_t read_pc(const Reader& r) {
  // Written as "0x1a0" (readable next to SASS listings); plain integers accepted too.
  if (r.value().is_string()) {
    std::string s = r.str();
    try {
      std::size_t used = 0;
      unsigned long v = std::stoul(s, &used, 0);
      if (used != s.size() || v > 0xffffffffUL) r.fail("bad PC offset \"" + s + "\"");
      return std::uint32_t(v);
    } catch (const std::logic_error&) {
      r.fail("bad PC offset \"" + s + "\"");
    }
  }
  std::uint64_t v = r.count();
  if (v > 0xffffffffULL) r.fail("PC offset out of range");
  return std::uint32_t(v);
}

KernelCounters read_counters(const Reader& r) {
  KernelCounters c;
  c.inst_executed = r.count_or("inst_executed");
  c.thread_inst_executed = r.count_or("thread_inst_executed");
  c.global_load_requests = r.count_or("global_load_requests");
  c.global_store_requests = r.count_or("global_store_requests");
  c.global_sectors = r.count_or("global_sectors");
  c.global_sectors_ideal = r.count_or("global_sectors_ideal");
  c.shared_load_requests = r.count_or("shared_load_requests");
  c.shared_store_requests = r.count_or("shared_store_requests");
  c.shared_wavefronts = r.count_or("shared_wavefronts");
  c.shared_wavefronts_ideal = r.count_or("shared_wavefronts_ideal");
  c.local_sectors = r.count_or("local_sectors");
  c.branch_divergent = r.count_or("branch_divergent");
  c.branch_uniform = r.count_or("branch_uniform");
  c.unmapped_inst_executed = r.count_or("unmapped_inst_executed");
  return c;
}

Profile read_profile(const Reader& root) {
  if (!root.value().is_object()) root.fail("expected a JSON object");
  Profile p;
  p.schema = root.at("schema").str();
  if (p.schema != kSchema) {
    root.at("schema").fail("unsupported schema \"" + p.schema + "\" (this warplens reads \"" +
                           std::string(kSchema) + "\")");
  }
  p.tool_version = root.str_or("tool_version", "");
  if (root.has("command")) {
    Reader c = root.at("command");
    for (std::size_t i = 0; i < c.size(); ++i) p.command.push_back(c.at(i).str());
  }
  p.working_directory = root.str_or("working_directory", "");
  p.started_at = root.str_or("started_at", "");
  p.wall_ms = root.number_or("wall_ms", 0);
  p.exit_code = root.int_or("exit_code", 0);

  if (root.has("settings")) {
    Reader s = root.at("settings");
    p.settings.kernel_regex = s.str_or("kernel_regex", "");
    p.settings.metric_launches = s.int_or("metric_launches", 1);
    p.settings.launch_records = s.int_or("launch_records", 100);
    p.settings.budget_ms = s.number_or("budget_ms", 30000);
    p.settings.metrics = s.bool_or("metrics", true);
    std::string mode = s.str_or("sass_mode", "per-launch");
    auto m = sass_mode_from_string(mode);
    if (!m) s.at("sass_mode").fail("unknown SASS mode \"" + mode + "\"");
    p.settings.sass_mode = *m;
  }
  if (root.has("passes")) {
    Reader ps = root.at("passes");
    for (std::size_t i = 0; i < ps.size(); ++i) {
      Reader r = ps.at(i);
      p.passes.push_back({r.str_or("kind", "metrics"), r.number_or("wall_ms", 0),
                          r.int_or("exit_code", 0), r.bool_or("metrics", true)});
    }
  }
  if (root.has("devices")) {
    Reader ds = root.at("devices");
    for (std::size_t i = 0; i < ds.size(); ++i) {
      Reader r = ds.at(i);
      Device d;
      d.index = r.int_or("index", 0);
      d.name = r.str_or("name", "");
      d.chip = r.str_or("chip", "");
      if (r.has("compute_capability")) {
        Reader cc = r.at("compute_capability");
        if (cc.size() != 2) cc.fail("expected [major, minor]");
        d.cc_major = cc.at(std::size_t(0)).int32();
        d.cc_minor = cc.at(std::size_t(1)).int32();
      }
      d.sm_count = r.int_or("sm_count", 0);
      d.memory_clock_khz = r.integer_or("memory_clock_khz", 0);
      d.memory_bus_width_bits = r.int_or("memory_bus_width_bits", 0);
      d.l2_cache_bytes = r.integer_or("l2_cache_bytes", 0);
      d.peak_bandwidth_gbs = r.number_or("peak_bandwidth_gbs", 0);
      d.driver_version = r.int_or("driver_version", 0);
      p.devices.push_back(std::move(d));
    }
  }
  if (root.has("kernels")) {
    Reader ks = root.at("kernels");
    for (std::size_t i = 0; i < ks.size(); ++i) {
      Reader r = ks.at(i);
      Kernel k;
      k.mangled = r.at("mangled").str();
      k.name = r.str_or("name", k.mangled);
      k.launch_count = r.count_or("launch_count");
      k.metric_launches = r.count_or("metric_launches");
      if (r.has("timing")) {
        Reader t = r.at("timing");
        k.timing.launches = t.count_or("launches");
        k.timing.total_ns = t.count_or("total_ns");
        k.timing.min_ns = t.count_or("min_ns");
        k.timing.max_ns = t.count_or("max_ns");
      }
      if (r.has("launches")) {
        Reader ls = r.at("launches");
        for (std::size_t n = 0; n < ls.size(); ++n) {
          Reader lr = ls.at(n);
          Launch l;
          l.index = lr.count_or("index", n);
          l.pass = lr.str_or("pass", "metrics");
          if (lr.has("grid")) l.grid = read_dim3(lr.at("grid"));
          if (lr.has("block")) l.block = read_dim3(lr.at("block"));
          l.registers_per_thread = lr.int_or("registers_per_thread", 0);
          l.static_shared_bytes = lr.int_or("static_shared_bytes", 0);
          l.dynamic_shared_bytes = lr.int_or("dynamic_shared_bytes", 0);
          l.local_bytes_per_thread = lr.int_or("local_bytes_per_thread", 0);
          l.duration_ns = lr.count_or("duration_ns");
          l.instrumented = lr.bool_or("instrumented", false);
          l.stream = std::uint32_t(lr.count_or("stream"));
          l.device = lr.int_or("device", 0);
          k.launches.push_back(std::move(l));
        }
      }
      if (r.has("counters")) k.counters = read_counters(r.at("counters"));
      p.kernels.push_back(std::move(k));
    }
  }
  if (root.has("lines")) {
    Reader ls = root.at("lines");
    for (std::size_t i = 0; i < ls.size(); ++i) {
      Reader r = ls.at(i);
      LineMetrics l;
      l.file = r.at("file").str();
      l.line = r.at("line").int32();
      if (l.line < 0) r.at("line").fail("line numbers are 1-based (0 = unknown)");
      l.kernel = r.at("kernel").str();
      std::string kind = r.at("kind").str();
      auto k = line_kind_from_string(kind);
      if (!k) r.at("kind").fail("unknown line kind \"" + kind + "\"");
      l.kind = *k;
      l.executed = r.count_or("executed");
      l.threads_executed = r.count_or("threads_executed");
      l.sectors = r.count_or("sectors");
      l.sectors_ideal = r.count_or("sectors_ideal");
      l.wavefronts = r.count_or("wavefronts");
      l.wavefronts_ideal = r.count_or("wavefronts_ideal");
      l.divergent = r.count_or("divergent");
      l.uniform = r.count_or("uniform");
      if (r.has("pcs")) {
        Reader pcs = r.at("pcs");
        for (std::size_t n = 0; n < pcs.size(); ++n) l.pcs.push_back(read_pc(pcs.at(n)));
      }
      p.lines.push_back(std::move(l));
    }
  }
  if (root.has("memcpy")) {
    Reader m = root.at("memcpy");
    p.memcpy.host_to_device = read_transfers(m, "host_to_device");
    p.memcpy.device_to_host = read_transfers(m, "device_to_host");
    p.memcpy.device_to_device = read_transfers(m, "device_to_device");
    p.memcpy.host_to_host = read_transfers(m, "host_to_host");
    p.memcpy.peer = read_transfers(m, "peer");
    p.memcpy.other = read_transfers(m, "other");
  }
  if (root.has("warnings")) {
    Reader ws = root.at("warnings");
    for (std::size_t i = 0; i < ws.size(); ++i)
      p.warnings.push_back({ws.at(i).at("code").str(), ws.at(i).str_or("message", "")});
  }
  if (root.has("collector")) {
    Reader c = root.at("collector");
    p.collector.cupti_version = c.int_or("cupti_version", 0);
    p.collector.pid = c.integer_or("pid", 0);
    if (c.has("metrics")) {
      Reader ms = c.at("metrics");
      for (std::size_t i = 0; i < ms.size(); ++i) p.collector.metrics.push_back(ms.at(i).str());
    }
    p.collector.sass_overhead_ms = c.number_or("sass_overhead_ms", 0);
    p.collector.cubins = c.count_or("cubins");
    p.collector.sass_records = c.count_or("sass_records");
    p.collector.sass_values = c.count_or("sass_values");
    p.collector.sass_nonzero_values = c.count_or("sass_nonzero_values");
    p.collector.sass_unmatched_values = c.count_or("sass_unmatched_values");
    if (c.has("sass_setup")) p.collector.sass_setup = c.at("sass_setup").str();
    p.collector.dropped_activity_records = c.count_or("dropped_activity_records");
  }
  return p;
}

// Per-line metrics of a large program run to tens of MiB.
constexpr std::size_t kMaxProfileBytes = std::size_t{512} << 20;

}  // namespace

std::optional<Profile> parse_profile(std::string_view text, std::string* error) {
  // Depth-limited, and an error never quotes the text: the file named as a
  // profile may be anything readable, which must not be shown.
  std::string why;
  json j = common::parse_json_limited(text, &why);
  if (j.is_discarded()) {
    if (error) *error = "not a warplens profile: " + why;
    return std::nullopt;
  }
  try {
    return read_profile(Reader(j, ""));
  } catch (const SchemaError& e) {
    if (error) *error = e.what();
  } catch (const json::exception& e) {
    if (error) *error = e.what();
  }
  return std::nullopt;
}

std::optional<Profile> load_profile(const std::string& path, std::string* error) {
  // A regular file only: /dev/zero or a FIFO named as a profile would never end.
  common::FileReadResult read = common::read_regular_file(path, kMaxProfileBytes);
  if (!read) {
    if (error) *error = "cannot open " + read.error;
    return std::nullopt;
  }
  std::string e;
  auto p = parse_profile(*read.content, &e);
  if (!p && error) *error = path + ": " + e;
  return p;
}

bool save_profile(const Profile& p, const std::string& path, std::string* error) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      if (error) *error = "cannot write " + tmp;
      return false;
    }
    out << to_json(p) << '\n';
    out.flush();
    if (!out) {
      if (error) *error = "write failed: " + tmp;
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    if (error) *error = "cannot rename " + tmp + " to " + path;
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace warplens::profile
