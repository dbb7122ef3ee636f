#include "server/settings.h"

#include <cstdlib>
#include <functional>

#include "analysis/compile_db.h"
#include "analysis/driver_policy.h"
#include "common/redaction.h"
#include "server/settings_schema.h"

namespace warplens::server {

using nlohmann::json;

namespace {

constexpr std::int64_t kMaxThreadsPerBlock = 1024;

// How each server setting of the schema lands in Settings. The value has
// passed the schema's checks (block shapes excepted: the setter parses them
// and reports what is wrong). A null value resets the setting to its default.
using Setter = std::function<void(Settings&, const json&, const std::string& name, std::vector<std::string>&)>;

template <class T>
Setter plain(T Settings::*field) {
  return [field](Settings& s, const json& v, const std::string&, std::vector<std::string>&) {
    s.*field = v.is_null() ? Settings{}.*field : v.get<T>();
  };
}

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> table = {
      {"arch", plain(&Settings::arch)},
      {"cudaPath", plain(&Settings::cuda_path)},
      {"compileCommandsDir", plain(&Settings::compile_commands_dir)},
      {"thresholds.uncoalesced", plain(&Settings::uncoalesced_threshold)},
      {"thresholds.bankConflict", plain(&Settings::bank_conflict_threshold)},
      {"thresholds.occupancy", plain(&Settings::occupancy_threshold)},
      {"defaultBlockSize",
       [](Settings& s, const json& v, const std::string& name, std::vector<std::string>& problems) {
         if (v.is_null() || (v.is_array() && v.empty())) return s.default_block.reset();
         std::string error;
         if (auto b = parse_block_shape(v, error))
           s.default_block = b;
         else
           problems.push_back("setting " + name + " ignored: expected " + error);
       }},
      {"kernelBlockSizes",
       [](Settings& s, const json& v, const std::string& name, std::vector<std::string>& problems) {
         std::map<std::string, BlockShape> blocks;
         if (!v.is_null())
           for (auto k = v.begin(); k != v.end(); ++k) {
             std::string error;
             if (auto b = parse_block_shape(k.value(), error))
               blocks[k.key()] = *b;
             else
               problems.push_back("setting " + name + "." + k.key() + " ignored: expected " + error);
           }
         s.kernel_blocks = std::move(blocks);
       }},
      {"debounceMs",
       [](Settings& s, const json& v, const std::string&, std::vector<std::string>&) {
         if (v.is_null())
           s.debounce_ms.reset();
         else
           s.debounce_ms = v.get<int>();
       }},
      {"clangDiagnostics",
       [](Settings& s, const json& v, const std::string&, std::vector<std::string>&) {
         s.clang_diagnostics = v.is_null() ? Settings{}.clang_diagnostics : v.get<std::string>();
       }},
      {"profileCommand", plain(&Settings::profile_command)},
      {"buildCommand", plain(&Settings::build_command)},
      {"allowedDrivers",
       [](Settings& s, const json& v, const std::string& name, std::vector<std::string>& problems) {
         std::vector<std::string> globs;
         if (!v.is_null())
           for (const auto& g : v) {
             // An absolute glob only: a relative one would be read against the
             // compile command's directory, which is the workspace's.
             const auto& text = g.get_ref<const std::string&>();
             if (text.empty() || text[0] != '/') {
               problems.push_back("setting " + name +
                                  " ignored: expected an array of absolute path globs, such as "
                                  "[\"/opt/cuda-*/bin/nvcc\", \"/usr/bin/g++-*\"]");
               return;
             }
             globs.push_back(text);
           }
         s.allowed_drivers = std::move(globs);
       }},
      {"fallbackFlags",
       [](Settings& s, const json& v, const std::string& name, std::vector<std::string>& problems) {
         std::vector<std::string> flags;
         if (!v.is_null())
           for (const auto& f : v) {
             const auto& text = f.get_ref<const std::string&>();
             // A workspace's settings must not make the parse or nvcc load
             // code: the flags compile commands are refused too.
             if (is_program_loading_host_flag(text)) {
               problems.push_back("setting " + name + " ignored: `" + text +
                                  "` loads a program or plugin, which warplens does not run");
               return;
             }
             flags.push_back(text);
           }
         s.fallback_flags = std::move(flags);
       }},
      {"llm.endpoint",
       [](Settings& s, const json& v, const std::string&, std::vector<std::string>&) {
         s.llm.endpoint = v.is_null() ? "" : v.get<std::string>();
       }},
      {"llm.model",
       [](Settings& s, const json& v, const std::string&, std::vector<std::string>&) {
         s.llm.model = v.is_null() ? "" : v.get<std::string>();
       }},
  };
  return table;
}

bool is_group(const std::string& path) {
  for (const auto& spec : setting_specs())
    if (spec.server && spec.key.size() > path.size() && spec.key.compare(0, path.size() + 1, path + ".") == 0)
      return true;
  return false;
}

// Walks one level of the settings object: leaves go through the schema and
// their setter, groups (thresholds, llm) recurse, anything else is unknown.
void apply_object(Settings& s, const json& obj, const std::string& path, std::vector<std::string>& problems) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string key = path.empty() ? it.key() : path + "." + it.key();
    const std::string name = "warplens." + key;
    const SettingSpec* spec = find_setting(key);
    if (spec && spec->server) {
      const json& value = it.value();
      if (!value.is_null() && !spec->schema.value("blockShape", false)) {
        std::string expected = setting_value_problem(*spec, value);
        if (!expected.empty()) {
          problems.push_back("setting " + name + " ignored: expected " + expected);
          continue;
        }
      }
      setters().at(key)(s, value, name, problems);
    } else if (is_group(key)) {
      if (it->is_null()) continue;
      if (!it->is_object())
        problems.push_back("setting " + name + " ignored: expected an object");
      else
        apply_object(s, *it, key, problems);
    } else if (common::is_secret_key(it.key())) {
      problems.push_back("setting " + name +
                         " ignored: secrets are read only from the environment (WARPLENS_LLM_API_KEY)");
    } else {
      problems.push_back("unknown setting " + name);
    }
  }
}

}  // namespace

