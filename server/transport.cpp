#include "server/transport.h"

#include <unistd.h>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

namespace warplens::server {

namespace asio = boost::asio;
using boost::system::error_code;

// Reading and writing, whatever the stream is. Asio accepts regular files
// and /dev/null as descriptors too (epoll refuses them, so Asio performs
// those operations directly), so `warplens < session.txt` works.
struct Transport::Stream {
  std::function<void(asio::mutable_buffer, std::function<void(const error_code&, std::size_t)>)> read_some;
  std::function<void(asio::const_buffer, std::function<void(const error_code&)>)> write_all;  // handler on the strand
  std::function<void()> close;
};

namespace {

// Read from `in`, write to `out` (they may be the same socket); write
// completions run on `strand`.
template <class In, class Out, class Strand>
void wire(Transport::Stream& stream, std::shared_ptr<In> in, std::shared_ptr<Out> out, Strand& strand) {
  stream.read_some = [in](asio::mutable_buffer b, std::function<void(const error_code&, std::size_t)> h) {
    in->async_read_some(b, std::move(h));
  };
  stream.write_all = [out, &strand](asio::const_buffer b, std::function<void(const error_code&)> h) {
    asio::async_write(*out, b, asio::bind_executor(strand, [h = std::move(h)](const error_code& ec, std::size_t) {
                        h(ec);
                      }));
  };
}

}  // namespace

std::unique_ptr<Transport> Transport::stdio(asio::io_context& io, std::size_t max_message_bytes) {
  auto in = std::make_shared<asio::posix::stream_descriptor>(io, ::dup(STDIN_FILENO));
  auto out = std::make_shared<asio::posix::stream_descriptor>(io, ::dup(STDOUT_FILENO));
  std::unique_ptr<Transport> t(new Transport(io, std::make_unique<Stream>(), max_message_bytes));
  wire(*t->stream_, in, out, t->strand_);
  t->stream_->close = [in, out] {
    error_code ignored;
    in->close(ignored);
    out->close(ignored);
  };
  return t;
}

std::unique_ptr<Transport> Transport::socket(asio::io_context& io, asio::ip::tcp::socket socket,
                                             std::size_t max_message_bytes) {
  auto s = std::make_shared<asio::ip::tcp::socket>(std::move(socket));
  error_code ignored;
  s->set_option(asio::ip::tcp::no_delay(true), ignored);
  std::unique_ptr<Transport> t(new Transport(io, std::make_unique<Stream>(), max_message_bytes));
  wire(*t->stream_, s, s, t->strand_);
  t->stream_->close = [s] {
    error_code ignored2;
    s->shutdown(asio::ip::tcp::socket::shutdown_both, ignored2);
    s->close(ignored2);
  };
  return t;
}

Transport::Transport(asio::io_context& io, std::unique_ptr<Stream> stream, std::size_t max_message_bytes)
    : io_(io), stream_(std::move(stream)), strand_(asio::make_strand(io)), reader_(max_message_bytes),
      read_buffer_(64 * 1024) {}

Transport::~Transport() {
  if (stream_ && stream_->close) stream_->close();
}

void Transport::start(Callbacks callbacks) {
  callbacks_ = std::move(callbacks);
  reading_ = true;
  read_next();
}

void Transport::read_next() {
  stream_->read_some(asio::buffer(read_buffer_), [this](const error_code& ec, std::size_t n) {
    if (!reading_) return;
    if (ec) {
      reading_ = false;
      if (!closed_notified_ && callbacks_.on_closed) {
        closed_notified_ = true;
        callbacks_.on_closed(ec == asio::error::eof ? std::string("end of input") : ec.message());
      }
      return;
    }
    std::vector<protocol::FrameEvent> events;
    reader_.feed(std::string_view(read_buffer_.data(), n), events);
    for (const auto& e : events) {
      if (!reading_) return;  // a frame (exit) closed the transport
      callbacks_.on_frame(e);
    }
    if (reading_) read_next();
  });
}

void Transport::send(const json& message) {
  std::string framed = protocol::frame_json(message);
  asio::post(strand_, [this, framed = std::move(framed)]() mutable {
    if (write_failed_) return;
    queue_.push_back(std::move(framed));
    if (!writing_) write_next();
  });
}

void Transport::write_next() {
  writing_ = true;
  stream_->write_all(asio::buffer(queue_.front()), [this](const error_code& ec) {
    queue_.pop_front();
    writing_ = false;
    if (ec) {
      spdlog::error("writing to the client failed: {}", ec.message());
      write_failed_ = true;
      queue_.clear();
    }
    if (!queue_.empty()) return write_next();
    if (flush_waiter_) asio::post(io_, std::exchange(flush_waiter_, nullptr));
  });
}

void Transport::flush_then(std::function<void()> done) {
  asio::post(strand_, [this, done = std::move(done)]() mutable {
    if (!writing_ && queue_.empty())
      asio::post(io_, std::move(done));
    else
      flush_waiter_ = std::move(done);
  });
}


}  // namespace warplens::server
