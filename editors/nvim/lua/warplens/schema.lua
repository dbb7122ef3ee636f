-- Generated from server/settings_schema.json by scripts/settings-schema.js; do not edit.
-- The warplens settings (keys relative to `settings = { ... }` in setup): what
-- :checkhealth warplens checks the configured settings against.
return {
  { key = "serverPath", side = "client", types = { "string" }, restricted = true },
  { key = "arguments", side = "client", types = { "array" }, restricted = true },
  { key = "arch", side = "server", types = { "string" } },
  { key = "cudaPath", side = "server", types = { "string" }, restricted = true },
  { key = "compileCommandsDir", side = "server", types = { "string" } },
  { key = "thresholds.uncoalesced", side = "server", types = { "number" }, minimum = 1, maximum = 32 },
  { key = "thresholds.bankConflict", side = "server", types = { "integer" }, minimum = 2, maximum = 32 },
  { key = "thresholds.occupancy", side = "server", types = { "number" }, minimum = 0, maximum = 1 },
  { key = "defaultBlockSize", side = "server", types = { "array", "integer", "null" }, block_shape = true },
  { key = "kernelBlockSizes", side = "server", types = { "object" }, block_shape = true },
  { key = "debounceMs", side = "server", types = { "integer", "null" }, minimum = 0, maximum = 10000 },
  { key = "clangDiagnostics", side = "server", types = { "string" }, enum = { "auto", "on", "off" } },
  { key = "profileCommand", side = "server", types = { "string" }, restricted = true },
  { key = "buildCommand", side = "server", types = { "string" }, restricted = true },
  { key = "allowedDrivers", side = "server", types = { "array" }, restricted = true },
  { key = "fallbackFlags", side = "server", types = { "array" }, restricted = true },
  { key = "llm.endpoint", side = "server", types = { "string" }, restricted = true },
  { key = "llm.model", side = "server", types = { "string" } },
  { key = "trace.server", side = "client", types = { "string" }, enum = { "off", "messages", "verbose" } },
}
