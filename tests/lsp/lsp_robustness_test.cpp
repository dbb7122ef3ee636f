// Issue 21 through the real binary: the crashes, hangs and leaks a fuzzing
// run found, each as it was found (tests/fixtures/robustness/ or generated
// here). Every case fails without its fix: the server dies (no reply), hangs
// (a deadline passes), or a secret / a marker file shows up.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/binary_requirements.h"
#include "support/lsp_client.h"

using namespace warplens::testing;
using warplens::test::needs;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path dir;
  explicit TempDir(const std::string& tag) {
    dir = fs::temp_directory_path() / ("warplens-robust-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text, bool executable = false) {
    fs::create_directories((dir / name).parent_path());
    std::ofstream(dir / name, std::ios::binary) << text;
    if (executable) fs::permissions(dir / name, fs::perms::owner_all);
    return (dir / name).string();
  }
};

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(WARPLENS_SOURCE_DIR) + "/tests/fixtures/robustness/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in, name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void check_alive(LspClient& client) {
  json r = client.request("workspace/executeCommand", {{"command", "warplens.listJobs"}});
  CHECK_MESSAGE(r["result"].is_array(), "the server stopped answering: " << r.dump());
}

std::string nested(std::size_t depth, char open, char close) {
  std::string s;
  for (std::size_t i = 0; i < depth; ++i) s += open == '{' ? "{\"a\":" : "[";
  s += "1";
  for (std::size_t i = 0; i < depth; ++i) s += close;
  return s;
}

std::string request_body(const std::string& id_json, const std::string& method, const std::string& params) {
  return R"({"jsonrpc":"2.0","id":)" + id_json + R"(,"method":")" + method + R"(","params":)" + params + "}";
}

json wait_id(LspClient& client, const json& id) {
  auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    for (const auto& m : client.received())
      if (!m.contains("method") && m.contains("id") && m["id"] == id) return m;
    client.drain(20ms);
  }
  FAIL_CHECK("no response with id " << id.dump());
  return json::object();
}

}  // namespace

