// "Optimize this kernel" through the real binary, on a machine without a
// GPU (CI; WARPLENS_PROFILE_ASSUME_NO_GPU=1 makes a GPU machine look like
// one): `warplens optimize` is wired into the command line, and
// warplens.optimize over LSP answers with a clear error, shows it to the
// user, and offers nothing. The GPU path itself is covered in process with
// a scripted verifier (tests/unit/server/optimize_feature_test.cpp) and on
// the GPU by `warplens optimize` (tests/gpu/).
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "support/lsp_client.h"

using namespace warplens::testing;

namespace {

const std::string kKernel =
    "__global__ void scale(float* a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) a[i] *= 2.0f;\n"
    "}\n";

}  // namespace

TEST_CASE("`warplens optimize` is a command: listed in --help, usage errors exit 2") {
  auto help = run_warplens({"--help"}, kWait);
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("  optimize ") != std::string::npos);
  auto usage = run_warplens({"optimize"}, kWait);
  CHECK(usage.exit_code == 2);
  CHECK(usage.err.find("no FILE") != std::string::npos);
  CHECK(run_warplens({"optimize", "x.cu", "--kernel", "k", "--bogus"}, kWait).exit_code == 2);
  auto own_help = run_warplens({"optimize", "--help"}, kWait);
  CHECK(own_help.exit_code == 0);
  CHECK(own_help.out.find("--kernel NAME") != std::string::npos);
}

TEST_CASE("warplens.optimize without a GPU: a clear error, said once, and no rewrites") {
  ::setenv("WARPLENS_PROFILE_ASSUME_NO_GPU", "1", 1);
  auto dir = std::filesystem::temp_directory_path() / ("warplens-optimize-e2e-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "scale.cu") << kKernel;
  const std::string uri = "file://" + (dir / "scale.cu").string();
  {
    ServerProcess server({"--debounce-ms", "0"});
    LspClient client(server);
    json init = client.initialize(LspClient::capabilities_utf16());
    auto commands = init["result"]["capabilities"]["executeCommandProvider"]["commands"];
    CHECK(std::find(commands.begin(), commands.end(), "warplens.optimize") != commands.end());
    client.notify("textDocument/didOpen", did_open(uri, 1, kKernel));
    json r = client.request("workspace/executeCommand",
                            {{"command", "warplens.optimize"},
                             {"arguments", json::array({{{"uri", uri}, {"kernel", "scale"}, {"budget", 60}}})}});
    INFO(r.dump(2));
    REQUIRE(r.contains("error"));
    CHECK(r["error"]["code"] == -32803);
    CHECK(r["error"]["message"].get<std::string>().find("nothing is offered") != std::string::npos);
    // The request's error is the one channel (the editor shows it); no
    // window/showMessage repeats it.
    CHECK(client.shutdown_and_exit() == 0);
    for (const auto& n : client.notifications("window/showMessage"))
      CHECK_MESSAGE(n["params"].value("message", "").find("nothing is offered") == std::string::npos, n.dump());
  }
  ::unsetenv("WARPLENS_PROFILE_ASSUME_NO_GPU");
  std::filesystem::remove_all(dir);
}
