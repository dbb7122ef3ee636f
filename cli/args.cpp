#include <charconv>

#include "cli/cli.h"

namespace warplens::cli {

std::optional<std::string> ArgReader::option(std::string_view long_name, std::string_view short_name) {
  if (done() || options_ended_) return std::nullopt;
  const std::string& a = args_[pos_];
  auto take_value = [&](std::string_view name) -> std::string {
    if (pos_ + 1 >= args_.size()) throw UsageError("option " + std::string(name) + " needs a value");
    pos_ += 2;
    return args_[pos_ - 1];
  };
  if (a == long_name) return take_value(long_name);
  if (a.size() > long_name.size() + 1 && a.compare(0, long_name.size(), long_name) == 0 && a[long_name.size()] == '=') {
    ++pos_;
    return a.substr(long_name.size() + 1);
  }
  if (!short_name.empty()) {
    if (a == short_name) return take_value(short_name);
    if (a.size() > short_name.size() && a.compare(0, short_name.size(), short_name) == 0) {
      ++pos_;
      return a.substr(short_name.size());
    }
  }
  return std::nullopt;
}

bool ArgReader::flag(std::string_view long_name, std::string_view short_name) {
  if (done() || options_ended_) return false;
  const std::string& a = args_[pos_];
  if (a == long_name || (!short_name.empty() && a == short_name)) {
    ++pos_;
    return true;
  }
  return false;
}

bool ArgReader::at_unknown_option() const {
  if (done() || options_ended_) return false;
  const std::string& a = args_[pos_];
  return a.size() > 1 && a[0] == '-' && a != "--";
}

std::string ArgReader::next() {
  if (!options_ended_ && args_[pos_] == "--") {
    options_ended_ = true;
    ++pos_;
    if (done()) return {};
  }
  return args_[pos_++];
}

long long parse_int(const std::string& option, const std::string& value, long long lo, long long hi) {
  long long n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < lo || n > hi)
    throw UsageError(option + " expects an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                     ", got `" + value + "`");
  return n;
}

}  // namespace warplens::cli
