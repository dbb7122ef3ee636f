// A whole LSP session through the real binary over pipes:
// initialize -> didOpen -> diagnostics -> didChange -> fresh diagnostics for
// the new version only -> hover -> codeAction -> cancel -> shutdown/exit.
//
// These tests hold for any front end (including none): they check the
// protocol, versions, and liveness. Tests that need findings from the Clang
// front end are at the end, marked for the front end.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "support/lsp_client.h"

using namespace warplens::testing;

namespace {

// A real kernel: a naive transpose and its launch.
const std::string kTranspose = R"(#include <cuda_runtime.h>

__global__ void transpose(const float* in, float* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) out[x * n + y] = in[y * n + x];
}

void run(const float* in, float* out, int n) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (n + 15) / 16);
  transpose<<<grid, block>>>(in, out, n);
}
)";

struct Workspace {
  std::filesystem::path dir;
  std::string uri;
  Workspace() {
    dir = std::filesystem::temp_directory_path() / ("warplens-e2e-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "transpose.cu") << kTranspose;
    uri = "file://" + (dir / "transpose.cu").string();
  }
  ~Workspace() { std::filesystem::remove_all(dir); }
};

// Every diagnostic has LSP's shape: a range, a severity 1-4, a message.
void check_diagnostic_shapes(const json& diagnostics) {
  REQUIRE(diagnostics.is_array());
  for (const auto& d : diagnostics) {
    CHECK(d["range"]["start"]["line"].is_number_integer());
    CHECK(d["range"]["end"]["character"].is_number_integer());
    CHECK(d["severity"].get<int>() >= 1);
    CHECK(d["severity"].get<int>() <= 4);
    CHECK(d["message"].is_string());
    CHECK(d["source"].is_string());
  }
}

}  // namespace

TEST_CASE("a full session: open, change, hover, code actions, cancel, shutdown") {
  Workspace ws;
  ServerProcess server({"--debounce-ms", "0", "--test-commands", "--log-level", "debug"});
  LspClient client(server);

  json init = client.initialize(LspClient::capabilities_utf16());
  REQUIRE(init.contains("result"));
  const json& caps = init["result"]["capabilities"];
  CHECK(caps["positionEncoding"] == "utf-16");
  CHECK(caps["textDocumentSync"]["change"] == 2);
  CHECK(caps["hoverProvider"] == true);
  CHECK(caps["codeActionProvider"]["resolveProvider"] == true);
  CHECK(init["result"]["serverInfo"]["name"] == "warplens");

  // didOpen -> diagnostics for version 1.
  client.notify("textDocument/didOpen", did_open(ws.uri, 1, kTranspose));
  json v1 = client.wait_notification("textDocument/publishDiagnostics",
                                     [&](const json& p) { return p["uri"] == ws.uri; });
  CHECK(v1["params"]["version"] == 1);
  check_diagnostic_shapes(v1["params"]["diagnostics"]);

  // An incremental change -> diagnostics for version 2, and nothing older after them.
  client.notify("textDocument/didChange",
                {{"textDocument", {{"uri", ws.uri}, {"version", 2}}},
                 {"contentChanges", {{{"range", lsp_range(5, 2, 5, 2)}, {"text", "// guarded\n  "}}}}});
  json v2 = client.wait_notification("textDocument/publishDiagnostics",
                                     [&](const json& p) { return p["uri"] == ws.uri; });
  CHECK(v2["params"]["version"] == 2);
  check_diagnostic_shapes(v2["params"]["diagnostics"]);

  // A burst under a long debounce collapses: version 4 is published, never 3.
  client.notify("workspace/didChangeConfiguration", {{"settings", {{"warplens", {{"debounceMs", 1500}}}}}});
  for (int v = 3; v <= 4; ++v)
    client.notify("textDocument/didChange",
                  {{"textDocument", {{"uri", ws.uri}, {"version", v}}},
                   {"contentChanges", {{{"range", lsp_range(0, 0, 0, 0)}, {"text", "// v" + std::to_string(v) + "\n"}}}}});
  client.wait_notification("textDocument/publishDiagnostics", [](const json& p) { return p["version"] == 4; });
  client.drain(300ms);
  int last_version = 0;
  for (const auto& p : client.notifications("textDocument/publishDiagnostics")) {
    CHECK(p["version"] != 3);
    CHECK(p["version"].get<int>() >= last_version);  // never an older version after a newer one
    last_version = p["version"].get<int>();
  }
  client.notify("workspace/didChangeConfiguration", {{"settings", {{"warplens", {{"debounceMs", 0}}}}}});

  // Hover on the kernel name (line 4 after the two inserted lines): a hover or null, never an error.
  json hover = client.request("textDocument/hover",
                              {{"textDocument", {{"uri", ws.uri}}}, {"position", lsp_position(4, 20)}});
  REQUIRE(hover.contains("result"));
  if (!hover["result"].is_null()) CHECK(hover["result"]["contents"]["kind"] == "markdown");

  // Code actions over the whole file: a list whose entries carry their version.
  json actions = client.request("textDocument/codeAction", {{"textDocument", {{"uri", ws.uri}}},
                                                            {"range", lsp_range(0, 0, 16, 0)},
                                                            {"context", {{"diagnostics", json::array()}}}});
  REQUIRE_MESSAGE(actions["result"].is_array(), actions.dump());
  for (const auto& a : actions["result"]) CHECK(a["data"]["version"] == 4);
  json lenses = client.request("textDocument/codeLens", {{"textDocument", {{"uri", ws.uri}}}});
  CHECK(lenses["result"].is_array());

  // Cancel a long job: -32800, and its progress ends.
  int job = client.send_request("workspace/executeCommand",
                                {{"command", "warplens.debug.sleep"}, {"arguments", {{{"ms", 60000}, {"steps", 600}}}}});
  client.wait_notification("$/progress", [](const json& p) { return p["value"]["kind"] == "begin"; });
  client.notify("$/cancelRequest", {{"id", job}});
  CHECK(client.wait_response(job)["error"]["code"] == -32800);
  client.wait_notification("$/progress", [](const json& p) { return p["value"]["kind"] == "end"; });

  // Close clears the diagnostics.
  client.notify("textDocument/didClose", {{"textDocument", {{"uri", ws.uri}}}});
  client.wait_notification("textDocument/publishDiagnostics", [&](const json& p) {
    return p["uri"] == ws.uri && p["diagnostics"].empty() && !p.contains("version");
  });

  CHECK(client.shutdown_and_exit() == 0);
  CHECK(server.stderr_text().find("serving on stdio") != std::string::npos);
}

