#include "server/settings.h"

#include <cctype>
#include <cstdlib>

#include "common/redaction.h"

namespace warplens::server {

using nlohmann::json;

namespace {

constexpr std::int64_t kMaxThreadsPerBlock = 1024;

bool valid_arch(const std::string& arch) {
  // sm_XX or sm_XXX, optionally with a feature suffix: sm_90a, sm_100f.
  if (arch.size() < 5 || arch.compare(0, 3, "sm_") != 0) return false;
  std::size_t i = 3;
  while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i]))) ++i;
  if (i - 3 < 2 || i - 3 > 3) return false;
  return i == arch.size() || (i + 1 == arch.size() && std::islower(static_cast<unsigned char>(arch[i])));
}

struct Reader {
  const json& obj;
  std::string prefix;
  std::vector<std::string>& problems;

  void wrong(const std::string& key, const std::string& expected) {
    problems.push_back("setting " + prefix + key + " ignored: expected " + expected);
  }

  void string(const char* key, std::string& out) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return;
    if (!it->is_string()) return wrong(key, "a string");
    out = it->get<std::string>();
  }

  void number(const char* key, double& out, double lo, double hi, const char* expected) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return;
    if (!it->is_number() || it->get<double>() < lo || it->get<double>() > hi) return wrong(key, expected);
    out = it->get<double>();
  }

  void integer(const char* key, int& out, int lo, int hi, const char* expected) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return;
    if (!it->is_number_integer() || it->get<std::int64_t>() < lo || it->get<std::int64_t>() > hi)
      return wrong(key, expected);
    out = it->get<int>();
  }
};

void check_known(const json& obj, std::initializer_list<const char*> known, const std::string& prefix,
                 std::vector<std::string>& problems) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok |= it.key() == k;
    if (ok) continue;
    if (common::is_secret_key(it.key()))
      problems.push_back("setting " + prefix + it.key() +
                         " ignored: secrets are read only from the environment (WARPLENS_LLM_API_KEY)");
    else
      problems.push_back("unknown setting " + prefix + it.key());
  }
}

}  // namespace

std::optional<BlockShape> parse_block_shape(const json& j, std::string& error) {
  BlockShape b;
  auto dim = [&](const json& v, std::int64_t& out) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1) return false;
    out = v.get<std::int64_t>();
    return true;
  };
  bool ok = true;
  if (j.is_number_integer()) {
    ok = dim(j, b.x);
  } else if (j.is_array() && !j.empty() && j.size() <= 3) {
    std::int64_t* dims[] = {&b.x, &b.y, &b.z};
    for (std::size_t i = 0; i < j.size(); ++i) ok = ok && dim(j[i], *dims[i]);
  } else if (j.is_object() && j.contains("x")) {
    ok = dim(j["x"], b.x) && (!j.contains("y") || dim(j["y"], b.y)) && (!j.contains("z") || dim(j["z"], b.z));
  } else {
    ok = false;
  }
  if (!ok) {
    error = "a positive integer, [x, y, z] or {\"x\":..,\"y\":..,\"z\":..}";
    return std::nullopt;
  }
  if (b.threads() > kMaxThreadsPerBlock) {
    error = "at most 1024 threads per block";
    return std::nullopt;
  }
  return b;
}

