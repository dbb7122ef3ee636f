#include "server/listen_address.h"

#include <charconv>

namespace warplens::server {

std::optional<ListenAddress> parse_listen_address(std::string_view text, std::string& error) {
  std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == text.size()) {
    error = "expected HOST:PORT, e.g. 127.0.0.1:9257, got `" + std::string(text) + "`";
    return std::nullopt;
  }
  std::string_view host = text.substr(0, colon);
  std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535) {
    error = "invalid port `" + std::string(port_text) + "` (expected 0 to 65535)";
    return std::nullopt;
  }
  ListenAddress result;
  result.port = static_cast<unsigned short>(port);
  if (host == "localhost") {
    result.address = boost::asio::ip::address_v4::loopback();
    return result;
  }
  boost::system::error_code parse_error;
  result.address = boost::asio::ip::make_address(std::string(host), parse_error);
  if (parse_error) {
    error = "invalid address `" + std::string(host) + "`: use 127.0.0.1, ::1 or localhost";
    return std::nullopt;
  }
  if (!result.address.is_loopback()) {
    error = "refusing to listen on " + result.address.to_string() +
            ": it is not a loopback address, and the server has no authentication, so anyone who can reach "
            "it could read your sources. Use 127.0.0.1, ::1 or localhost (and an SSH tunnel for remote editors).";
    return std::nullopt;
  }
  return result;
}

}  // namespace warplens::server
