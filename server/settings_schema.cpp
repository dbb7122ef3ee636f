#include "server/settings_schema.h"

#include <regex>

namespace warplens::server {

extern const char* const kSettingsSchemaJson;  // settings_schema_data.cpp (generated)

using nlohmann::json;

const json& settings_schema() {
  static const json schema = json::parse(kSettingsSchemaJson);
  return schema;
}

const std::vector<SettingSpec>& setting_specs() {
  static const std::vector<SettingSpec> specs = [] {
    std::vector<SettingSpec> out;
    for (const auto& entry : settings_schema().at("settings")) {
      SettingSpec s;
      s.key = entry.at("key").get<std::string>();
      s.server = entry.value("side", std::string()) == "server";
      s.restricted = entry.value("restricted", false);
      s.schema = entry;
      out.push_back(std::move(s));
    }
    return out;
  }();
  return specs;
}

const SettingSpec* find_setting(const std::string& key) {
  for (const auto& s : setting_specs())
    if (s.key == key) return &s;
  return nullptr;
}

namespace {

std::vector<std::string> types_of(const json& schema) {
  const json& t = schema.at("type");
  if (t.is_string()) return {t.get<std::string>()};
  return t.get<std::vector<std::string>>();
}

bool has_type(const std::vector<std::string>& types, const char* t) {
  return std::find(types.begin(), types.end(), t) != types.end();
}

std::string number_text(const json& v) {
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  std::string s = v.dump();
  return s;
}

// "a number from 1 to 32", from the schema when it gives no `expected`.
std::string expected_phrase(const json& schema) {
  if (schema.contains("expected")) return schema["expected"].get<std::string>();
  auto types = types_of(schema);
  std::string what = has_type(types, "integer") ? "an integer"
                     : has_type(types, "number") ? "a number"
                     : has_type(types, "string") ? "a string"
                     : has_type(types, "boolean") ? "true or false"
                     : has_type(types, "array")   ? "an array"
                                                  : "an object";
  if (schema.contains("minimum") && schema.contains("maximum"))
    what += " from " + number_text(schema["minimum"]) + " to " + number_text(schema["maximum"]);
  return what;
}

}  // namespace

std::string setting_value_problem(const SettingSpec& spec, const json& value) {
  const json& schema = spec.schema;
  auto types = types_of(schema);
  bool ok = false;
  if (value.is_string() && has_type(types, "string")) {
    ok = true;
    const std::string s = value.get<std::string>();
    if (schema.contains("pattern")) ok = std::regex_match(s, std::regex(schema["pattern"].get<std::string>()));
    if (ok && schema.contains("enum")) {
      ok = false;
      for (const auto& e : schema["enum"]) ok |= e == value;
    }
  } else if (value.is_number() && (has_type(types, "number") || (has_type(types, "integer") && value.is_number_integer()))) {
    double v = value.get<double>();
    ok = !(schema.contains("minimum") && v < schema["minimum"].get<double>()) &&
         !(schema.contains("maximum") && v > schema["maximum"].get<double>());
  } else if (value.is_boolean()) {
    ok = has_type(types, "boolean");
  } else if (value.is_array()) {
    ok = has_type(types, "array");
    if (ok && schema.contains("items") && schema["items"].value("type", "") == "string")
      for (const auto& item : value) ok = ok && item.is_string();
  } else if (value.is_object()) {
    ok = has_type(types, "object");
  }
  return ok ? std::string() : expected_phrase(schema);
}

}  // namespace warplens::server