TEST_CASE("A: replies whose error.message is not a string, before and after initialize") {
  ServerProcess server({});
  LspClient client(server);
  std::ifstream in(std::string(WARPLENS_SOURCE_DIR) + "/tests/fixtures/robustness/response_error_message.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 9);
  for (const auto& l : lines) client.send_raw(warplens::protocol::frame(std::string_view(l)));
  client.initialize(LspClient::capabilities_utf16());
  for (const auto& l : lines) client.send_raw(warplens::protocol::frame(std::string_view(l)));
  check_alive(client);
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("B and C: 100,000-deep JSON in every parameter the server copies, at info and at trace level") {
  for (const char* level : {"info", "trace"}) {
    CAPTURE(level);
    TempDir tmp(std::string("deep-") + level);
    ServerProcess server({"--log-level", level, "--log-file", (tmp.dir / "log").string()});
    LspClient client(server);
    const std::string deep_obj = nested(100000, '{', '}'), deep_arr = nested(300000, '[', ']');
    // initialize: capabilities, then initializationOptions.
    client.send_raw(warplens::protocol::frame(
        request_body("901", "initialize", R"({"processId":null,"rootUri":null,"capabilities":)" + deep_obj + "}")));
    json r = wait_id(client, 901);
    CHECK(r["error"]["code"] == -32600);
    CHECK(r["error"]["message"] == "message nested deeper than 128 levels (the limit)");
    client.send_raw(warplens::protocol::frame(request_body(
        "902", "initialize", R"({"processId":null,"capabilities":{},"initializationOptions":)" + deep_arr + "}")));
    CHECK(wait_id(client, 902)["error"]["code"] == -32600);
    client.initialize(LspClient::capabilities_utf16());
    client.send_raw(warplens::protocol::frame(request_body(
        "903", "workspace/executeCommand", R"({"command":"warplens.listJobs","arguments":)" + deep_arr + "}")));
    CHECK(wait_id(client, 903)["error"]["code"] == -32600);
    client.send_raw(warplens::protocol::frame(
        R"({"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":)" + deep_obj + "}}"));
    client.send_raw(warplens::protocol::frame(request_body(
        "904", "codeAction/resolve", R"({"title":"x","data":)" + deep_obj + "}")));
    CHECK(wait_id(client, 904)["error"]["code"] == -32600);
    check_alive(client);
    CHECK(client.shutdown_and_exit() == 0);
  }
}

TEST_CASE("closing only the server's stdout ends it") {
  ServerProcess server({});
  {
    LspClient client(server);
    client.initialize(LspClient::capabilities_utf16());
  }
  server.close_stdout();  // stdin stays open: only the reading end of our stdout is gone
  int status = server.wait_exit(20s);
  CHECK(status == 1);  // no shutdown was asked for
}

TEST_CASE("positions out of range are InvalidParams; the document is not touched") {
  ServerProcess server({});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16());
  client.notify("textDocument/didOpen", did_open("file:///tmp/warplens-robust-pos.cu", 1, "int x;\n"));
  for (json line : {json(4294967296LL), json(4294967297ULL), json(-1), json(1.5), json(2147483648LL)}) {
    CAPTURE(line.dump());
    json r = client.request("textDocument/hover", {{"textDocument", {{"uri", "file:///tmp/warplens-robust-pos.cu"}}},
                                                   {"position", {{"line", line}, {"character", 0}}}});
    CHECK(r["error"]["code"] == -32602);
  }
  check_alive(client);
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("F: #include \"/dev/stdin\" and /proc/self/fd/0 do not read the LSP channel; the server answers") {
  ServerProcess server({"--debounce-ms", "0", "--no-resource-usage"});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16());
  TempDir tmp("stdin");
  for (const char* name : {"include_stdin.cu", "include_proc_fd0.cu", "include_dev_zero.cu"}) {
    CAPTURE(name);
    std::string path = tmp.write(name, fixture(name));
    client.notify("textDocument/didOpen", did_open("file://" + path, 1, fixture(name)));
    json d = client.wait_notification("textDocument/publishDiagnostics",
                                      [&](const json& p) { return p["uri"] == "file://" + path; }, 90s);
    bool said = false;
    for (const auto& diag : d["params"]["diagnostics"])
      said |= diag["message"].get<std::string>().rfind("warplens did not read /", 0) == 0;
    CHECK_MESSAGE(said, d.dump());
    check_alive(client);
  }
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("F: optimize and profile on file:///dev/zero, profileFile=/dev/zero: answered at once") {
  ServerProcess server({"--debounce-ms", "0", "--no-resource-usage"});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16());
  client.notify("textDocument/didOpen", did_open("file:///dev/zero", 1, "__global__ void k(float* a) { a[0] = 1; }\n"));
  auto t0 = std::chrono::steady_clock::now();
  json o = client.request("workspace/executeCommand",
                          {{"command", "warplens.optimize"},
                           {"arguments", {{{"uri", "file:///dev/zero"}, {"kernel", "k"}}}}}, 60s);
  CHECK(o.contains("error"));
  json p = client.request("workspace/executeCommand",
                          {{"command", "warplens.profile"}, {"arguments", {{{"uri", "file:///dev/zero"}}}}}, 60s);
  CHECK(p.contains("error"));
  TempDir tmp("profile");
  std::string doc = tmp.write("k.cu", "__global__ void k(float* a) { a[0] = 1; }\n");
  client.notify("textDocument/didOpen", did_open("file://" + doc, 1, "__global__ void k(float* a) { a[0] = 1; }\n"));
  for (std::string bad : {"/dev/zero", "/etc/shadow", "/etc/passwd"}) {
    CAPTURE(bad);
    json r = client.request("workspace/executeCommand",
                            {{"command", "warplens.profile"},
                             {"arguments", {{{"uri", "file://" + doc}, {"profileFile", bad}}}}}, 60s);
    std::string text = r.dump();
    CHECK(r.contains("error"));
    // The file's first bytes are never repeated ("last read: 'r'").
    CHECK(text.find("last read") == std::string::npos);
    CHECK(text.find("root") == std::string::npos);
  }
  CHECK(std::chrono::steady_clock::now() - t0 < 60s);
  check_alive(client);
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("a binary document gets one line") {
  ServerProcess server({"--debounce-ms", "0", "--no-resource-usage"});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16());
  std::string elf("\x7f" "ELF\x02\x01\x01", 7);
  elf += std::string(100, '\0') + "{ ( ; int garbage";
  client.notify("textDocument/didOpen", did_open("file:///tmp/warplens-robust.bin", 1, elf));
  json d = client.wait_notification("textDocument/publishDiagnostics");
  REQUIRE(d["params"]["diagnostics"].size() == 1);
  CHECK(d["params"]["diagnostics"][0]["code"] == "analysis-limit");
  CHECK(d["params"]["diagnostics"][0]["message"].get<std::string>().rfind("not analysed: a binary file", 0) == 0);
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("no secret in any log line, at any level: URL userinfo, apiKey in a malformed body, a `token` setting") {
  const std::string key = "sk-robust-ENVKEY-0123456789";
  const std::string other = "hf_robust-OTHER-ENV-TOKEN-42";
  ::setenv("WARPLENS_LLM_API_KEY", key.c_str(), 1);
  ::setenv("HF_TOKEN", other.c_str(), 1);
  for (const char* level : {"info", "trace"}) {
    CAPTURE(level);
    TempDir tmp(std::string("secrets-") + level);
    fs::path log = tmp.dir / "server.log";
    {
      ServerProcess server({"--log-level", level, "--log-file", log.string(), "--debounce-ms", "0",
                            "--no-resource-usage"});
      LspClient client(server);
      client.initialize(LspClient::capabilities_utf16(),
                        {{"warplens",
                          {{"llm", {{"endpoint", "http://robust-user:robust-PW-secret@127.0.0.1:9/v1"}, {"model", "m"}}},
                           {"token", "ghp_robust-SETTING-token"},
                           {"apiKey", "sk-robust-SETTING-apikey"}}}});
      // Malformed bodies, logged raw before: cut JSON, and valid JSON that is not JSON-RPC.
      client.send_raw(warplens::protocol::frame(std::string_view(
          R"({"jsonrpc":"2.0","method":"x","params":{"apiKey":"sk-robust-BODY-apikey","password":"robust-BODY-pw)")));
      client.send_raw(warplens::protocol::frame(std::string_view(
          R"({"jsonrpc":"1.0","id":5,"params":{"token":"robust-BODY-token","url":"https://robust-u:robust-BODY-urlpw@h/x"}})")));
      client.notify("workspace/didChangeConfiguration",
                    {{"settings", {{"warplens", {{"token", "robust-CHANGE-token"},
                                                 {"llm", {{"endpoint", "https://tok-robust-CHANGE@h.example/v1"}}}}}}}});
      client.notify("textDocument/didOpen",
                    did_open("file:///tmp/warplens-robust-secret.cu", 1, "// Authorization: Bearer robust-DOC-bearer\n"));
      client.wait_notification("textDocument/publishDiagnostics");
      check_alive(client);
      CHECK(client.shutdown_and_exit() == 0);
    }
    std::string text = read_file(log);
    CHECK(!text.empty());
    CHECK(text.find("initialize from") != std::string::npos);
    for (const std::string& secret :
         {key, other, std::string("robust-PW-secret"), std::string("robust-user"), std::string("ghp_robust-SETTING-token"),
          std::string("sk-robust-SETTING-apikey"), std::string("sk-robust-BODY-apikey"), std::string("robust-BODY-pw"),
          std::string("robust-BODY-token"), std::string("robust-BODY-urlpw"), std::string("robust-CHANGE-token"),
          std::string("tok-robust-CHANGE"), std::string("robust-DOC-bearer")})
      CHECK_MESSAGE(text.find(secret) == std::string::npos, secret << " is in the " << level << " log:\n" << text);
    CHECK(text.find("<redacted>") != std::string::npos);
  }
  ::unsetenv("WARPLENS_LLM_API_KEY");
  ::unsetenv("HF_TOKEN");
}

// Without nvcc resource usage does not run, and there is nothing to check.
TEST_CASE("workspace content runs no program: -ccbin ./tools/cc and cudaPath's nvcc are refused unless allowed" *
          needs("nvcc")) {
  TempDir ws("trust");
  const std::string marker = (ws.dir / "ran").string();
  const std::string script = "#!/bin/sh\necho ran >> " + marker + "\nexec g++ \"$@\"\n";
  ws.write("tools/cc", script, true);
  ws.write("fakecuda/bin/nvcc", "#!/bin/sh\necho ran >> " + marker + "\nexit 1\n", true);
  const std::string kernel = "__global__ void k(float* a) { a[threadIdx.x] = 1; }\n";
  std::string file = ws.write("k.cu", kernel);
  ws.write("compile_commands.json",
           json::array({{{"directory", ws.dir.string()},
                         {"command", "nvcc -ccbin ./tools/cc -Xcompiler -B./tools -c k.cu -o k.o"},
                         {"file", file}}})
               .dump());

  SUBCASE("warplens check") {
    RunResult r = run_warplens({"check", file}, kWait);
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    CHECK_FALSE(fs::exists(marker));
    CHECK_MESSAGE(r.out.find("host compiler `./tools/cc` (-ccbin) was not used") != std::string::npos, r.out);
    CHECK(r.out.find("host-compiler flags `-B./tools` were not passed to nvcc") != std::string::npos);
  }
  SUBCASE("the server, with cudaPath in the workspace") {
    ServerProcess server({"--debounce-ms", "0"});
    LspClient client(server);
    client.initialize(LspClient::capabilities_utf16(), {{"warplens", {{"cudaPath", (ws.dir / "fakecuda").string()}}}});
    client.notify("textDocument/didOpen", did_open("file://" + file, 1, kernel));
    json d = client.wait_notification("textDocument/publishDiagnostics", [](const json& p) {
      for (const auto& diag : p["diagnostics"])
        if (diag.value("code", "") == "resource-usage") return true;
      return false;
    }, 120s);
    CHECK_MESSAGE(d.dump().find("fakecuda/bin/nvcc: ") != std::string::npos, d.dump());
    CHECK(d.dump().find("warplens.allowedDrivers") != std::string::npos);
    CHECK_FALSE(fs::exists(marker));
    CHECK(client.shutdown_and_exit() == 0);
  }
  SUBCASE("allowed by a glob, it runs") {
    ServerProcess server({"--debounce-ms", "0", "--allow-driver", (ws.dir / "fakecuda/**").string()});
    LspClient client(server);
    client.initialize(LspClient::capabilities_utf16(), {{"warplens", {{"cudaPath", (ws.dir / "fakecuda").string()}}}});
    client.notify("textDocument/didOpen", did_open("file://" + file, 1, kernel));
    client.wait_notification("textDocument/publishDiagnostics", [](const json& p) {
      for (const auto& diag : p["diagnostics"])
        if (diag.value("code", "") == "resource-usage") return true;
      return false;
    }, 120s);
    CHECK(fs::exists(marker));  // the allowlist is what decides
    CHECK(client.shutdown_and_exit() == 0);
  }
}
