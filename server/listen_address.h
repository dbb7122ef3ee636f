// `--listen HOST:PORT` for the TCP transport. The server has no
// authentication, so only loopback addresses are accepted: anything that
// could be reached from another machine is refused with an explanation.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/ip/address.hpp>

namespace warplens::server {

struct ListenAddress {
  boost::asio::ip::address address;
  unsigned short port = 0;  // 0: the system picks a free port
};

// Accepts "127.0.0.1:9257", "[::1]:9257", "localhost:9257" (and any 127.x.y.z).
std::optional<ListenAddress> parse_listen_address(std::string_view text, std::string& error);

}  // namespace warplens::server