TEST_CASE("UTF-16 and UTF-8 position encodings are negotiated") {
  {
    ServerProcess server({"--debounce-ms", "0"});
    LspClient client(server);
    json caps = LspClient::capabilities_utf16();
    caps["general"] = {{"positionEncodings", {"utf-8", "utf-16"}}};
    CHECK(client.initialize(caps)["result"]["capabilities"]["positionEncoding"] == "utf-8");
    CHECK(client.shutdown_and_exit() == 0);
  }
  {
    ServerProcess server({"--debounce-ms", "0"});
    LspClient client(server);
    json caps = LspClient::capabilities_utf16();
    caps["general"] = {{"positionEncodings", {"utf-32"}}};
    CHECK(client.initialize(caps)["result"]["capabilities"]["positionEncoding"] == "utf-16");
    CHECK(client.shutdown_and_exit() == 0);
  }
}

TEST_CASE("warplens/status reports the state and the front end") {
  Workspace ws;
  ServerProcess server({"--debounce-ms", "0"});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16());
  json starting = client.wait_notification("warplens/status");
  CHECK(starting["params"]["state"] == "starting");
  CHECK(starting["params"]["frontend"].is_boolean());
  CHECK(starting["params"].contains("gpu"));
  client.notify("textDocument/didOpen", did_open(ws.uri, 1, kTranspose));
  client.wait_notification("warplens/status", [](const json& p) { return p["state"] == "ready"; });
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("exit without shutdown exits with 1; so does the end of input") {
  {
    ServerProcess server({});
    LspClient client(server);
    client.initialize(LspClient::capabilities_utf16());
    client.notify("exit", nullptr);
    CHECK(server.wait_exit(kWait) == 1);
  }
  {
    ServerProcess server({});
    LspClient client(server);
    client.initialize(LspClient::capabilities_utf16());
    server.close_stdin();
    CHECK(server.wait_exit(kWait) == 1);
  }
  {
    ServerProcess server({});
    LspClient client(server);
    client.initialize(LspClient::capabilities_utf16());
    CHECK(client.request("shutdown", nullptr)["result"].is_null());
    server.close_stdin();  // after shutdown, the end of input is a clean exit
    CHECK(server.wait_exit(kWait) == 0);
  }
}