std::vector<std::string> settings_without_setter() {
  std::vector<std::string> out;
  for (const auto& spec : setting_specs())
    if (spec.server && !setters().count(spec.key)) out.push_back(spec.key);
  for (const auto& [key, setter] : setters()) {
    const SettingSpec* spec = find_setting(key);
    if (!spec || !spec->server) out.push_back(key + " (not in the schema)");
  }
  return out;
}

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
  apply_object(s, *obj, "", problems);
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
              {"clangDiagnostics", s.clang_diagnostics},
              {"buildCommand", s.build_command},
              {"allowedDrivers", s.allowed_drivers},
              {"fallbackFlags", s.fallback_flags},
              {"llm", {{"endpoint", s.llm.endpoint}, {"model", s.llm.model}, {"apiKeySet", !workflows::llm_api_key().empty()}}}};
}

AnalysisOptions to_analysis_options(const Settings& s, const std::string& workspace_folder) {
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
  if (!s.fallback_flags.empty()) {
    // Read as a clang command line, as compile_flags.txt is: relative
    // include paths become absolute, outputs and inputs are dropped.
    std::vector<std::string> argv{"clang++"};
    argv.insert(argv.end(), s.fallback_flags.begin(), s.fallback_flags.end());
    TranslatedCommand t = translate_compile_command(argv, workspace_folder, "");
    o.extra_args = std::move(t.args);
    if (o.cuda_path.empty()) o.cuda_path = t.cuda_path;
  }
  return o;
}

bool analysis_settings_differ(const Settings& a, const Settings& b) {
  return a.arch != b.arch || a.cuda_path != b.cuda_path || a.compile_commands_dir != b.compile_commands_dir ||
         a.uncoalesced_threshold != b.uncoalesced_threshold || a.bank_conflict_threshold != b.bank_conflict_threshold ||
         a.occupancy_threshold != b.occupancy_threshold || a.default_block != b.default_block ||
         a.kernel_blocks != b.kernel_blocks || a.allowed_drivers != b.allowed_drivers ||
         a.fallback_flags != b.fallback_flags;
}

}  // namespace warplens::server
