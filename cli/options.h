// Command-line options through CLI11 (issue 18). Every subcommand declares
// its options on an OptionParser and parses with it. CLI11 reads
// `--name VALUE`, `--name=VALUE`, `-n VALUE`, `-nVALUE` and `--` (the end
// of the options); this class turns what goes wrong into a UsageError
// worded as the commands always worded it:
//   check: unknown option `--x`    an option nobody declared
//   option --x needs a value       the last argument, without its value
//   (the value's own message)      thrown by the option's handler
// and each command prints it in its own format with its usage exit code.
// Handlers run once per occurrence, in command-line order (-DX -UX leaves
// X undefined; a repeated single option: the last one wins). The commands
// keep their own --help texts: -h/--help makes parse() return false.
//
// Also here: the number rules the options share (finite, in range, whole
// where a count is meant), so that `--budget nan` or `--runs 1e30` is a
// usage error everywhere.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>  // CLI11 2.1's ConfigFwd.hpp uses the fixed-width types without including it
#include <cstdlib>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cli.h"

namespace warplens::cli {

class OptionParser {
 public:
  // `command` prefixes the messages about unknown options ("check: unknown
  // option `--x`"); empty for commands whose messages already name them.
  explicit OptionParser(std::string command = {}) : command_(std::move(command)) {
    app_.set_help_flag("-h,--help");
    app_.allow_extras();  // unknown options are collected, then reported in our words
    positional_option_ = app_.add_option("arguments", positionals_)->expected(0, -1);
  }

  // Leaves what is not declared here (other options, positional arguments)
  // to someone else: parse() then collects it, in order, in rest().
  OptionParser& pass_through() {
    app_.set_help_flag();
    app_.remove_option(positional_option_);
    pass_through_ = true;
    return *this;
  }

  // An option with a value; `names` as CLI11 spells them ("-p,--compile-commands-dir").
  OptionParser& value(const std::string& names, std::function<void(const std::string&)> on_value) {
    app_.add_option_function<std::string>(names, std::move(on_value))->trigger_on_parse();
    return *this;
  }
  OptionParser& value(const std::string& names, std::string& target) {
    return value(names, [&target](const std::string& v) { target = v; });
  }
  // Repeatable: every occurrence, in order.
  OptionParser& values(const std::string& names, std::vector<std::string>& target) {
    return value(names, [&target](const std::string& v) { target.push_back(v); });
  }
  OptionParser& flag(const std::string& names, std::function<void()> on_flag) {
    app_.add_flag_callback(names, std::move(on_flag))->trigger_on_parse();
    return *this;
  }
  OptionParser& flag(const std::string& names, bool& target, bool set_to = true) {
    return flag(names, [&target, set_to] { target = set_to; });
  }
  // `-name=VALUE` read as `--name=VALUE` (compilers' `-std=c++17`; CLI11
  // would read a single dash as the short option -s).
  OptionParser& single_dash_long(const std::string& name) {
    single_dash_long_.push_back(name);
    return *this;
  }

  // Parses `args`; false when -h or --help was given. Throws UsageError.
  // The positional arguments (everything that is not an option, and all
  // after `--`) are in positionals() afterwards, in order.
  bool parse(std::vector<std::string> args) {
    for (auto& a : args) {
      if (a == "--") break;
      for (const auto& name : single_dash_long_)
        if (a.rfind("-" + name + "=", 0) == 0) a.insert(0, "-");
      // CLI11 reads `--name=` as `--name` and takes the next argument as the value.
      if (a.size() > 3 && a.rfind("--", 0) == 0 && a.find('=') == a.size() - 1)
        if (const CLI::Option* o = app_.get_option_no_throw(a.substr(0, a.size() - 1)); o && o->get_items_expected_min() > 0)
          throw UsageError("option " + a.substr(0, a.size() - 1) + " needs a value (got `" + a + "`)");
    }
    const std::string last = args.empty() ? std::string() : args.back();
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 reads from the back
    try {
      app_.parse(reversed);
    } catch (const CLI::CallForHelp&) {
      return false;
    } catch (const CLI::ArgumentMismatch&) {
      // Only the last argument can run out of values.
      throw UsageError("option " + last + " needs a value");
    } catch (const CLI::ConversionError& e) {
      // Every value is read as a string: only a flag given a value it cannot
      // take gets here ("Could not convert: --json = maybe").
      static const std::regex flag_value(R"(Could not convert: (\S+) = (.*))");
      std::cmatch m;
      if (std::regex_match(e.what(), m, flag_value))
        throw UsageError(prefixed("option " + m[1].str() + " takes no value, got `" + m[2].str() + "`"));
      throw UsageError(prefixed(e.what()));
    } catch (const CLI::ParseError& e) {
      throw UsageError(prefixed(e.what()));
    }
    if (pass_through_) {
      rest_ = app_.remaining();
      return true;
    }
    for (const auto& extra : app_.remaining())  // CLI11 lists the `--` it read there too
      if (extra != "--") throw UsageError(prefixed("unknown option `" + extra + "`"));
    return true;
  }
  const std::vector<std::string>& positionals() const { return positionals_; }
  const std::vector<std::string>& rest() const { return rest_; }

 private:
  std::string prefixed(const std::string& message) const {
    return command_.empty() ? message : command_ + ": " + message;
  }

  std::string command_;
  CLI::App app_;
  std::vector<std::string> positionals_;
  CLI::Option* positional_option_ = nullptr;
  bool pass_through_ = false;
  std::vector<std::string> rest_;
  std::vector<std::string> single_dash_long_;
};

// `args` up to the first `--`, and what follows it (a program and its
// arguments for `profile` and `capture`; nothing there is an option).
inline std::pair<std::vector<std::string>, std::vector<std::string>> split_at_double_dash(
    const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i] == "--")
      return {{args.begin(), args.begin() + static_cast<std::ptrdiff_t>(i)},
              {args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end()}};
  return {args, {}};
}

// An integer from lo to hi, nothing else (no sign games, no trailing text).
inline long long parse_int(const std::string& option, const std::string& value, long long lo, long long hi) {
  long long n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < lo || n > hi)
    throw UsageError(option + " expects an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                     ", got `" + value + "`");
  return n;
}

// A finite decimal number (strtod alone also takes "nan", "inf", "0x1p4"
// and leading blanks), or nothing.
inline std::optional<double> finite_number(const std::string& value) {
  if (value.empty() || value.find_first_not_of("0123456789+-.eE") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(value.c_str(), &end);
  if (!end || *end || !std::isfinite(d)) return std::nullopt;
  return d;
}

}  // namespace warplens::cli
