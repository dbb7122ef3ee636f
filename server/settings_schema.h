// The settings schema (server/settings_schema.json), embedded at build time:
// the one description of every `warplens.*` setting that the server
// validates against and the editor clients are generated from
// (scripts/settings-schema.js). A setting the server reads but the schema
// lacks, or the reverse, fails settings_test.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace warplens::server {

struct SettingSpec {
  std::string key;         // relative to `warplens`; a dot nests: "thresholds.occupancy"
  bool server = false;     // side "server": sent to and read by the server
  bool restricted = false; // runs programs / sends code elsewhere (workspace trust)
  nlohmann::json schema;   // the whole entry (JSON Schema fields plus ours)
};

// The schema document as embedded.
const nlohmann::json& settings_schema();
// Its entries, in schema order.
const std::vector<SettingSpec>& setting_specs();
const SettingSpec* find_setting(const std::string& key);

// Empty when `value` (not null) fits the entry's type, range, pattern and
// enum; otherwise what was expected ("a number from 1 to 32 (sectors /
// ideal)"), for the warning. Block shapes are checked by the caller
// (parse_block_shape), which knows the 1024-thread rule.
std::string setting_value_problem(const SettingSpec& spec, const nlohmann::json& value);

}  // namespace warplens::server
