// The tools as the model sees them: names, descriptions and JSON schemas.
// The descriptions are part of the prompt: they say what each tool is for and
// the rules of the edit format, so keep them exact and short.
#include "agent/llm/tool_box.h"

namespace warplens::agent::llm {

using nlohmann::json;

namespace {

json object(json properties, std::vector<std::string> required) {
  return json{{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

json draft_properties() {
  return json{{"source", {{"type", "string"}, {"description", "A full draft of the file. Omit to use the original."}}},
              {"candidate",
               {{"type", "string"}, {"description", "Instead of source: the id of a candidate you proposed earlier."}}}};
}

}  // namespace

std::vector<ToolDefinition> tool_definitions() {
  std::vector<ToolDefinition> tools;
  tools.push_back(
      {"read_file",
       "Read a file from the kernel's directory (the kernel's own file, headers next to it). Paths are relative to "
       "that directory. Returns the text, optionally only lines start_line..end_line (1-based, inclusive).",
       object({{"path", {{"type", "string"}}},
               {"start_line", {{"type", "integer"}, {"minimum", 1}}},
               {"end_line", {{"type", "integer"}, {"minimum", 1}}}},
              {"path"})});
  tools.push_back({"list_files", "List the files in the kernel's directory or a subdirectory of it.",
                   object({{"path", {{"type", "string"}, {"description", "Subdirectory; omit for the kernel's directory."}}}},
                          {})});
  tools.push_back({"static_analysis",
                   "Run warplens's static analysis (coalescing, shared-memory bank conflicts, occupancy, divergence, "
                   "barriers) on the original file or on a draft, and return its findings with the kernels' signatures "
                   "and launch sites.",
                   object(draft_properties(), {})});
  tools.push_back({"compile",
                   "Compile the original file or a draft with nvcc for the target GPU and return the compiler errors "
                   "(or 'compiles cleanly'). Cheap: use it before proposing.",
                   object(draft_properties(), {})});
  tools.push_back(
      {"propose_edit",
       "Propose a rewrite of the file for verification. Give EITHER `edits` (exact search/replace pairs applied to the "
       "original file, or to an earlier candidate named in `base`; each `old` must occur exactly once) OR `source` (the "
       "complete new file). The kernel keeps its name and parameter list. It is checked (applies, compiles, kernel "
       "signature kept, launches unchanged unless declared in `launch_change`) and, if accepted, verified on the GPU "
       "by warplens: correctness on several input sets, then timing against the original. The verdict is this tool's "
       "result, which arrives after verification.",
       object({{"description", {{"type", "string"}, {"description", "One line: what the rewrite changes and why it should be faster."}}},
               {"edits",
                {{"type", "array"},
                 {"items", object({{"old", {{"type", "string"}, {"description", "Exact text to replace (include enough context to be unique)."}}},
                                   {"new", {{"type", "string"}, {"description", "Replacement text."}}}},
                                  {"old", "new"})}}},
               {"source", {{"type", "string"}, {"description", "The complete rewritten file (instead of edits)."}}},
               {"base", {{"type", "string"}, {"description", "Apply `edits` to this earlier candidate (id) instead of the original."}}},
               {"launch_change",
                {{"type", "object"},
                 {"description",
                  "Only if the kernel must be launched differently: how launches change relative to the original "
                  "launch (grid G, block B). threads_d = ceil(G_d*B_d*scale_d); new grid_d = ceil(threads_d / new "
                  "block_d). Also edit the host code's launch to match."},
                 {"properties",
                  {{"block", {{"type", "array"}, {"items", {{"type", "integer"}, {"minimum", 1}}}, {"minItems", 3}, {"maxItems", 3},
                              {"description", "New block shape [x, y, z]; omit to keep the original block."}}},
                   {"swap_xy", {{"type", "boolean"}, {"description", "The kernel's x and y roles were exchanged."}}},
                   {"thread_scale", {{"type", "array"}, {"items", {{"type", "string"}}}, {"minItems", 3}, {"maxItems", 3},
                                     {"description", "Threads per original thread per dimension, as fractions: [\"1/1\", \"1/4\", \"1/1\"]."}}},
                   {"persistent_blocks_per_sm", {{"type", "integer"}, {"minimum", 0},
                                                 {"description", "For grid-stride kernels correct with any grid: cap the grid at SMs * this."}}}}}}},
               {"expected_speedup", {{"type", "number"}, {"description", "Your estimate, for ordering only."}}}},
              {"description"})});
  tools.push_back({"finish", "Stop: you have nothing more worth trying. Say why in one line.",
                   object({{"reason", {{"type", "string"}}}}, {"reason"})});
  return tools;
}

}  // namespace warplens::agent::llm
