// `apply_rewrite`: writes a verified candidate into the workspace file. The
// one tool that changes what the user owns, so it trusts nothing the agent
// says except which candidate it means:
//   - the candidate must have been verified in this session (verify, or an
//     optimize run), at reward level >= 2 and offerable (correct, more than
//     5% faster, plausible): verifier::Verdict::offerable();
//   - the hash the agent quotes must be that candidate's text hash, so the
//     text written is the text that was verified and the one the agent saw;
//   - the file must still hold the text it was verified against (a file
//     edited since is refused: the verdict says nothing about the new text).
// The write itself is workflows::apply_verified_rewrite_to_file, the same
// one `warplens optimize --apply` uses: minimal edits, the hash checked
// again on the bytes read, a temporary file renamed over the original.
#include "agent/text_diff.h"
#include "mcp/tool_env.h"
#include "mcp/tool_support.h"
#include "workflows/verified_rewrites.h"

namespace warplens::mcp {

Tool make_apply_rewrite_tool(ToolEnv& env) {
  Tool t;
  t.name = "apply_rewrite";
  t.title = "Apply a verified rewrite to the file";
  t.description =
      "Writes a candidate into its file, only if the verifier passed it at reward level >= 2 in this session "
      "(correct on every input set and more than 5% faster), the candidate_hash matches the verified text, and "
      "the file has not changed since it was verified. Give the candidate_id and candidate_hash from verify's "
      "(or optimize's) result. Refuses anything else with the reason.";
  t.input_schema = {{"type", "object"},
                    {"properties",
                     {{"candidate_id", {{"type", "string"}, {"description", "from verify or optimize, e.g. c3"}}},
                      {"candidate_hash", {{"type", "string"}, {"description", "the candidate_hash of that result"}}}}},
                    {"required", {"candidate_id", "candidate_hash"}},
                    {"additionalProperties", false}};
  t.output_schema = {{"type", "object"},
                     {"properties",
                      {{"applied", {{"type", "boolean"}}},
                       {"file", {{"type", "string"}}},
                       {"candidate_id", {{"type", "string"}}},
                       {"level", {{"type", "integer"}}},
                       {"edits", {{"type", "integer"}}},
                       {"file_hash", {{"type", "string"}, {"description", "the file's hash after the edit"}}}}},
                     {"required", {"applied", "file", "candidate_id"}}};
  t.annotations = {{"readOnlyHint", false}, {"destructiveHint", false}, {"idempotentHint", false},
                   {"openWorldHint", false}};
  t.run = [&env](const json& args, const ToolContext&) {
    const std::string id = args["candidate_id"].get<std::string>();
    auto rec = env.candidates().find(id);
    if (!rec)
      throw ToolError("refused", "no candidate `" + id + "` was verified in this session; submit it to verify first");
    if (args["candidate_hash"].get<std::string>() != rec->text_hash)
      throw ToolError("refused", "candidate_hash does not match candidate " + id + "'s verified text (" +
                                     rec->text_hash + "); only the text that was verified is applied");
    if (rec->level < 2 || !rec->offerable)
      throw ToolError("refused", "candidate " + id + " was not verified at level >= 2 (" + rec->summary +
                                     "); only a correct and faster candidate is applied");
    // The root may not hold the file any more (a link swapped since).
    const auto& ws = env.workspace();
    const auto file = ws.resolve(rec->file.string(), "file");
    const std::string current = read_workspace_file(file, "file");
    if (hash_text(current) != rec->base_hash)
      throw ToolError("refused", ws.relative(file) + " changed since candidate " + id +
                                     " was verified; verify it again against the current text");

    workflows::VerifiedRewrite rewrite;
    rewrite.candidate_id = id;
    rewrite.edits = agent::minimal_edits(current, rec->text);
    rewrite.base_text_hash = agent::text_hash(current);
    std::string error;
    if (!workflows::apply_verified_rewrite_to_file(rewrite, file.string(), error))
      throw ToolError("refused", "not applied: " + error);

    ToolResult r;
    r.structured = {{"applied", true},
                    {"file", ws.relative(file)},
                    {"candidate_id", id},
                    {"level", rec->level},
                    {"edits", rewrite.edits.size()},
                    {"file_hash", hash_text(rec->text)}};
    r.text = "applied candidate " + id + " (level " + std::to_string(rec->level) + ") to " + ws.relative(file) +
             ": " + std::to_string(rewrite.edits.size()) + " edit(s)\n";
    return r;
  };
  return t;
}

}  // namespace warplens::mcp
