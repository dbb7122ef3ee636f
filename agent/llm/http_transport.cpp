#include "agent/llm/http_transport.h"

// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <cctype>
#include <exception>

namespace warplens::agent::llm {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

const std::string* HttpResponse::header(std::string_view name) const {
  auto eq = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  for (const auto& h : headers)
    if (eq(h.name, name)) return &h.value;
  return nullptr;
}

namespace {

enum class Stage { Resolve, Connect, Handshake, Write, Read };

bool is_ip_address(const std::string& host) {
  error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

std::string openssl_error_text() {
  unsigned long e = ERR_get_error();
  if (!e) return {};
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

// Sets up the client TLS context: verification against the system CA store,
// plus the user's CA file. Returns an error message, empty on success.
std::string configure_tls(ssl::context& ctx, const TransportOptions& options) {
  ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                  ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  if (!options.verify_tls) {
    ctx.set_verify_mode(ssl::verify_none);
    return {};
  }
  ctx.set_verify_mode(ssl::verify_peer);
  error_code ec;
  ctx.set_default_verify_paths(ec);
  if (ec) return "could not load the system CA certificates: " + ec.message();
  if (!options.ca_file.empty()) {
    ctx.load_verify_file(options.ca_file, ec);
    if (ec) return "could not load the CA file '" + options.ca_file + "': " + ec.message();
  }
  return {};
}

// Makes OpenSSL check that the certificate names the host we asked for
// (DNS name or IP address SAN), and sends SNI for names.
std::string configure_peer_name(SSL* ssl_handle, const std::string& host, bool verify) {
  if (!is_ip_address(host) && !SSL_set_tlsext_host_name(ssl_handle, host.c_str()))
    return "could not set the TLS server name: " + openssl_error_text();
  if (!verify) return {};
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl_handle);
  const int ok = is_ip_address(host) ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
                                     : X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
  if (!ok) return "could not set the expected TLS host name: " + openssl_error_text();
  return {};
}

std::string describe_stage_failure(Stage stage, const error_code& ec, const std::string& where) {
  switch (stage) {
    case Stage::Resolve: return "could not resolve " + where + ": " + ec.message();
    case Stage::Connect: return "could not connect to " + where + ": " + ec.message();
    case Stage::Handshake: return "TLS handshake with " + where + " failed: " + ec.message();
    case Stage::Write: return "sending the request to " + where + " failed: " + ec.message();
    case Stage::Read: return "reading the response from " + where + " failed: " + ec.message();
  }
  return ec.message();
}

}  // namespace

HttpOutcome http_post(const HttpRequest& request, const TransportOptions& options, std::stop_token stop) {
  HttpOutcome out;
  const EndpointUrl& url = request.endpoint;
  const std::string where = url.host_header() + (url.tls ? " (https)" : " (http)");
  if (stop.stop_requested()) {
    out.failure = TransportFailure::Cancelled;
    out.message = "cancelled";
    return out;
  }

  asio::io_context ioc;
  std::optional<ssl::context> tls_context;
  if (url.tls) {
    tls_context.emplace(ssl::context::tls_client);
    if (std::string err = configure_tls(*tls_context, options); !err.empty()) {
      out.failure = TransportFailure::Tls;
      out.message = err;
      return out;
    }
  }

  tcp::resolver resolver(ioc);
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  if (url.tls) secure.emplace(ioc, *tls_context);
  else plain.emplace(ioc);
  beast::tcp_stream& lowest = secure ? beast::get_lowest_layer(*secure) : *plain;

  bool cancelled = false;
  bool timed_out = false;
  // Closing the socket makes whatever operation is pending complete with
  // operation_aborted; the coroutine then checks why.
  auto abort_exchange = [&] {
    resolver.cancel();
    error_code ignored;
    lowest.socket().close(ignored);
  };
  asio::steady_timer deadline(ioc);
  deadline.expires_after(options.timeout);
  deadline.async_wait([&](const error_code& ec) {
    if (ec) return;  // cancelled: the exchange finished first
    timed_out = true;
    abort_exchange();
  });

  Stage stage = Stage::Resolve;
  error_code failure;
  std::exception_ptr unexpected;
  http::response_parser<http::string_body> parser;
  parser.body_limit(options.max_response_bytes);
  bool have_response = false;
  std::string tls_setup_error;

  http::request<http::string_body> req{http::verb::post, request.target, 11};
  req.set(http::field::host, url.host_header());
  req.set(http::field::user_agent, "warplens");
  req.set(http::field::content_type, "application/json");
  req.set(http::field::accept, "application/json");
  for (const auto& h : request.headers) req.set(h.name, h.value);
  req.body() = request.body;
  req.prepare_payload();

  auto with = [](error_code& ec) { return asio::redirect_error(asio::use_awaitable, ec); };
  // After every step: stop on an error, or when the deadline or a stop closed the socket.
  auto failed = [&](const error_code& ec) {
    failure = ec;
    return ec || cancelled || timed_out;
  };
  // Write the request and read the response, over TCP or TLS alike.
  auto send_and_receive = [&](auto& stream) -> asio::awaitable<void> {
    error_code ec;
    stage = Stage::Write;
    co_await http::async_write(stream, req, with(ec));
    if (failed(ec)) co_return;
    stage = Stage::Read;
    beast::flat_buffer buffer;
    co_await http::async_read(stream, buffer, parser, with(ec));
    if (failed(ec)) co_return;
    have_response = true;
  };
  auto exchange = [&]() -> asio::awaitable<void> {
    error_code ec;
    stage = Stage::Resolve;
    auto endpoints = co_await resolver.async_resolve(url.host, std::to_string(url.port), with(ec));
    if (failed(ec)) co_return;
    stage = Stage::Connect;
    co_await lowest.async_connect(endpoints, with(ec));
    if (failed(ec)) co_return;
    if (!secure) {
      co_await send_and_receive(*plain);
      co_return;
    }
    tls_setup_error = configure_peer_name(secure->native_handle(), url.host, options.verify_tls);
    if (!tls_setup_error.empty()) co_return;
    stage = Stage::Handshake;
    co_await secure->async_handshake(ssl::stream_base::client, with(ec));
    if (failed(ec)) co_return;
    co_await send_and_receive(*secure);
  };

  asio::co_spawn(ioc, exchange(), [&](std::exception_ptr e) {
    unexpected = e;
    deadline.cancel();
    error_code ignored;
    lowest.socket().close(ignored);  // one request per connection; no TLS close_notify dance
  });
  {
    // Declared after ioc so it is unregistered before ioc is destroyed; a
    // stop that comes after run() returned posts into a queue nobody runs.
    std::stop_callback on_stop(stop, [&] {
      asio::post(ioc, [&] {
        cancelled = true;
        abort_exchange();
      });
    });
    ioc.run();
  }

  if (unexpected) {
    try {
      std::rethrow_exception(unexpected);
    } catch (const std::exception& e) {
      out.failure = TransportFailure::Io;
      out.message = std::string("HTTP exchange with ") + where + " failed: " + e.what();
      return out;
    }
  }
  if (cancelled) {
    out.failure = TransportFailure::Cancelled;
    out.message = "cancelled";
    return out;
  }
  if (timed_out) {
    out.failure = TransportFailure::Timeout;
    out.message = "no complete answer from " + where + " within " +
                  std::to_string(std::chrono::duration_cast<std::chrono::seconds>(options.timeout).count()) + " s";
    return out;
  }
  if (!tls_setup_error.empty()) {
    out.failure = TransportFailure::Tls;
    out.message = tls_setup_error;
    return out;
  }
  if (!have_response) {
    out.message = describe_stage_failure(stage, failure, where);
    switch (stage) {
      case Stage::Resolve: out.failure = TransportFailure::Resolve; break;
      case Stage::Connect:
        out.failure = failure == asio::error::connection_refused ? TransportFailure::Refused : TransportFailure::Connect;
        if (out.failure == TransportFailure::Refused)
          out.message = "connection refused by " + where + ": is the server running and listening on port " +
                        std::to_string(url.port) + "?";
        break;
      case Stage::Handshake: {
        out.failure = TransportFailure::Tls;
        const long verify = SSL_get_verify_result(secure->native_handle());
        if (verify != X509_V_OK) {
          out.message = "TLS certificate of " + where + " was not accepted: " +
                        X509_verify_cert_error_string(verify) +
                        ". If the server uses a self-signed or private CA certificate, give that CA as the CA file "
                        "(ca_file, or WARPLENS_LLM_CA_FILE).";
        }
        break;
      }
      case Stage::Write:
      case Stage::Read:
        out.failure = failure == http::error::body_limit ? TransportFailure::TooLarge : TransportFailure::Io;
        if (failure == http::error::body_limit)
          out.message = "the response from " + where + " is larger than " +
                        std::to_string(options.max_response_bytes >> 20) + " MiB";
        else if (failure == http::error::end_of_stream || failure == asio::error::eof)
          out.message = "the server at " + where + " closed the connection without a complete answer";
        break;
    }
    return out;
  }

  auto& res = parser.get();
  HttpResponse response;
  response.status = static_cast<int>(res.result_int());
  response.reason = std::string(res.reason());
  for (const auto& field : res) response.headers.push_back({std::string(field.name_string()), std::string(field.value())});
  response.body = std::move(res.body());
  out.response = std::move(response);
  return out;
}

}  // namespace warplens::agent::llm