Settings apply_settings(const Settings& base, const json& update, std::vector<std::string>& problems) {
  Settings s = base;
  if (update.is_null()) return s;
  const json* obj = &update;
  if (update.is_object() && update.contains("warplens")) obj = &update["warplens"];
  if (obj->is_null()) return s;
  if (!obj->is_object()) {
    problems.push_back("settings ignored: `warplens` must be an object");
    return s;
  }
  Reader r{*obj, "warplens.", problems};
  check_known(*obj,
              {"arch", "cudaPath", "compileCommandsDir", "thresholds", "defaultBlockSize", "kernelBlockSizes",
               "debounceMs", "profileCommand", "buildCommand", "llm", "allowedDrivers"},
              "warplens.", problems);

  std::string arch = s.arch;
  r.string("arch", arch);
  if (valid_arch(arch))
    s.arch = arch;
  else
    r.wrong("arch", "an architecture such as sm_80 or sm_90a");
  r.string("cudaPath", s.cuda_path);
  r.string("compileCommandsDir", s.compile_commands_dir);
  r.string("profileCommand", s.profile_command);
  r.string("buildCommand", s.build_command);

  if (auto it = obj->find("thresholds"); it != obj->end() && !it->is_null()) {
    if (!it->is_object()) {
      r.wrong("thresholds", "an object");
    } else {
      Reader t{*it, "warplens.thresholds.", problems};
      check_known(*it, {"uncoalesced", "bankConflict", "occupancy"}, t.prefix, problems);
      t.number("uncoalesced", s.uncoalesced_threshold, 1.0, 32.0, "a number from 1 to 32 (sectors / ideal)");
      t.integer("bankConflict", s.bank_conflict_threshold, 2, 32, "an integer from 2 to 32 (n-way)");
      t.number("occupancy", s.occupancy_threshold, 0.0, 1.0, "a fraction from 0 to 1");
    }
  }

  if (auto it = obj->find("defaultBlockSize"); it != obj->end()) {
    if (it->is_null()) {
      s.default_block.reset();
    } else {
      std::string error;
      if (auto b = parse_block_shape(*it, error))
        s.default_block = b;
      else
        r.wrong("defaultBlockSize", error);
    }
  }

  if (auto it = obj->find("kernelBlockSizes"); it != obj->end() && !it->is_null()) {
    if (!it->is_object()) {
      r.wrong("kernelBlockSizes", "an object mapping kernel names to block sizes");
    } else {
      std::map<std::string, BlockShape> blocks;
      for (auto k = it->begin(); k != it->end(); ++k) {
        std::string error;
        if (auto b = parse_block_shape(k.value(), error))
          blocks[k.key()] = *b;
        else
          r.wrong("kernelBlockSizes." + k.key(), error);
      }
      s.kernel_blocks = std::move(blocks);
    }
  }

  if (auto it = obj->find("debounceMs"); it != obj->end() && !it->is_null()) {
    int ms = -1;
    r.integer("debounceMs", ms, 0, 10000, "an integer from 0 to 10000 (milliseconds)");
    if (ms >= 0) s.debounce_ms = ms;
  }

  if (auto it = obj->find("allowedDrivers"); it != obj->end()) {
    std::vector<std::string> globs;
    bool ok = it->is_array() || it->is_null();
    if (it->is_array())
      for (const auto& g : *it) {
        // An absolute glob only: a relative one would be read against the
        // compile command's directory, which is the workspace's.
        if (!g.is_string() || g.get_ref<const std::string&>().empty() || g.get_ref<const std::string&>()[0] != '/') {
          ok = false;
          break;
        }
        globs.push_back(g.get<std::string>());
      }
    if (ok)
      s.allowed_drivers = std::move(globs);
    else
      r.wrong("allowedDrivers", "an array of absolute path globs, such as [\"/opt/cuda-*/bin/nvcc\", \"/usr/bin/g++-*\"]");
  }

  if (auto it = obj->find("llm"); it != obj->end() && !it->is_null()) {
    if (!it->is_object()) {
      r.wrong("llm", "an object");
    } else {
      Reader l{*it, "warplens.llm.", problems};
      check_known(*it, {"endpoint", "model"}, l.prefix, problems);
      l.string("endpoint", s.llm.endpoint);
      l.string("model", s.llm.model);
    }
  }
  return s;
}

json settings_to_json(const Settings& s) {
  auto block = [](const BlockShape& b) { return json::array({b.x, b.y, b.z}); };
  json kernels = json::object();
  for (const auto& [name, b] : s.kernel_blocks) kernels[name] = block(b);
  return json{{"arch", s.arch},
              {"cudaPath", s.cuda_path},
              {"compileCommandsDir", s.compile_commands_dir},
              {"thresholds",
               {{"uncoalesced", s.uncoalesced_threshold},
                {"bankConflict", s.bank_conflict_threshold},
                {"occupancy", s.occupancy_threshold}}},
              {"defaultBlockSize", s.default_block ? block(*s.default_block) : json()},
              {"kernelBlockSizes", kernels},
              {"debounceMs", s.debounce_ms ? json(*s.debounce_ms) : json()},
              {"profileCommand", s.profile_command},
              {"buildCommand", s.build_command},
              {"allowedDrivers", s.allowed_drivers},
              {"llm", {{"endpoint", s.llm.endpoint}, {"model", s.llm.model}, {"apiKeySet", !llm_api_key().empty()}}}};
}

AnalysisOptions to_analysis_options(const Settings& s) {
  AnalysisOptions o;
  o.arch = s.arch;
  o.cuda_path = s.cuda_path;
  o.compile_commands_dir = s.compile_commands_dir;
  o.uncoalesced_threshold = s.uncoalesced_threshold;
  o.bank_conflict_threshold = s.bank_conflict_threshold;
  o.occupancy_threshold = s.occupancy_threshold;
  o.default_block = s.default_block;
  o.kernel_blocks = s.kernel_blocks;
  o.allowed_drivers = s.allowed_drivers;
  return o;
}

bool analysis_settings_differ(const Settings& a, const Settings& b) {
  return a.arch != b.arch || a.cuda_path != b.cuda_path || a.compile_commands_dir != b.compile_commands_dir ||
         a.uncoalesced_threshold != b.uncoalesced_threshold || a.bank_conflict_threshold != b.bank_conflict_threshold ||
         a.occupancy_threshold != b.occupancy_threshold || a.default_block != b.default_block ||
         a.kernel_blocks != b.kernel_blocks || a.allowed_drivers != b.allowed_drivers;
}

std::string llm_api_key() {
  const char* key = std::getenv("WARPLENS_LLM_API_KEY");
  return key ? key : "";
}

}  // namespace warplens::server
