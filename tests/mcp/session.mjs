// The scripted agent session through the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk, pinned by package-lock.json): a real MCP
// client starts the real `warplens mcp` over stdio and drives it the way a
// coding agent does. The SDK checks the protocol for us: the initialize
// handshake and version, the JSON-RPC framing, every structuredContent
// against its tool's outputSchema (errors included: an error result must
// carry none), progress tokens and cancellation.
//
//   node session.mjs --warplens BIN --workspace DIR --cases DIR
//
// The workspace layout is session.py's (mcp_make_workspace). The verifier
// runs behind the fake CUDA driver (LD_LIBRARY_PATH set by run_session.sh).
// Exit 0 when every step passed.
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const ws = path.join(args.workspace, "ws");
const candidate = (name) => readFileSync(path.join(args.cases, "candidates", name), "utf8");
const originalPath = path.join(ws, "src", "scale_add.cu");
const original = readFileSync(originalPath, "utf8");
const frontend = execFileSync(args.warplens, ["--version"], { encoding: "utf8" }).includes("clang");

let failures = 0;
function check(step, ok, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${step}${!ok && detail ? ": " + detail : ""}`);
  if (!ok) failures++;
  return ok;
}
// A tool error: isError, no structuredContent (the SDK would check it
// against the success schema), its kind and message in _meta and the text.
// Anything else is not an error of ours (undefined).
const errorKind = (r) => {
  const e = r._meta?.["warplens/error"];
  if (!r.isError || r.structuredContent !== undefined || !e) return undefined;
  return r.content?.[0]?.text === `error (${e.kind}): ${e.message}` ? e.kind : undefined;
};
const show = (r) => JSON.stringify(r).slice(0, 2000);

// Verification and nvcc under a loaded CI machine take longer than the SDK's 60 s default.
const long = { timeout: 600000 };

const transport = new StdioClientTransport({
  command: args.warplens,
  args: ["mcp", "--root", ws, "--runs", "10"],
  env: process.env,
  stderr: "inherit",
});
const client = new Client({ name: "warplens-sdk-session", version: "1.0.0" });
await client.connect(transport);

check("initialize: server and version", client.getServerVersion()?.name === "warplens");
check("initialize: tools capability", client.getServerCapabilities()?.tools !== undefined);
await client.ping();
check("ping", true);

const { tools } = await client.listTools();
check(
  "tools/list",
  JSON.stringify(tools.map((t) => t.name)) ===
    JSON.stringify(["analyze", "kernel_report", "verify", "apply_rewrite", "profile", "capture", "optimize"]) &&
    tools.every((t) => t.inputSchema.type === "object" && t.outputSchema?.type === "object" && t.title),
  tools.map((t) => t.name).join(","),
);

// resource_usage on (the default): the in-process GPU probe loads the fake
// CUDA driver (on LD_LIBRARY_PATH for the verifier's children), whose
// limits are zeros; the analysis must fall back to the built-in table, not
// die (a zero warp size was a SIGFPE that closed the connection here).
let r = await client.callTool({ name: "analyze", arguments: { file: "src/scale_add.cu" } }, undefined, long);
if (frontend) {
  check(
    "analyze a file",
    !r.isError &&
      r.structuredContent.kernels.includes("scale_add") &&
      r.structuredContent.diagnostics.every((d) => d.code && d.range && d.message && d.numbers),
    show(r),
  );
  // resource_usage off: one nvcc run (above) is enough for the session.
  r = await client.callTool({ name: "kernel_report", arguments: { file: "src/scale_add.cu", kernel: "scale_add", resource_usage: false } }, undefined, long);
  check("kernel_report of one kernel", !r.isError && r.structuredContent.functions.length === 1, show(r));
} else {
  check("analyze without a front end is a tool error", errorKind(r) === "failed", show(r));
}
r = await client.callTool({ name: "analyze", arguments: { file: "../outside.cu" } }, undefined, long);
check("a path outside the root is refused", errorKind(r) === "outside-root", show(r));
r = await client.callTool({ name: "analyze", arguments: { file: "escape.cu" } }, undefined, long);
check("a link out of the root is refused", errorKind(r) === "outside-root", show(r));

const progress = [];
r = await client.callTool(
  { name: "verify", arguments: { file: "src/scale_add.cu", kernel: "scale_add", candidate_source: candidate("honest_scale_add_launch_bounds.cu") } },
  undefined,
  { onprogress: (p) => progress.push(p), timeout: 600000 },
);
check("verify an honest candidate: correct, level >= 1", !r.isError && r.structuredContent.correct === true && r.structuredContent.level >= 1, show(r));
check("verify reports progress", progress.length >= 2 && progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress), JSON.stringify(progress));
const honest = r.structuredContent;

r = await client.callTool(
  { name: "verify", arguments: { file: "src/scale_add.cu", kernel: "scale_add", candidate_source: candidate("exploit_ignores_alpha.cu") } },
  undefined,
  { timeout: 600000 },
);
check("verify an exploit: level -1, not applicable", !r.isError && r.structuredContent.level === -1 && r.structuredContent.applicable === false, show(r));
const exploit = r.structuredContent;

r = await client.callTool({ name: "apply_rewrite", arguments: { candidate_id: exploit.candidate_id, candidate_hash: exploit.candidate_hash } }, undefined, long);
check("apply_rewrite refuses an unverified candidate", errorKind(r) === "refused" && r.content[0].text.includes("not verified at level >= 2"), show(r));
r = await client.callTool({ name: "apply_rewrite", arguments: { candidate_id: honest.candidate_id, candidate_hash: "0".repeat(16) } }, undefined, long);
check("apply_rewrite refuses a wrong hash", errorKind(r) === "refused", show(r));
check("the file is unchanged", readFileSync(originalPath, "utf8") === original);

// Cancellation through the SDK: abort once the call reports progress; the
// SDK sends notifications/cancelled and the server keeps serving.
const abort = new AbortController();
let rejected = false;
try {
  await client.callTool(
    { name: "verify", arguments: { file: "src/scale_add.cu", kernel: "scale_add", candidate_source: candidate("exploit_hang.cu") } },
    undefined,
    { signal: abort.signal, onprogress: () => abort.abort("the agent changed its mind"), timeout: 600000 },
  );
} catch (e) {
  rejected = true;
}
check("a cancelled call is abandoned", rejected);
await client.ping();
check("the server serves after a cancellation", true);

r = await client.callTool({ name: "profile", arguments: { file: "src/scale_add.cu", program_args: ["65536"] } }, undefined, long);
check("profile without a GPU is a tool error", errorKind(r) === "no-gpu", show(r));
r = await client.callTool({ name: "capture", arguments: { kernel: "scale_add" } }, undefined, long);
check("capture without a profile command is a tool error", errorKind(r) === "no-capture", show(r));

let protocolError = false;
try {
  await client.callTool({ name: "verify", arguments: { file: "src/scale_add.cu", kernel: "scale_add", candidate_source: "x", input_sets: 1 } });
} catch (e) {
  protocolError = String(e).includes("-32602") || String(e).includes("unknown argument");
}
check("the verifier's limits are not the agent's: input_sets is refused", protocolError);

await client.close();
console.log(failures ? `${failures} step(s) failed` : "all steps passed");
process.exit(failures ? 1 : 0);
