// Malformed input through the real binary: every bad message gets an error
// reply (or, for framing garbage, a null-id error) and the server lives on
// to answer the next request and shut down cleanly.
#include <doctest/doctest.h>

#include "support/lsp_client.h"

using namespace warplens::testing;

namespace {

std::size_t null_id_errors(const LspClient& client) {
  std::size_t n = 0;
  for (const auto& m : client.received()) n += (m.contains("error") && m["id"].is_null()) ? 1 : 0;
  return n;
}

json expect_nth_null_error(LspClient& client, std::size_t n) {
  auto deadline = std::chrono::steady_clock::now() + kWait;
  while (null_id_errors(client) < n && std::chrono::steady_clock::now() < deadline) client.drain(20ms);
  std::size_t seen = 0;
  for (const auto& m : client.received())
    if (m.contains("error") && m["id"].is_null() && ++seen == n) return m;
  FAIL_CHECK("expected " << n << " error replies with a null id, got " << null_id_errors(client));
  return json::object();
}

void check_alive(LspClient& client) {
  json r = client.request("workspace/executeCommand", {{"command", "warplens.listJobs"}});
  CHECK_MESSAGE(r["result"].is_array(), "the server stopped answering: " << r.dump());
}

}  // namespace

TEST_CASE("requests before initialize get -32002") {
  ServerProcess server({});
  LspClient client(server);
  CHECK(client.request("textDocument/hover", {{"textDocument", {{"uri", "file:///a.cu"}}},
                                              {"position", lsp_position(0, 0)}})["error"]["code"] == -32002);
  client.initialize(LspClient::capabilities_utf16());
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("garbage, bad headers, invalid JSON and invalid UTF-8 get error replies; the server lives on") {
  ServerProcess server({});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16());

  client.send_raw("hello, this is not LSP\r\n\r\n");
  CHECK(expect_nth_null_error(client, 1)["error"]["code"] == -32700);
  check_alive(client);

  client.send_raw("Content-Type: text/plain\r\n\r\n{}");
  CHECK(expect_nth_null_error(client, 2)["error"]["code"] == -32700);
  check_alive(client);

  client.send_raw("Content-Length: nine\r\n\r\n");
  CHECK(expect_nth_null_error(client, 3)["error"]["code"] == -32700);
  check_alive(client);

  client.send_raw(warplens::protocol::frame(std::string_view("{\"jsonrpc\": \"2.0\", \"id\": 77, \"method\":")));
  CHECK(expect_nth_null_error(client, 4)["error"]["code"] == -32700);
  check_alive(client);

  // Invalid UTF-8 inside a JSON string.
  client.send_raw(warplens::protocol::frame(std::string_view(
      "{\"jsonrpc\":\"2.0\",\"id\":78,\"method\":\"textDocument/hover\",\"params\":{\"x\":\"\xFF\xFE\"}}")));
  CHECK(expect_nth_null_error(client, 5)["error"]["code"] == -32700);
  check_alive(client);

  // Valid JSON, invalid JSON-RPC: the id is kept when it can be read.
  client.send_raw(warplens::protocol::frame(std::string_view(R"({"jsonrpc":"2.0","id":79,"method":"x","params":5})")));
  json invalid = client.wait_response(79);
  CHECK(invalid["error"]["code"] == -32600);
  client.send_raw(warplens::protocol::frame(std::string_view(R"([1,2,3])")));
  CHECK(expect_nth_null_error(client, 6)["error"]["code"] == -32600);

  // Unknown methods: -32601 for requests, silence for notifications.
  CHECK(client.request("warplens/doesNotExist", json::object())["error"]["code"] == -32601);
  client.notify("warplens/doesNotExistEither", json::object());
  // Params of the wrong shape: -32602.
  CHECK(client.request("textDocument/hover", {{"textDocument", 5}})["error"]["code"] == -32602);
  check_alive(client);
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("a didOpen of text containing invalid UTF-8 escapes and control bytes does not hurt the server") {
  ServerProcess server({"--debounce-ms", "0"});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16());
  // JSON can carry lone surrogates only as escapes; they are invalid text and refused with -32700.
  client.send_raw(warplens::protocol::frame(std::string_view(
      R"({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/bad.cu","languageId":"cuda","version":1,"text":"a\ud800b"}}})")));
  CHECK(expect_nth_null_error(client, 1)["error"]["code"] == -32700);
  // NUL and other control characters are valid JSON and are analysed like any text.
  client.notify("textDocument/didOpen", did_open("file:///tmp/ctrl.cu", 1, std::string("int x;\0\x01\x02\n", 10)));
  json p = client.wait_notification("textDocument/publishDiagnostics");
  CHECK(p["params"]["version"] == 1);
  check_alive(client);
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("a 50 MB message is read and answered; above --max-message-bytes it is refused and skipped") {
  const std::string big(50u << 20, 'x');
  {
    ServerProcess server({});
    LspClient client(server);
    client.initialize(LspClient::capabilities_utf16());
    int id = client.send_request("warplens/bigUnknownMethod", {{"payload", big}});
    CHECK(client.wait_response(id, 120s)["error"]["code"] == -32601);
    check_alive(client);
    CHECK(client.shutdown_and_exit() == 0);
  }
  {
    ServerProcess server({"--max-message-bytes", "1048576"});
    LspClient client(server);
    client.initialize(LspClient::capabilities_utf16());
    client.send_request("workspace/executeCommand", {{"command", "warplens.listJobs"}, {"arguments", {big}}});
    json refused = expect_nth_null_error(client, 1);
    CHECK(refused["error"]["code"] == -32600);
    CHECK(refused["error"]["message"].get<std::string>().find("exceeds the limit of 1048576 bytes") !=
          std::string::npos);
    check_alive(client);
    CHECK(client.shutdown_and_exit() == 0);
  }
}

TEST_CASE("a frame split into single bytes is still one message") {
  ServerProcess server({});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16());
  std::string framed = warplens::protocol::frame_json(
      json{{"jsonrpc", "2.0"}, {"id", 500}, {"method", "workspace/executeCommand"},
           {"params", {{"command", "warplens.listJobs"}}}});
  for (char c : framed) client.send_raw(std::string_view(&c, 1));
  CHECK(client.wait_response(500)["result"].is_array());
  CHECK(client.shutdown_and_exit() == 0);
}

// Junk without a newline followed directly by a valid frame (a client that
// wrote a stray line without its newline): the junk was read as part of the
// header block, the block had no Content-Length, and the frame behind it was
// lost with no answer. Now: one parse error for the junk, then the answer.
TEST_CASE("junk without a newline before a frame: one parse error, and the frame is answered") {
  ServerProcess server({});
  LspClient client(server);
  client.initialize(LspClient::capabilities_utf16());
  for (const std::string& junk :
       std::vector<std::string>{"garbage", "{\"half\":", "X-Header: 1", std::string(10000, 'j')}) {
    CAPTURE(junk.substr(0, 20));
    const std::size_t before = null_id_errors(client);
    const int id = 600 + static_cast<int>(before);
    client.send_raw(junk + warplens::protocol::frame_json(
                               json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "workspace/executeCommand"},
                                    {"params", {{"command", "warplens.listJobs"}}}}));
    CHECK(client.wait_response(id)["result"].is_array());
    CHECK(expect_nth_null_error(client, before + 1)["error"]["code"] == -32700);
  }
  check_alive(client);
  CHECK(client.shutdown_and_exit() == 0);
}
