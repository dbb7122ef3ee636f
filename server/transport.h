// The byte transport under the language server, on Boost.Asio: stdio
// (posix::stream_descriptor on fds 0 and 1) or one TCP connection.
//
// Reads run on the io_context's thread and hand complete frames (or
// framing errors) to the server. Writes go through one strand: send() may
// be called from any thread (jobs report progress from theirs); messages
// leave in the order they were sent, one write at a time.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>

#include "protocol/framing.h"
#include "server/client_connection.h"

namespace warplens::server {

class Transport : public Outbox {
 public:
  struct Callbacks {
    std::function<void(const protocol::FrameEvent&)> on_frame;
    std::function<void(const std::string& why)> on_closed;  // end of input or a read error; once
  };

  // Reads fd 0, writes fd 1 (both duplicated, so closing the transport
  // never closes the process's stdio).
  static std::unique_ptr<Transport> stdio(boost::asio::io_context& io, std::size_t max_message_bytes);
  // One accepted TCP connection.
  static std::unique_ptr<Transport> socket(boost::asio::io_context& io, boost::asio::ip::tcp::socket socket,
                                           std::size_t max_message_bytes);

  ~Transport() override;

  void start(Callbacks callbacks);
  void send(const json& message) override;  // thread-safe
  // Runs `done` on the io thread once everything sent so far is written (or
  // writing has failed).
  void flush_then(std::function<void()> done);

  struct Stream;  // the Asio objects, behind read/write functions

  // Stops handing frames to the server (after `exit`); writing goes on.
  void stop_reading() { reading_ = false; }

 private:
  Transport(boost::asio::io_context& io, std::unique_ptr<Stream> stream, std::size_t max_message_bytes);
  void read_next();
  void write_next();  // on the strand
  void connection_lost(const std::string& why);

  boost::asio::io_context& io_;
  std::unique_ptr<Stream> stream_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  protocol::FrameReader reader_;
  Callbacks callbacks_;
  std::vector<char> read_buffer_;
  bool reading_ = false;
  bool closed_notified_ = false;
  // Writer state, touched only on the strand.
  std::deque<std::string> queue_;
  bool writing_ = false;
  bool write_failed_ = false;
  std::function<void()> flush_waiter_;
};

}  // namespace warplens::server
