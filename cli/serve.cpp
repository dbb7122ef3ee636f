// `warplens serve`: the language server on stdio, or on one TCP connection
// with --listen (loopback only).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <spdlog/spdlog.h>

#include "analysis/analyzer.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "server/language_server.h"
#include "profiler/gpu_probe.h"
#include "server/listen_address.h"
#include "workflows/resources.h"
#include "server/transport.h"

namespace warplens::cli {

namespace asio = boost::asio;
using server::LanguageServer;
using server::ListenAddress;
using server::ServerOptions;
using server::Transport;
using server::parse_listen_address;

namespace {

void print_serve_help() {
  std::printf(
      "usage: warplens [serve] [options]\n\n"
      "Runs the language server (LSP 3.17) on stdin/stdout, or on one TCP connection.\n\n"
      "options:\n"
      "  --listen HOST:PORT       accept one client on HOST:PORT; HOST must be a loopback address\n"
      "                           (127.0.0.1, ::1, localhost); port 0 picks a free one. The address\n"
      "                           is printed on stderr: `warplens: listening on 127.0.0.1:PORT`\n"
      "  --debounce-ms N          wait N ms after an edit before analysing (default 300; the\n"
      "                           warplens.debounceMs setting overrides it)\n"
      "  -j, --jobs N             analysis threads (default min(cores, 4); never more than the cores)\n"
      "  --max-message-bytes N    refuse LSP messages larger than N bytes (default 67108864 = 64 MiB)\n"
      "  --no-resource-usage      do not compile documents with nvcc for registers, spills and\n"
      "                           occupancy (no low-occupancy / register-spill diagnostics)\n"
      "  --allow-driver GLOB      let compile commands (-ccbin) and cudaPath run this program;\n"
      "                           by default only the CUDA toolkit and compilers on PATH run\n"
      "                           (repeatable; added to the warplens.allowedDrivers setting)\n"
      "  --stdio                  accepted for compatibility; stdio is the default\n"
      "  --test-commands          enable warplens.debug.* commands (for tests)\n");
}

}  // namespace

// docs/diagnostics, for the codeDescription links of diagnostics: from
// WARPLENS_DOCS_DIR, next to an installed binary, or in the source tree of
// a build-tree binary (build/bin/warplens -> docs/diagnostics).
std::string find_docs_dir() {
  if (const char* env = std::getenv("WARPLENS_DOCS_DIR")) return env;
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  auto bin = exe.parent_path();
  for (const auto& candidate : {bin / "../share/warplens/docs/diagnostics", bin / "../../docs/diagnostics"})
    if (std::filesystem::is_directory(candidate, ec)) return std::filesystem::weakly_canonical(candidate, ec).string();
  return {};
}


int run_serve(const std::vector<std::string>& args, const CliEnvironment& env) {
  ServerOptions options;
  options.version = env.version;
  options.occupancy = [](const SourceFile& file, const KernelModel& model, const AnalysisOptions& o,
                         std::stop_token stop) { return workflows::analyze_resources(file, model, o, stop); };
  options.gpu_probe = [](std::stop_token stop) { return profile::probe_gpus(stop); };
  std::optional<ListenAddress> listen;
  std::size_t max_message_bytes = protocol::kDefaultMaxMessageBytes;
  OptionParser p("serve");
  p.value("--listen", [&](const std::string& v) {
    std::string error;
    listen = parse_listen_address(v, error);
    if (!listen) throw UsageError("--listen: " + error);
  });
  p.value("--debounce-ms", [&](const std::string& v) {
    options.debounce = std::chrono::milliseconds(parse_int("--debounce-ms", v, 0, 10000));
  });
  p.value("-j,--jobs", [&](const std::string& v) { options.workers = static_cast<unsigned>(parse_int("--jobs", v, 1, 1024)); });
  p.value("--max-message-bytes", [&](const std::string& v) {
    max_message_bytes = static_cast<std::size_t>(parse_int("--max-message-bytes", v, 1024, 1ll << 34));
  });
  p.flag("--no-resource-usage", [&] { options.occupancy = nullptr; });
  p.value("--allow-driver", [&](const std::string& v) {
    if (v.empty() || v[0] != '/')
      throw UsageError("--allow-driver expects an absolute path glob such as /opt/cuda-*/bin/nvcc, got `" + v + "`");
    options.allowed_drivers.push_back(v);
  });
  p.flag("--test-commands", options.test_commands);
  p.flag("--stdio", [] {});
  if (!p.parse(args)) {
    print_serve_help();
    return kExitOk;
  }
  if (!p.positionals().empty())
    throw UsageError("serve takes no file arguments (got `" + p.positionals().front() + "`)");
  options.docs_dir = find_docs_dir();
  std::signal(SIGPIPE, SIG_IGN);  // a vanished client is a write error, not a crash

  asio::io_context io;
  std::unique_ptr<Transport> transport;
  if (listen) {
    asio::ip::tcp::acceptor acceptor(io);
    asio::ip::tcp::endpoint endpoint(listen->address, listen->port);
    boost::system::error_code ec;
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(1, ec);
    if (ec) throw UsageError("cannot listen on " + endpoint.address().to_string() + ":" +
                             std::to_string(endpoint.port()) + ": " + ec.message());
    auto bound = acceptor.local_endpoint();
    std::string shown = bound.address().is_v6() ? "[" + bound.address().to_string() + "]" : bound.address().to_string();
    std::fprintf(stderr, "warplens: listening on %s:%u\n", shown.c_str(), static_cast<unsigned>(bound.port()));
    std::fflush(stderr);
    asio::ip::tcp::socket socket(io);
    acceptor.accept(socket, ec);  // one client
    if (ec) {
      spdlog::error("accept failed: {}", ec.message());
      return kExitFailure;
    }
    spdlog::info("client connected from {}", socket.remote_endpoint(ec).address().to_string());
    acceptor.close();
    transport = Transport::socket(io, std::move(socket), max_message_bytes);
  } else {
    transport = Transport::stdio(io, max_message_bytes);
  }

  LanguageServer server(
      io, *transport,
      [](const SourceFile& file, const AnalysisOptions& o, std::stop_token stop) { return analyze(file, o, stop); },
      options);
  spdlog::info("warplens {} serving on {} (front end: {})", env.version, listen ? "TCP" : "stdio",
               frontend_available() ? "clang 19" : "none");

  int exit_code = kExitFailure;
  asio::steady_timer give_up(io);
  // Leave once the replies are written; a client that stops reading gets 2 s.
  auto finish = [&](int code) {
    exit_code = code;
    transport->stop_reading();
    transport->flush_then([&io] { io.stop(); });
    give_up.expires_after(std::chrono::seconds(2));
    give_up.async_wait([&io](const boost::system::error_code& ec) {
      if (!ec) io.stop();
    });
  };
  server.on_exit(finish);
  transport->start({[&server](const protocol::FrameEvent& e) { server.receive(e); },
                    [&](const std::string& why) {
                      if (server.exited()) return;
                      spdlog::info("connection closed ({}) without `exit`", why);
                      finish(server.exit_code());
                    }});
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    spdlog::info("signal {}: stopping", signal);
    exit_code = kExitFailure;
    io.stop();
  });

  // Handlers isolate their own failures (LanguageServer::receive, the
  // scheduler's readers); an exception that still leaves a handler ends
  // that handler, not the server: Asio lets run() be called again.
  for (;;) {
    try {
      io.run();
      break;
    } catch (const std::exception& e) {
      spdlog::error("internal error on the event loop: {}; serving on", e.what());
    } catch (...) {
      spdlog::error("internal error on the event loop (unknown exception); serving on");
    }
  }
  if (!server.stop_workers(std::chrono::seconds(2))) {
    // An analysis or job ignores its stop_token: destructors would wait for it.
    spdlog::warn("an analysis or job did not stop in time; exiting without waiting for it");
    spdlog::shutdown();
    std::fflush(stdout);
    std::_Exit(exit_code);
  }
  return exit_code;
}

}  // namespace warplens::cli
