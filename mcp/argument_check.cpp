#include "mcp/argument_check.h"

#include <cmath>
#include <set>

namespace warplens::mcp {

using nlohmann::json;

namespace {

std::string type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "a number";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "something else";
  }
}

bool has_type(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "number") return v.is_number();
  if (type == "integer") {
    if (v.is_number_integer()) return true;
    // 3.0 is an integer in JSON Schema. Compared without a cast: casting
    // 1e300 or NaN to an integer is undefined behaviour.
    if (!v.is_number_float()) return false;
    const double d = v.get<double>();
    return std::isfinite(d) && std::trunc(d) == d;
  }
  return false;
}

// "an object", "a string".
std::string article(const std::string& type) {
  return (!type.empty() && std::string("aeiou").find(type.front()) != std::string::npos ? "an " : "a ") + type;
}

}  // namespace

std::string check_arguments(const json& schema, const json& value, const std::string& path) {
  if (auto t = schema.find("type"); t != schema.end() && !has_type(value, t->get<std::string>()))
    return path + ": expected " + article(t->get<std::string>()) + ", got " + type_name(value);
  if (auto e = schema.find("enum"); e != schema.end()) {
    bool found = false;
    for (const auto& option : *e) found = found || option == value;
    if (!found) return path + ": expected one of " + e->dump() + ", got " + value.dump();
  }
  if (value.is_number()) {
    double v = value.get<double>();
    if (auto m = schema.find("minimum"); m != schema.end() && v < m->get<double>())
      return path + ": must be at least " + m->dump();
    if (auto m = schema.find("maximum"); m != schema.end() && v > m->get<double>())
      return path + ": must be at most " + m->dump();
  }
  if (value.is_string()) {
    if (auto m = schema.find("maxLength"); m != schema.end() && value.get_ref<const std::string&>().size() > m->get<std::size_t>())
      return path + ": longer than " + m->dump() + " bytes";
  }
  if (value.is_array()) {
    if (auto m = schema.find("minItems"); m != schema.end() && value.size() < m->get<std::size_t>())
      return path + ": needs at least " + m->dump() + " item(s)";
    if (auto m = schema.find("maxItems"); m != schema.end() && value.size() > m->get<std::size_t>())
      return path + ": takes at most " + m->dump() + " item(s)";
    if (auto items = schema.find("items"); items != schema.end())
      for (std::size_t i = 0; i < value.size(); ++i)
        if (auto e = check_arguments(*items, value[i], path + "[" + std::to_string(i) + "]"); !e.empty()) return e;
  }
  if (value.is_object()) {
    const json properties = schema.value("properties", json::object());
    if (auto r = schema.find("required"); r != schema.end())
      for (const auto& name : *r)
        if (!value.contains(name.get<std::string>())) return path + ": missing required `" + name.get<std::string>() + "`";
    bool closed = schema.contains("additionalProperties") && schema["additionalProperties"] == false;
    for (const auto& [key, v] : value.items()) {
      auto p = properties.find(key);
      if (p == properties.end()) {
        if (closed) {
          std::string known;
          for (const auto& [k, _] : properties.items()) known += (known.empty() ? "" : ", ") + k;
          return path + ": unknown argument `" + key + "` (this tool takes: " + known + ")";
        }
        continue;
      }
      if (auto e = check_arguments(*p, v, path + "." + key); !e.empty()) return e;
    }
  }
  return "";
}

std::string check_schema_supported(const json& schema, const std::string& path) {
  static const std::set<std::string> kKeywords = {"type",    "properties", "required", "additionalProperties",
                                                  "items",   "enum",       "minimum",  "maximum",
                                                  "minItems", "maxItems",  "maxLength", "description",
                                                  "title",   "default"};
  if (!schema.is_object()) return path + ": not an object";
  for (const auto& [key, v] : schema.items()) {
    if (!kKeywords.count(key)) return path + ": unsupported keyword `" + key + "`";
    if (key == "properties")
      for (const auto& [name, sub] : v.items())
        if (auto e = check_schema_supported(sub, path + ".properties." + name); !e.empty()) return e;
    if (key == "items")
      if (auto e = check_schema_supported(v, path + ".items"); !e.empty()) return e;
  }
  return "";
}

}  // namespace warplens::mcp
