// TEST DOUBLE: see scripted_llm_endpoint.h.
#include "tests/support/scripted_llm_endpoint.h"

// Boost 1.74's asio headers use std::exchange without including <utility>.
#include <utility>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

namespace warplens::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using nlohmann::json;

// ---------------------------------------------------------------- certificate

TestCertificate make_self_signed_certificate(const std::string& directory, const std::string& subject_alt_names) {
  std::filesystem::create_directories(directory);
  auto check = [](bool ok, const char* what) {
    if (!ok) throw std::runtime_error(std::string("make_self_signed_certificate: ") + what);
  };
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> kctx(EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nullptr),
                                                                   EVP_PKEY_CTX_free);
  check(kctx && EVP_PKEY_keygen_init(kctx.get()) > 0, "keygen init");
  check(EVP_PKEY_CTX_set_ec_paramgen_curve_nid(kctx.get(), NID_X9_62_prime256v1) > 0, "curve");
  EVP_PKEY* raw_key = nullptr;
  check(EVP_PKEY_keygen(kctx.get(), &raw_key) > 0, "keygen");
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(raw_key, EVP_PKEY_free);

  std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
  check(cert != nullptr, "X509_new");
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), static_cast<long>(std::time(nullptr) & 0x7fffffff));
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 7 * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("warplens test double"), -1,
                             -1, 0);
  X509_set_issuer_name(cert.get(), name);
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, cert.get(), cert.get(), nullptr, nullptr, 0);
  for (auto [nid, value] : {std::pair<int, std::string>{NID_subject_alt_name, subject_alt_names},
                            {NID_basic_constraints, "critical,CA:TRUE"},
                            {NID_subject_key_identifier, "hash"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value.c_str());
    check(ext != nullptr, "extension");
    X509_add_ext(cert.get(), ext, -1);
    X509_EXTENSION_free(ext);
  }
  check(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0, "sign");

  TestCertificate out{directory + "/test-double-cert.pem", directory + "/test-double-key.pem"};
  auto write = [&](const std::string& path, auto writer) {
    FILE* f = std::fopen(path.c_str(), "w");
    check(f != nullptr, "open output file");
    const bool ok = writer(f);
    std::fclose(f);
    check(ok, "write PEM");
  };
  write(out.cert_file, [&](FILE* f) { return PEM_write_X509(f, cert.get()) == 1; });
  write(out.key_file,
        [&](FILE* f) { return PEM_write_PrivateKey(f, key.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1; });
  return out;
}

// ---------------------------------------------------------------- script

std::vector<ScriptedExchange> ScriptedLlmEndpoint::load_script(const std::string& path,
                                                               const std::map<std::string, std::string>& variables) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read fixture " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  for (const auto& [k, v] : variables) {
    const std::string token = "${" + k + "}";
    const std::string escaped = json(v).dump().substr(1, json(v).dump().size() - 2);  // JSON-string-safe
    for (std::size_t at; (at = text.find(token)) != std::string::npos;) text.replace(at, token.size(), escaped);
  }
  json j = json::parse(text);
  std::vector<ScriptedExchange> out;
  for (const json& e : j.at("exchanges"))
    out.push_back({e.value("expect", json::object()), e.value("response", json::object())});
  return out;
}

// ---------------------------------------------------------------- server

namespace {

bool is_blank(const json& v) {
  return v.is_null() || (v.is_string() && v.get<std::string>().empty());
}

bool same_assistant_message(const json& sent, const json& expected) {
  if (sent.value("role", "") != "assistant") return false;
  const json c1 = sent.contains("content") ? sent["content"] : json(nullptr);
  const json c2 = expected.contains("content") ? expected["content"] : json(nullptr);
  if (!(c1 == c2 || (is_blank(c1) && is_blank(c2)))) return false;
  const json t1 = sent.value("tool_calls", json::array());
  const json t2 = expected.value("tool_calls", json::array());
  if (t1.size() != t2.size()) return false;
  for (std::size_t i = 0; i < t1.size(); ++i) {
    if (t1[i].value("id", "") != t2[i].value("id", "")) return false;
    if (t1[i]["function"].value("name", "") != t2[i]["function"].value("name", "")) return false;
    if (t1[i]["function"].value("arguments", "") != t2[i]["function"].value("arguments", "")) return false;
  }
  return true;
}

std::string text_of(const json& message) {
  if (!message.contains("content")) return {};
  const json& c = message["content"];
  return c.is_string() ? c.get<std::string>() : c.dump();
}

// The OpenAI rule: every tool call is answered by exactly one tool message
// before anything else follows it. Returns the violations.
std::vector<std::string> tool_answer_violations(const json& messages) {
  std::vector<std::string> out;
  std::set<std::string> open;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    const std::string role = m.value("role", "");
    if (role == "tool") {
      const std::string id = m.value("tool_call_id", "");
      if (!open.erase(id)) out.push_back("message " + std::to_string(i) + ": tool result for '" + id + "' answers no open tool call");
      continue;
    }
    if (!open.empty())
      out.push_back("message " + std::to_string(i) + " (" + role + ") comes before tool call(s) " +
                    json(std::vector<std::string>(open.begin(), open.end())).dump() + " were answered");
    open.clear();
    if (role == "assistant")
      for (const json& c : m.value("tool_calls", json::array())) open.insert(c.value("id", ""));
  }
  if (!open.empty())
    out.push_back("the request leaves tool call(s) " + json(std::vector<std::string>(open.begin(), open.end())).dump() +
                  " unanswered");
  return out;
}

