// Checks a tools/call's `arguments` against the tool's input schema before
// the tool runs, so every tool sees well-typed arguments and a model that
// sends a wrong one gets one clear message naming it.
//
// The subset of JSON Schema the tools' schemas use, and nothing else:
// `type` (object, string, integer, number, boolean, array), `properties`,
// `required`, `additionalProperties: false`, `items`, `enum`, `minimum`,
// `maximum`, `minItems`, `maxItems`, `maxLength`. A keyword outside the
// subset in one of our own schemas is a programming error; the unit tests
// walk every tool's schema through check_schema_supported().
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace warplens::mcp {

// "" when `value` satisfies `schema`; else the first problem, with its
// path: "arguments.kernel: expected a string, got a number".
std::string check_arguments(const nlohmann::json& schema, const nlohmann::json& value,
                            const std::string& path = "arguments");

// "" when `schema` uses only the keywords above; else the first other one.
std::string check_schema_supported(const nlohmann::json& schema, const std::string& path = "schema");

}  // namespace warplens::mcp