TEST_CASE("a session read from a file (stdin is a regular file)") {
  auto dir = std::filesystem::temp_directory_path() / ("warplens-file-stdin-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string input;
  for (const json& m : {json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", {{"capabilities", json::object()}}}},
                        json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}},
                        json{{"jsonrpc", "2.0"}, {"method", "exit"}}})
    input += warplens::protocol::frame_json(m);
  std::ofstream(dir / "session.txt", std::ios::binary) << input;
  std::string cmd = warplens_binary() + " < " + (dir / "session.txt").string() + " > " + (dir / "out.txt").string() +
                    " 2>/dev/null";
  int status = std::system(cmd.c_str());
  CHECK(WEXITSTATUS(status) == 0);
  std::ifstream out(dir / "out.txt");
  std::string text((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  CHECK(text.find("\"capabilities\"") != std::string::npos);
  CHECK(text.find(R"({"id":2,"jsonrpc":"2.0","result":null})") != std::string::npos);
  std::filesystem::remove_all(dir);
}

// --- Needs the Clang front end (analysis/clang). Remove the skip when it lands. ---

TEST_CASE("a syntax error is published as a clang error on its line") {
  Workspace ws;
  ServerProcess server({"--debounce-ms", "0"});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16());
  std::string broken = kTranspose;
  broken.replace(broken.find("int n) {"), 8, "int n) { int z = ;");  // line 2 (0-based)
  client.notify("textDocument/didOpen", did_open(ws.uri, 1, broken));
  json p = client.wait_notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == ws.uri; });
  bool found = false;
  for (const auto& d : p["params"]["diagnostics"])
    found |= d["severity"] == 1 && d["source"] == "clang" && d["range"]["start"]["line"] == 2;
  CHECK_MESSAGE(found, p.dump());
  CHECK(client.shutdown_and_exit() == 0);
}

// --- Real findings through the real binary: the static analyses end to end. ---

namespace {

const std::string kTileTranspose = R"(__global__ void tile_transpose(const float* in, float* out, int n) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  int ox = blockIdx.y * 32 + threadIdx.x;
  int oy = blockIdx.x * 32 + threadIdx.y;
  out[oy * n + ox] = tile[threadIdx.x][threadIdx.y];
}

void run(const float* in, float* out, int n) {
  dim3 block(32, 32);
  dim3 grid(n / 32, n / 32);
  tile_transpose<<<grid, block>>>(in, out, n);
}
)";

const json* find_code(const json& diagnostics, const std::string& code) {
  for (const auto& d : diagnostics)
    if (d.value("code", "") == code) return &d;
  return nullptr;
}

// Applies one LSP TextEdit (UTF-16 == bytes here: the text is ASCII).
std::string apply_edit(std::string text, const json& edit) {
  auto offset = [&](const json& pos) {
    size_t at = 0;
    for (int line = 0; line < pos["line"].get<int>(); ++line) at = text.find('\n', at) + 1;
    return at + pos["character"].get<size_t>();
  };
  size_t b = offset(edit["range"]["start"]), e = offset(edit["range"]["end"]);
  return text.replace(b, e - b, edit["newText"].get<std::string>());
}

}  // namespace