json expand_reply(const json& reply, const std::string& model, std::size_t n) {
  json message{{"role", "assistant"}};
  message["content"] = reply.contains("content") ? reply["content"] : json(nullptr);
  json calls = json::array();
  for (const json& c : reply.value("tool_calls", json::array())) {
    const json& a = c.contains("arguments") ? c["arguments"] : json::object();
    calls.push_back({{"id", c.at("id")},
                     {"type", "function"},
                     {"function", {{"name", c.at("name")}, {"arguments", a.is_string() ? a.get<std::string>() : a.dump()}}}});
  }
  if (!calls.empty()) message["tool_calls"] = calls;
  const std::string finish = reply.value("finish_reason", calls.empty() ? "stop" : "tool_calls");
  return json{{"id", "chatcmpl-scripted-" + std::to_string(n)},
              {"object", "chat.completion"},
              {"created", 1700000000},
              {"model", model},
              {"choices", json::array({{{"index", 0}, {"message", message}, {"finish_reason", finish}}})},
              {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 20}, {"total_tokens", 120}}}};
}

// True when the peer closed its side (poll, without consuming data).
bool peer_closed(int fd) {
  pollfd p{fd, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return true;
  char c;
  return ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

}  // namespace

struct ScriptedLlmEndpoint::Listener {
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::unique_ptr<ssl::context> tls;
};

void ScriptedLlmEndpoint::listen() {
  listener_ = std::make_unique<Listener>();
  if (tls_) {
    listener_->tls = std::make_unique<ssl::context>(ssl::context::tls_server);
    listener_->tls->use_certificate_chain_file(certificate_.cert_file);
    listener_->tls->use_private_key_file(certificate_.key_file, ssl::context::pem);
  }
  tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
  listener_->acceptor.open(ep.protocol());
  listener_->acceptor.bind(ep);
  listener_->acceptor.listen();
  // Polled, so the destructor can stop the thread without closing the
  // acceptor under a blocked accept().
  listener_->acceptor.non_blocking(true);
  port_ = listener_->acceptor.local_endpoint().port();
  thread_ = std::thread([this] { serve(); });
}

ScriptedLlmEndpoint::ScriptedLlmEndpoint(std::vector<ScriptedExchange> script) : script_(std::move(script)) { listen(); }

ScriptedLlmEndpoint::ScriptedLlmEndpoint(std::vector<ScriptedExchange> script, TestCertificate tls)
    : script_(std::move(script)), tls_(true), certificate_(std::move(tls)) {
  listen();
}

ScriptedLlmEndpoint::~ScriptedLlmEndpoint() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

std::string ScriptedLlmEndpoint::base_url(const std::string& prefix) const {
  return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_) + prefix;
}

std::vector<std::string> ScriptedLlmEndpoint::failures() const {
  std::lock_guard lock(mutex_);
  return failures_;
}

std::vector<ReceivedRequest> ScriptedLlmEndpoint::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::size_t ScriptedLlmEndpoint::unused_exchanges() const {
  std::lock_guard lock(mutex_);
  return script_.size() - next_;
}

void ScriptedLlmEndpoint::fail(const std::string& what) {
  failures_.push_back("request " + std::to_string(requests_.size()) + ": " + what);
}

