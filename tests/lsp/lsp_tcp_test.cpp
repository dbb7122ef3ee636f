// The TCP transport: `serve --listen 127.0.0.1:0` prints the port it got,
// serves one client, and refuses addresses that are not loopback.
#include <doctest/doctest.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>

#include "support/lsp_client.h"

using namespace warplens::testing;

namespace {

int listening_port(ServerProcess& server) {
  std::regex re(R"(listening on 127\.0\.0\.1:(\d+))");
  auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    std::smatch m;
    const std::string& err = server.stderr_text();
    if (std::regex_search(err, m, re)) return std::stoi(m[1]);
    if (!server.running()) break;
    server.poll_output(20ms);
  }
  FAIL_CHECK("the server did not announce its port; " << server.describe());
  return -1;
}

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

}  // namespace

TEST_CASE("a session over TCP on a loopback port") {
  ServerProcess server({"serve", "--listen", "127.0.0.1:0", "--debounce-ms", "0"}, /*pipe_stdin=*/false);
  int port = listening_port(server);
  REQUIRE(port > 0);
  int fd = connect_to(port);
  REQUIRE_MESSAGE(fd >= 0, "cannot connect to port " << port);
  LspClient client(server, fd);
  json init = client.initialize(LspClient::capabilities_utf16());
  CHECK(init["result"]["serverInfo"]["name"] == "warplens");
  client.notify("textDocument/didOpen", did_open("file:///tmp/warplens-tcp.cu", 1, "__global__ void k() {}\n"));
  CHECK(client.wait_notification("textDocument/publishDiagnostics")["params"]["version"] == 1);
  CHECK(client.request("warplens/nothing", json::object())["error"]["code"] == -32601);
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("a TCP client that disconnects without shutdown ends the server with status 1") {
  ServerProcess server({"serve", "--listen", "127.0.0.1:0"}, false);
  int port = listening_port(server);
  REQUIRE(port > 0);
  int fd = connect_to(port);
  REQUIRE(fd >= 0);
  {
    LspClient client(server, fd);  // closes the socket when it goes
    client.initialize(LspClient::capabilities_utf16());
  }
  CHECK(server.wait_exit(kWait) == 1);
}

TEST_CASE("non-loopback and malformed listen addresses are refused with a clear error") {
  for (const char* address : {"0.0.0.0:9257", "192.168.1.10:9257", "[::]:9257", "example.com:9257", "127.0.0.1",
                              "127.0.0.1:99999"}) {
    CAPTURE(address);
    auto r = run_warplens({"serve", "--listen", address}, kWait);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--listen") != std::string::npos);
    CHECK(r.out.empty());
  }
  auto r = run_warplens({"serve", "--listen", "10.0.0.1:1"}, kWait);
  CHECK(r.err.find("not a loopback address") != std::string::npos);
}
