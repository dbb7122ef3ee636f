#include "server/transport.h"

#include <poll.h>
#include <sys/stat.h>
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
  // Calls back once the peer can no longer read what we write (the read end
  // of our stdout pipe was closed), even while nothing is being written.
  // Empty when the stream cannot tell.
  std::function<void(std::function<void()>)> watch_output_closed;
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

// Waits for the error condition on our stdout; the pending wait owns it, so
// it lives exactly as long as it is armed (closing the descriptor cancels it).
struct OutputWatch : std::enable_shared_from_this<OutputWatch> {
  std::shared_ptr<asio::posix::stream_descriptor> out;
  std::function<void()> closed;
  void arm() {
    out->async_wait(asio::posix::descriptor_base::wait_error, [self = shared_from_this()](const error_code& ec) {
      if (ec) return;  // cancelled: the transport is closing
      pollfd p{self->out->native_handle(), POLLOUT, 0};
      if (::poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP | POLLNVAL))) return self->closed();
      self->arm();  // something else (out-of-band data): keep watching
    });
  }
};

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
  // A pipe or socket reports the reader's going away as an error condition
  // (EPOLLERR). A terminal or a regular file cannot go away.
  struct stat st {};
  if (::fstat(out->native_handle(), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
    t->stream_->watch_output_closed = [out](std::function<void()> closed) {
      auto watch = std::make_shared<OutputWatch>();
      watch->out = out;
      watch->closed = std::move(closed);
      watch->arm();
    };
  }
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
  if (stream_->watch_output_closed)
    stream_->watch_output_closed([this] { connection_lost("the client closed the server's output"); });
  read_next();
}

// The client cannot hear us any more: like end of input, the connection is over.
void Transport::connection_lost(const std::string& why) {
  asio::post(io_, [this, why] {
    reading_ = false;
    if (!closed_notified_ && callbacks_.on_closed) {
      closed_notified_ = true;
      callbacks_.on_closed(why);
    }
  });
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
      connection_lost("writing to the client failed: " + ec.message());
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