void ScriptedLlmEndpoint::serve() {
  Listener* listener = listener_.get();
  while (!stopping_) {
    boost::system::error_code ec;
    tcp::socket socket(listener->ioc);
    listener->acceptor.accept(socket, ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    if (ec) continue;
    socket.non_blocking(false);
    // A client that connects and sends nothing must not wedge the double.
    timeval tv{5, 0};
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    const int fd = socket.native_handle();
    try {
      serve_connection(std::move(socket), fd);
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      fail(std::string("the test double threw (bad fixture?): ") + e.what());
    }
  }
}

template <class Socket>
void ScriptedLlmEndpoint::serve_connection(Socket socket, int fd) {
  {
    boost::system::error_code ec;
    if (tls_) {
      ssl::stream<tcp::socket> stream(std::move(socket), *listener_->tls);
      stream.handshake(ssl::stream_base::server, ec);
      if (ec) {
        ++failed_handshakes_;
        return;
      }
      handle(stream, fd);
    } else {
      handle(socket, fd);
    }
  }
}

template <class Stream>
void ScriptedLlmEndpoint::handle(Stream& stream, int fd) {
  beast::flat_buffer buffer;
  http::request<http::string_body> req;
  boost::system::error_code ec;
  http::read(stream, buffer, req, ec);
  if (ec) return;  // the client went away (e.g. cancelled before sending)

  ReceivedRequest r;
  r.method = std::string(req.method_string());
  r.target = std::string(req.target());
  for (const auto& f : req) {
    std::string n(f.name_string());
    for (auto& ch : n) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    r.headers[n] = std::string(f.value());
  }
  r.body = req.body();
  r.json = json::parse(r.body, nullptr, false);
  if (r.json.is_discarded()) r.json = nullptr;

  json response;
  std::string model;
  std::size_t number = 0;
  {
    std::lock_guard lock(mutex_);
    requests_.push_back(r);
    number = requests_.size();
    const ScriptedExchange* e = check(r);
    response = e ? e->response : json{{"status", 500}, {"body", {{"error", {{"message", "scripted endpoint: no more exchanges in the script"}}}}}};
    if (r.json.is_object()) model = r.json.value("model", "");
  }

  if (const int delay = response.value("delay_ms", 0); delay > 0) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(delay);
    while (std::chrono::steady_clock::now() < until) {
      if (stopping_) return;
      if (peer_closed(fd)) {
        client_hung_up_ = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  if (response.value("hang_up", false)) return;

  http::response<http::string_body> res;
  res.version(11);
  res.result(static_cast<unsigned>(response.value("status", 200)));
  res.set(http::field::connection, "close");
  bool content_type_set = false;
  const json headers = response.value("headers", json::object());  // items() must not outlive it
  for (const auto& [name, value] : headers.items()) {
    res.set(name, value.template get<std::string>());
    if (name == "Content-Type" || name == "content-type") content_type_set = true;
  }
  json reply_message = nullptr;
  if (response.contains("raw_body")) {
    res.body() = response["raw_body"].get<std::string>();
  } else if (response.contains("reply")) {
    json body = expand_reply(response["reply"], model, number);
    reply_message = body["choices"][0]["message"];
    res.body() = body.dump();
  } else if (response.contains("body")) {
    const json& body = response["body"];
    if (body.contains("choices") && body["choices"].is_array() && !body["choices"].empty())
      reply_message = body["choices"][0].value("message", json(nullptr));
    res.body() = body.dump();
  }
  if (!content_type_set) res.set(http::field::content_type, "application/json");
  if (response.value("chunked", false)) res.chunked(true);  // Transfer-Encoding: chunked
  else res.prepare_payload();
  {
    std::lock_guard lock(mutex_);
    const bool ok = res.result_int() >= 200 && res.result_int() < 300;
    // Without a usable reply (error status, or a body that is no completion)
    // the client's next request must repeat this one.
    previous_was_error_ = !ok || reply_message.is_null();
    previous_reply_ = previous_was_error_ ? json(nullptr) : reply_message;
    if (r.json.is_object() && r.json.contains("messages")) previous_messages_ = r.json["messages"];
  }
  http::write(stream, res, ec);
}

const ScriptedExchange* ScriptedLlmEndpoint::check(const ReceivedRequest& r) {
  const std::size_t n = requests_.size();  // this request's number (1-based)
  if (r.method != "POST") fail("method " + r.method + ", expected POST");
  if (r.target.size() < 17 || r.target.substr(r.target.size() - 17) != "/chat/completions")
    fail("target " + r.target + " does not end in /chat/completions");
  if (!r.json.is_object()) {
    fail("body is not a JSON object");
  } else {
    const json& j = r.json;
    if (!j.contains("model") || !j["model"].is_string()) fail("no \"model\" string");
    if (!j.contains("messages") || !j["messages"].is_array() || j["messages"].empty()) fail("no \"messages\" array");
    else {
      for (const auto& v : tool_answer_violations(j["messages"])) fail(v);
      // The conversation only grows; a retry repeats the request exactly.
      if (n > 1 && previous_messages_.is_array()) {
        const json& ms = j["messages"];
        const std::size_t k = previous_messages_.size();
        if (previous_was_error_) {
          if (ms != previous_messages_) fail("a repeat of a request that got no usable reply changed the messages");
        } else {
          bool prefix = ms.size() > k;
          for (std::size_t i = 0; prefix && i < k; ++i) prefix = ms[i] == previous_messages_[i];
          if (!prefix) fail("the messages do not start with the previous request's messages");
          else if (!previous_reply_.is_null() && !same_assistant_message(ms[k], previous_reply_))
            fail("message " + std::to_string(k) + " is not the assistant reply the endpoint sent: " + ms[k].dump().substr(0, 300));
        }
      }
    }
  }
  if (next_ >= script_.size()) {
    fail("unexpected request: the script has only " + std::to_string(script_.size()) + " exchange(s)");
    return nullptr;
  }
  const ScriptedExchange& e = script_[next_++];
  const json& x = e.expect;
  const json& j = r.json.is_object() ? r.json : json::object();
  const json messages = j.value("messages", json::array());
  if (x.contains("authorization")) {
    auto it = r.headers.find("authorization");
    if (x["authorization"].is_null()) {
      if (it != r.headers.end()) fail("an Authorization header was sent, expected none");
    } else if (it == r.headers.end() || it->second != x["authorization"].get<std::string>()) {
      fail("Authorization header missing or wrong");  // never print it: it holds the key
    }
  }
  if (x.contains("model") && j.value("model", "") != x["model"].get<std::string>())
    fail("model " + j.value("model", "") + ", expected " + x["model"].get<std::string>());
  if (x.contains("temperature")) {
    if (x["temperature"].is_null() ? j.contains("temperature") : j.value("temperature", -1.0) != x["temperature"].get<double>())
      fail("temperature " + (j.contains("temperature") ? j["temperature"].dump() : std::string("absent")) + ", expected " +
           x["temperature"].dump());
  }
  if (x.contains("tools")) {
    std::set<std::string> want, got;
    for (const auto& t : x["tools"]) want.insert(t.get<std::string>());
    for (const auto& t : j.value("tools", json::array())) got.insert(t["function"].value("name", ""));
    if (want != got) fail("tools offered " + json(got).dump() + ", expected " + json(want).dump());
    if (!got.empty() && j.value("tool_choice", "") != "auto") fail("tool_choice is not \"auto\"");
  }
  if (x.contains("roles")) {
    json roles = json::array();
    for (const auto& m : messages) roles.push_back(m.value("role", ""));
    if (roles != x["roles"]) fail("message roles " + roles.dump() + ", expected " + x["roles"].dump());
  }
  if (x.contains("message_count") && messages.size() != x["message_count"].get<std::size_t>())
    fail(std::to_string(messages.size()) + " messages, expected " + x["message_count"].dump());
  if (x.contains("last_message") && !messages.empty()) {
    const json& last = messages.back();
    const json& want = x["last_message"];
    if (want.contains("role") && last.value("role", "") != want["role"].get<std::string>())
      fail("last message role " + last.value("role", "") + ", expected " + want["role"].get<std::string>());
    for (const auto& s : want.value("contains", json::array()))
      if (text_of(last).find(s.get<std::string>()) == std::string::npos)
        fail("last message does not contain " + s.dump() + "; it is: " + text_of(last).substr(0, 400));
  }
  const json tool_results = x.value("tool_results", json::object());
  for (const auto& [id, texts] : tool_results.items()) {
    const json* found = nullptr;
    for (const auto& m : messages)
      if (m.value("role", "") == "tool" && m.value("tool_call_id", "") == id) found = &m;
    if (!found) {
      fail("no tool result for " + id);
      continue;
    }
    for (const auto& s : texts)
      if (text_of(*found).find(s.get<std::string>()) == std::string::npos)
        fail("tool result for " + id + " does not contain " + s.dump() + "; it is: " + text_of(*found).substr(0, 400));
  }
  for (const auto& s : x.value("any_message_contains", json::array())) {
    bool any = false;
    for (const auto& m : messages) any = any || text_of(m).find(s.get<std::string>()) != std::string::npos;
    if (!any) fail("no message contains " + s.dump());
  }
  for (const auto& s : x.value("body_not_contains", json::array()))
    if (r.body.find(s.get<std::string>()) != std::string::npos) fail("the body contains " + s.dump());
  return &e;
}

template void ScriptedLlmEndpoint::handle<tcp::socket>(tcp::socket&, int);
template void ScriptedLlmEndpoint::handle<ssl::stream<tcp::socket>>(ssl::stream<tcp::socket>&, int);

}  // namespace warplens::test