TEST_CASE("the naive transpose's store is flagged with its numbers, and hover explains it") {
  Workspace ws;
  ServerProcess server({"--debounce-ms", "0", "--no-resource-usage"});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16());
  client.notify("textDocument/didOpen", did_open(ws.uri, 1, kTranspose));
  json p = client.wait_notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == ws.uri; });
  const json& diags = p["params"]["diagnostics"];
  const json* d = find_code(diags, "uncoalesced-global");
  REQUIRE_MESSAGE(d, diags.dump(2));
  // `out[x * n + y]` on line 5 (0-based), the store; the load beside it is coalesced.
  CHECK((*d)["range"] == lsp_range(5, 22, 5, 36));
  CHECK((*d)["severity"] == 2);
  CHECK((*d)["source"] == "warplens");
  const std::string msg = (*d)["message"];
  CHECK_MESSAGE(msg.find("store") != std::string::npos, msg);
  CHECK_MESSAGE(msg.find("sectors per request") != std::string::npos, msg);
  int uncoalesced = 0;
  for (const auto& x : diags) uncoalesced += x.value("code", "") == "uncoalesced-global";
  CHECK_MESSAGE(uncoalesced == 1, diags.dump(2));  // not the coalesced load

  json hover = client.request("textDocument/hover",
                              {{"textDocument", {{"uri", ws.uri}}}, {"position", lsp_position(5, 33)}});
  REQUIRE(hover["result"].is_object());
  const std::string md = hover["result"]["contents"]["value"];
  CHECK_MESSAGE(md.find("16") != std::string::npos, md);  // the block shape from the launch: 16 x 16
  CHECK_MESSAGE(md.find("launch") != std::string::npos, md);
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("a bank conflict's padding quick fix resolves, applies, and the diagnostic clears") {
  Workspace ws;
  ServerProcess server({"--debounce-ms", "0", "--no-resource-usage"});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16());
  client.notify("textDocument/didOpen", did_open(ws.uri, 1, kTileTranspose));
  json p = client.wait_notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == ws.uri; });
  const json* d = find_code(p["params"]["diagnostics"], "shared-bank-conflict");
  REQUIRE_MESSAGE(d, p.dump(2));
  CHECK((*d)["range"] == lsp_range(8, 21, 8, 51));  // tile[threadIdx.x][threadIdx.y]
  CHECK_MESSAGE((*d)["message"].get<std::string>().find("32-way") != std::string::npos, (*d)["message"]);

  json actions = client.request("textDocument/codeAction",
                                {{"textDocument", {{"uri", ws.uri}}},
                                 {"range", (*d)["range"]},
                                 {"context", {{"diagnostics", json::array({*d})}}}});
  json fix;
  for (const auto& a : actions["result"])
    if (a.value("kind", "") == "quickfix" && a["title"].get<std::string>().find("tile") != std::string::npos) fix = a;
  REQUIRE_MESSAGE(fix.is_object(), actions.dump(2));
  json resolved = client.request("codeAction/resolve", fix);
  REQUIRE_MESSAGE(resolved.contains("result"), resolved.dump(2));
  const json& edit = resolved["result"]["edit"];
  json edits = edit.contains("documentChanges") ? edit["documentChanges"][0]["edits"] : edit["changes"][ws.uri];
  REQUIRE(edits.size() >= 1);
  std::string fixed = kTileTranspose;
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) fixed = apply_edit(fixed, *it);
  CHECK_MESSAGE(fixed.find("__shared__ float tile[32][33];") != std::string::npos, fixed);

  client.notify("textDocument/didChange", {{"textDocument", {{"uri", ws.uri}, {"version", 2}}},
                                           {"contentChanges", {{{"text", fixed}}}}});
  json p2 = client.wait_notification("textDocument/publishDiagnostics", [&](const json& p) {
    return p["uri"] == ws.uri && p["version"] == 2;
  });
  CHECK_MESSAGE(!find_code(p2["params"]["diagnostics"], "shared-bank-conflict"), p2.dump(2));
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("warplens.fallbackFlags reach the parse: a header found only through its -I") {
  Workspace ws;
  std::filesystem::create_directories(ws.dir / "inc");
  std::ofstream(ws.dir / "inc" / "shape.cuh") << "#pragma once\n#define STRIDE 32\n";
  const std::string text =
      "#include \"shape.cuh\"\n"
      "__global__ void scale(float* a, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) a[i * STRIDE] *= 2.0f;\n"
      "}\n"
      "void run(float* a, int n) { scale<<<(n + 255) / 256, 256>>>(a, n); }\n";
  std::ofstream(ws.dir / "scale.cu") << text;
  std::string uri = "file://" + (ws.dir / "scale.cu").string();
  ServerProcess server({"--debounce-ms", "0"});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16(),
                    json{{"warplens", {{"fallbackFlags", {"-I", (ws.dir / "inc").string()}}}}});
  client.notify("textDocument/didOpen", did_open(uri, 1, text));
  json p = client.wait_notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == uri; });
  const json& diagnostics = p["params"]["diagnostics"];
  for (const auto& d : diagnostics) CHECK_MESSAGE(!(d["source"] == "clang" && d["severity"] == 1), d.dump());
  const json* uncoalesced = find_code(diagnostics, "uncoalesced-global");
  REQUIRE_MESSAGE(uncoalesced, diagnostics.dump());
  CHECK((*uncoalesced)["range"]["start"]["line"] == 3);
  CHECK(client.shutdown_and_exit() == 0);
}
