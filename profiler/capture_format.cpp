#include "profiler/capture_format.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "common/file_read.h"

namespace warplens::capture {

using nlohmann::json;

const char* to_string(MemoryKind k) {
  switch (k) {
    case MemoryKind::Device: return "device";
    case MemoryKind::Managed: return "managed";
  }
  return "device";
}

std::uint64_t LaunchRecord::allocation_bytes() const {
  std::uint64_t total = 0;
  for (const auto& a : allocations) total += a.bytes;
  return total;
}

std::string DeviceInfo::arch() const {
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

std::string blob_name(int launch_index, int allocation_index, bool after) {
  return "launch" + std::to_string(launch_index) + "/alloc" + std::to_string(allocation_index) +
         (after ? ".after.bin" : ".before.bin");
}

std::string global_blob_name(int launch_index, int global_index, bool after) {
  return "launch" + std::to_string(launch_index) + "/global" + std::to_string(global_index) +
         (after ? ".after.bin" : ".before.bin");
}

// --- hashing and hex -----------------------------------------------------

namespace {
inline std::uint64_t mix(std::uint64_t h) {
  // splitmix64 finaliser: cheap and well distributed.
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}
}  // namespace

std::uint64_t content_hash(const void* data, std::size_t bytes) {
  // Four independent lanes over 8-byte words (several GB/s), then the tail,
  // then the length. Only integrity matters, not resistance to attack.
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t lanes[4] = {0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL,
                            0x27d4eb2f165667c5ULL};
  std::size_t i = 0;
  for (; i + 32 <= bytes; i += 32) {
    for (int l = 0; l < 4; ++l) {
      std::uint64_t w;
      std::memcpy(&w, p + i + 8 * l, 8);
      lanes[l] = (lanes[l] ^ w) * 0x100000001b3ULL;
      lanes[l] = (lanes[l] << 29) | (lanes[l] >> 35);
    }
  }
  std::uint64_t h = mix(lanes[0]) ^ mix(lanes[1] + 1) ^ mix(lanes[2] + 2) ^ mix(lanes[3] + 3);
  for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return mix(h ^ static_cast<std::uint64_t>(bytes));
}

std::string hex_encode(const std::vector<std::uint8_t>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (auto b : bytes) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

namespace {
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::vector<std::uint8_t> hex_decode(std::string_view hex) {
  if (hex.size() % 2 != 0) throw CaptureFormatError("hex string has an odd number of digits");
  std::vector<std::uint8_t> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw CaptureFormatError("invalid hex digit in parameter buffer");
    out[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return out;
}

std::string hex_u64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::uint64_t parse_hex_u64(std::string_view s) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s.size() > 18)
    throw CaptureFormatError("expected a hex number like 0x1f, got '" + std::string(s) + "'");
  std::uint64_t v = 0;
  for (std::size_t i = 2; i < s.size(); ++i) {
    int d = hex_digit(s[i]);
    if (d < 0) throw CaptureFormatError("invalid hex number '" + std::string(s) + "'");
    v = v * 16 + static_cast<std::uint64_t>(d);
  }
  return v;
}

// --- JSON ----------------------------------------------------------------

namespace {

json dim3_json(const std::array<std::uint32_t, 3>& d) { return json::array({d[0], d[1], d[2]}); }

json launch_json(const LaunchRecord& l) {
  json params = json::array();
  for (const auto& p : l.params) params.push_back({{"index", p.index}, {"offset", p.offset}, {"size", p.size}});
  json pointers = json::array();
  for (const auto& p : l.pointers)
    pointers.push_back({{"param", p.param},
                        {"buffer_offset", p.buffer_offset},
                        {"allocation", p.allocation},
                        {"offset_in_allocation", p.offset_in_allocation}});
  json allocations = json::array();
  for (const auto& a : l.allocations)
    allocations.push_back({{"address", hex_u64(a.address)},
                           {"bytes", a.bytes},
                           {"memory", to_string(a.memory)},
                           {"before", a.before_blob},
                           {"after", a.after_blob},
                           {"before_hash", hex_u64(a.before_hash)},
                           {"after_hash", hex_u64(a.after_hash)},
                           {"modified", a.modified}});
  json globals = json::array();
  for (const auto& g : l.globals)
    globals.push_back({{"name", g.name},
                       {"address", hex_u64(g.address)},
                       {"bytes", g.bytes},
                       {"constant", g.constant},
                       {"before", g.before_blob},
                       {"after", g.after_blob},
                       {"before_hash", hex_u64(g.before_hash)},
                       {"after_hash", hex_u64(g.after_hash)},
                       {"modified", g.modified}});
  json j = {{"index", l.index},
            {"sequence", l.sequence},
            {"kernel", l.kernel},
            {"api", l.api},
            {"grid", dim3_json(l.grid)},
            {"block", dim3_json(l.block)},
            {"dynamic_shared_bytes", l.dynamic_shared_bytes},
            {"cluster", dim3_json(l.cluster)},
            {"cooperative", l.cooperative},
            {"attributes",
             {{"num_regs", l.attributes.num_regs},
              {"static_shared_bytes", l.attributes.static_shared_bytes},
              {"local_bytes", l.attributes.local_bytes},
              {"max_threads_per_block", l.attributes.max_threads_per_block},
              {"ptx_version", l.attributes.ptx_version},
              {"binary_version", l.attributes.binary_version}}},
            {"params", params},
            {"param_buffer", hex_encode(l.param_buffer)},
            {"pointers", pointers},
            {"allocations", allocations},
            {"capture_ms", l.capture_ms}};
  if (l.globals_recorded) j["globals"] = globals;
  return j;
}

// Field access with errors that name the path, e.g. "launches[0].grid".
struct Reader {
  const json& j;
  std::string path;

  const json& at(const char* key) const {
    if (!j.is_object()) throw CaptureFormatError(path + ": expected an object");
    auto it = j.find(key);
    if (it == j.end()) throw CaptureFormatError(path + "." + key + ": missing");
    return *it;
  }
  bool has(const char* key) const { return j.is_object() && j.contains(key); }
  Reader child(const char* key) const { return Reader{at(key), path + "." + key}; }

  template <class T>
  T get(const char* key) const {
    const json& v = at(key);
    try {
      return v.get<T>();
    } catch (const json::exception&) {
      throw CaptureFormatError(path + "." + key + ": wrong type (" + std::string(v.type_name()) + ")");
    }
  }
  template <class T>
  T get_or(const char* key, T fallback) const {
    return has(key) ? get<T>(key) : fallback;
  }
  std::uint64_t hex(const char* key) const {
    const json& v = at(key);
    if (!v.is_string()) throw CaptureFormatError(path + "." + key + ": expected a \"0x...\" string");
    try {
      return parse_hex_u64(v.get<std::string>());
    } catch (const CaptureFormatError& e) {
      throw CaptureFormatError(path + "." + key + ": " + e.what());
    }
  }
  std::array<std::uint32_t, 3> dim3(const char* key) const {
    const json& v = at(key);
    if (!v.is_array() || v.size() != 3)
      throw CaptureFormatError(path + "." + key + ": expected [x, y, z]");
    std::array<std::uint32_t, 3> d{};
    for (int i = 0; i < 3; ++i) {
      if (!v[i].is_number_unsigned() && !(v[i].is_number_integer() && v[i].get<long long>() >= 0))
        throw CaptureFormatError(path + "." + key + ": expected non-negative integers");
      d[i] = v[i].get<std::uint32_t>();
    }
    return d;
  }
  const json& array(const char* key) const {
    const json& v = at(key);
    if (!v.is_array()) throw CaptureFormatError(path + "." + key + ": expected an array");
    return v;
  }
};

MemoryKind parse_memory(const std::string& s, const std::string& path) {
  if (s == "device") return MemoryKind::Device;
  if (s == "managed") return MemoryKind::Managed;
  throw CaptureFormatError(path + ": unknown memory kind '" + s + "'");
}

LaunchRecord parse_launch(const Reader& r) {
  LaunchRecord l;
  l.index = r.get<int>("index");
  l.sequence = r.get<std::uint64_t>("sequence");
  l.kernel = r.get<std::string>("kernel");
  l.api = r.get<std::string>("api");
  l.grid = r.dim3("grid");
  l.block = r.dim3("block");
  l.dynamic_shared_bytes = r.get<std::uint32_t>("dynamic_shared_bytes");
  if (r.has("cluster")) l.cluster = r.dim3("cluster");
  l.cooperative = r.get_or<bool>("cooperative", false);
  if (r.has("attributes")) {
    Reader a = r.child("attributes");
    l.attributes.num_regs = a.get_or<int>("num_regs", 0);
    l.attributes.static_shared_bytes = a.get_or<int>("static_shared_bytes", 0);
    l.attributes.local_bytes = a.get_or<int>("local_bytes", 0);
    l.attributes.max_threads_per_block = a.get_or<int>("max_threads_per_block", 0);
    l.attributes.ptx_version = a.get_or<int>("ptx_version", 0);
    l.attributes.binary_version = a.get_or<int>("binary_version", 0);
  }
  const json& params = r.array("params");
  for (std::size_t i = 0; i < params.size(); ++i) {
    Reader p{params[i], r.path + ".params[" + std::to_string(i) + "]"};
    l.params.push_back({p.get<int>("index"), p.get<std::uint64_t>("offset"), p.get<std::uint64_t>("size")});
  }
  try {
    l.param_buffer = hex_decode(r.get<std::string>("param_buffer"));
  } catch (const CaptureFormatError& e) {
    throw CaptureFormatError(r.path + ".param_buffer: " + e.what());
  }
  const json& allocations = r.array("allocations");
  for (std::size_t i = 0; i < allocations.size(); ++i) {
    Reader a{allocations[i], r.path + ".allocations[" + std::to_string(i) + "]"};
    AllocationRecord rec;
    rec.address = a.hex("address");
    rec.bytes = a.get<std::uint64_t>("bytes");
    rec.memory = parse_memory(a.get<std::string>("memory"), a.path + ".memory");
    rec.before_blob = a.get<std::string>("before");
    rec.after_blob = a.get<std::string>("after");
    rec.before_hash = a.hex("before_hash");
    rec.after_hash = a.hex("after_hash");
    rec.modified = a.get<bool>("modified");
    l.allocations.push_back(std::move(rec));
  }
  if (r.has("globals")) {
    l.globals_recorded = true;
    const json& globals = r.array("globals");
    for (std::size_t i = 0; i < globals.size(); ++i) {
      Reader g{globals[i], r.path + ".globals[" + std::to_string(i) + "]"};
      ModuleGlobalRecord rec;
      rec.name = g.get<std::string>("name");
      if (rec.name.empty()) throw CaptureFormatError(g.path + ".name: empty");
      rec.address = g.hex("address");
      rec.bytes = g.get<std::uint64_t>("bytes");
      rec.constant = g.get_or<bool>("constant", false);
      rec.before_blob = g.get<std::string>("before");
      rec.after_blob = g.get<std::string>("after");
      rec.before_hash = g.hex("before_hash");
      rec.after_hash = g.hex("after_hash");
      rec.modified = g.get<bool>("modified");
      l.globals.push_back(std::move(rec));
    }
  }
  const json& pointers = r.array("pointers");
  for (std::size_t i = 0; i < pointers.size(); ++i) {
    Reader p{pointers[i], r.path + ".pointers[" + std::to_string(i) + "]"};
    PointerSlot s;
    s.param = p.get<int>("param");
    s.buffer_offset = p.get<std::uint64_t>("buffer_offset");
    s.allocation = p.get<int>("allocation");
    s.offset_in_allocation = p.get<std::uint64_t>("offset_in_allocation");
    l.pointers.push_back(s);
  }
  l.capture_ms = r.get_or<double>("capture_ms", 0.0);
  return l;
}

// Structural checks that keep the replayer from reading out of bounds.
void validate_launch(const LaunchRecord& l, const std::string& path) {
  std::uint64_t end = 0;
  for (std::size_t i = 0; i < l.params.size(); ++i) {
    const auto& p = l.params[i];
    if (p.index != static_cast<int>(i))
      throw CaptureFormatError(path + ".params[" + std::to_string(i) + "]: index out of order");
    end = std::max(end, p.offset + p.size);
  }
  if (l.param_buffer.size() != end)
    throw CaptureFormatError(path + ".param_buffer: " + std::to_string(l.param_buffer.size()) +
                             " bytes, but the parameters span " + std::to_string(end));
  for (std::size_t i = 0; i < l.pointers.size(); ++i) {
    const auto& p = l.pointers[i];
    std::string pp = path + ".pointers[" + std::to_string(i) + "]";
    if (p.param < 0 || p.param >= static_cast<int>(l.params.size()))
      throw CaptureFormatError(pp + ".param: no such parameter");
    const auto& slot = l.params[p.param];
    if (p.buffer_offset < slot.offset || p.buffer_offset + 8 > slot.offset + slot.size)
      throw CaptureFormatError(pp + ".buffer_offset: outside parameter " + std::to_string(p.param));
    if (p.allocation < 0 || p.allocation >= static_cast<int>(l.allocations.size()))
      throw CaptureFormatError(pp + ".allocation: no such allocation");
    if (p.offset_in_allocation > l.allocations[p.allocation].bytes)
      throw CaptureFormatError(pp + ".offset_in_allocation: beyond the allocation");
  }
  for (int d = 0; d < 3; ++d)
    if (l.grid[d] == 0 || l.block[d] == 0) throw CaptureFormatError(path + ": zero grid or block dimension");
}

}  // namespace

std::string to_json_text(const CaptureManifest& m) {
  json launches = json::array();
  for (const auto& l : m.launches) launches.push_back(launch_json(l));
  json refusals = json::array();
  for (const auto& r : m.refusals)
    refusals.push_back({{"kernel", r.kernel}, {"sequence", r.sequence}, {"reason", r.reason}});
  json j = {{"format", kFormatName},
            {"version", m.version},
            {"producer", m.producer},
            {"program", m.program},
            {"device",
             {{"ordinal", m.device.ordinal},
              {"name", m.device.name},
              {"compute_capability", {m.device.cc_major, m.device.cc_minor}},
              {"arch", m.device.arch()},
              {"l2_bytes", m.device.l2_bytes},
              {"driver_version", m.device.driver_version}}},
            {"settings", {{"kernel_regex", m.kernel_regex}, {"max_launches", m.max_launches},
                          {"max_launches_per_kernel", m.max_launches_per_kernel}, {"max_bytes", m.max_bytes}}},
            {"total_bytes", m.total_bytes},
            {"launches", launches},
            {"refusals", refusals},
            {"counters",
             {{"driver_launches", m.counters.driver_launches},
              {"matched_launches", m.counters.matched_launches},
              {"runtime_launches", m.counters.runtime_launches},
              {"runtime_without_driver_callback", m.counters.runtime_without_driver_callback}}},
            {"notes", m.notes},
            {"complete", m.complete}};
  return j.dump(1) + "\n";
}

CaptureManifest parse_manifest(std::string_view text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw CaptureFormatError(std::string("manifest is not valid JSON: ") + e.what());
  }
  Reader r{j, "manifest"};
  if (r.get<std::string>("format") != kFormatName)
    throw CaptureFormatError("manifest.format: not a warplens capture");
  CaptureManifest m;
  m.version = r.get<int>("version");
  if (m.version != kFormatVersion)
    throw CaptureFormatError("manifest.version: " + std::to_string(m.version) + " is not supported (this warplens reads version " +
                             std::to_string(kFormatVersion) + ")");
  m.producer = r.get_or<std::string>("producer", "");
  m.program = r.get_or<std::vector<std::string>>("program", {});
  Reader d = r.child("device");
  m.device.ordinal = d.get<int>("ordinal");
  m.device.name = d.get<std::string>("name");
  auto cc = d.get<std::vector<int>>("compute_capability");
  if (cc.size() != 2) throw CaptureFormatError("manifest.device.compute_capability: expected [major, minor]");
  m.device.cc_major = cc[0];
  m.device.cc_minor = cc[1];
  m.device.l2_bytes = d.get_or<std::uint64_t>("l2_bytes", 0);
  m.device.driver_version = d.get_or<int>("driver_version", 0);
  Reader s = r.child("settings");
  m.kernel_regex = s.get<std::string>("kernel_regex");
  m.max_launches = s.get<int>("max_launches");
  m.max_launches_per_kernel = s.get_or<int>("max_launches_per_kernel", 0);  // added later: absent in older captures
  m.max_bytes = s.get<std::uint64_t>("max_bytes");
  m.total_bytes = r.get_or<std::uint64_t>("total_bytes", 0);
  const json& launches = r.array("launches");
  for (std::size_t i = 0; i < launches.size(); ++i) {
    std::string path = "manifest.launches[" + std::to_string(i) + "]";
    LaunchRecord l = parse_launch(Reader{launches[i], path});
    validate_launch(l, path);
    m.launches.push_back(std::move(l));
  }
  if (r.has("refusals")) {
    const json& refusals = r.array("refusals");
    for (std::size_t i = 0; i < refusals.size(); ++i) {
      Reader f{refusals[i], "manifest.refusals[" + std::to_string(i) + "]"};
      m.refusals.push_back({f.get<std::string>("kernel"), f.get<std::uint64_t>("sequence"), f.get<std::string>("reason")});
    }
  }
  if (r.has("counters")) {
    Reader c = r.child("counters");
    m.counters.driver_launches = c.get_or<std::uint64_t>("driver_launches", 0);
    m.counters.matched_launches = c.get_or<std::uint64_t>("matched_launches", 0);
    m.counters.runtime_launches = c.get_or<std::uint64_t>("runtime_launches", 0);
    m.counters.runtime_without_driver_callback = c.get_or<std::uint64_t>("runtime_without_driver_callback", 0);
  }
  m.notes = r.get_or<std::vector<std::string>>("notes", {});
  m.complete = r.get_or<bool>("complete", false);
  return m;
}

namespace fs = std::filesystem;

void save_manifest(const fs::path& dir, const CaptureManifest& manifest) {
  std::string text = to_json_text(manifest);
  fs::path tmp = dir / (std::string(kManifestFile) + ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw CaptureFormatError("cannot write " + tmp.string() + ": " + std::strerror(errno));
    out << text;
    if (!out.flush()) throw CaptureFormatError("cannot write " + tmp.string() + ": " + std::strerror(errno));
  }
  std::error_code ec;
  fs::rename(tmp, dir / kManifestFile, ec);
  if (ec) throw CaptureFormatError("cannot rename " + tmp.string() + ": " + ec.message());
}

CaptureManifest load_capture(const fs::path& dir) {
  fs::path file = dir / kManifestFile;
  // A regular file only: a FIFO or device named manifest.json (the
  // directory is the user's) is refused, not read until it ends.
  common::FileReadResult read = common::read_regular_file(file.string(), std::size_t{1} << 30);
  if (!read) {
    if (!fs::exists(dir)) throw CaptureFormatError("capture directory " + dir.string() + " does not exist");
    if (read.refusal != common::FileRefusal::NotFound) throw CaptureFormatError("cannot read " + read.error);
    throw CaptureFormatError(file.string() + " not found: is " + dir.string() + " a warplens capture?");
  }
  CaptureManifest m;
  try {
    m = parse_manifest(*read.content);
  } catch (const CaptureFormatError& e) {
    throw CaptureFormatError(file.string() + ": " + e.what());
  }
  auto check_blob = [&](const std::string* blob, std::uint64_t bytes) {
    if (blob->empty() || blob->find("..") != std::string::npos || (*blob)[0] == '/')
      throw CaptureFormatError(file.string() + ": blob path '" + *blob + "' must be relative and inside the capture");
    std::error_code ec;
    auto size = fs::file_size(dir / *blob, ec);
    if (ec) throw CaptureFormatError("capture blob " + (dir / *blob).string() + " is missing");
    if (size != bytes)
      throw CaptureFormatError("capture blob " + (dir / *blob).string() + " has " + std::to_string(size) +
                               " bytes, the manifest says " + std::to_string(bytes));
  };
  for (const auto& l : m.launches) {
    for (const auto& g : l.globals)
      for (const std::string* blob : {&g.before_blob, &g.after_blob}) check_blob(blob, g.bytes);
    for (const auto& a : l.allocations) {
      for (const std::string* blob : {&a.before_blob, &a.after_blob}) {
        if (blob->empty() || blob->find("..") != std::string::npos || (*blob)[0] == '/')
          throw CaptureFormatError(file.string() + ": blob path '" + *blob + "' must be relative and inside the capture");
        std::error_code ec;
        auto size = fs::file_size(dir / *blob, ec);
        if (ec) throw CaptureFormatError("capture blob " + (dir / *blob).string() + " is missing");
        if (size != a.bytes)
          throw CaptureFormatError("capture blob " + (dir / *blob).string() + " has " + std::to_string(size) +
                                   " bytes, the manifest says " + std::to_string(a.bytes));
      }
    }
  }
  return m;
}

void write_blob(const fs::path& dir, const std::string& relative, const void* data, std::size_t bytes) {
  fs::path path = dir / relative;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw CaptureFormatError("cannot write " + path.string() + ": " + std::strerror(errno));
  std::size_t written = bytes ? std::fwrite(data, 1, bytes, f) : 0;
  bool ok = written == bytes;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) throw CaptureFormatError("cannot write " + path.string() + " (disk full?)");
}

std::vector<std::uint8_t> read_blob(const fs::path& dir, const std::string& relative, std::uint64_t expected_bytes,
                                    std::uint64_t expected_hash) {
  fs::path path = dir / relative;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw CaptureFormatError("cannot read capture blob " + path.string() + ": " + std::strerror(errno));
  std::vector<std::uint8_t> data(expected_bytes);
  std::size_t got = expected_bytes ? std::fread(data.data(), 1, expected_bytes, f) : 0;
  bool extra = std::fgetc(f) != EOF;
  std::fclose(f);
  if (got != expected_bytes || extra)
    throw CaptureFormatError("capture blob " + path.string() + " does not have the recorded " +
                             std::to_string(expected_bytes) + " bytes");
  if (content_hash(data.data(), data.size()) != expected_hash)
    throw CaptureFormatError("capture blob " + path.string() + " is corrupt (hash mismatch)");
  return data;
}

}  // namespace warplens::capture
