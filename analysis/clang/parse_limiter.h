// Watches every token the parser receives and stops the parse, cleanly,
// when the translation unit goes beyond AnalysisLimits: too many tokens (a
// macro bomb), an expression too long for the recursive walks that follow
// the parse, the AST too large, the parse thread's stack nearly used up (a
// nesting too deep for Clang's recursive descent, which would otherwise
// overflow it and take the process down), or a stop request (cancellation,
// the time limit) inside one huge declaration.
//
// Stopping is what Clang does itself on a fatal error (Parser::cutOffParsing):
// from then on every token is end-of-file, so the parser unwinds through its
// normal paths and nothing is left half-built. Diagnostics after the cut are
// suppressed. Internal to analysis/clang/.
#pragma once

#include <clang/Frontend/CompilerInstance.h>
#include <clang/Lex/Token.h>

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "analysis/analysis_limits.h"
#include "analysis/source_range.h"

namespace warplens::clang_frontend {

// The stack the front end runs on (a thread of its own): Clang's recursive
// descent takes ~5 KiB per nesting level of `- - - x` (clang -fsyntax-only
// itself dies at ~1,600 levels on 8 MiB). Reserved address space; only what
// is used is touched.
inline constexpr std::size_t kParseStackBytes = std::size_t{256} << 20;
// The parse stops, as too deeply nested, when this fraction of that stack
// is used (~25,000 levels); the rest is for what walks the finished AST.
inline constexpr double kParseStackFraction = 0.5;

class ParseLimiter {
 public:
  // `stack_top` is an address near the top of the parsing thread's stack and
  // `stack_bytes` its size (0: unknown, the stack is not watched).
  ParseLimiter(const AnalysisLimits& limits, std::stop_token stop, const char* stack_top, std::size_t stack_bytes);

  // Installs the token watcher on the instance's preprocessor.
  void attach(clang::CompilerInstance& ci);

  bool stopped() const { return stopped_; }
  bool over_limit() const { return !reason_.empty(); }
  // "too large to analyse: more than 10000000 preprocessor tokens (...)"
  const std::string& reason() const { return reason_; }
  // Where the parse was cut, when that is in `file` (0-based line).
  std::optional<int> line_in(const clang::SourceManager& sm, const std::string& file) const;
  std::uint64_t tokens() const { return tokens_; }

 private:
  void on_token(const clang::Token& token);
  void check_costly();
  void cut(const clang::Token& token, std::string reason);

  AnalysisLimits limits_;
  std::stop_token stop_;
  const char* stack_top_;
  std::size_t stack_limit_;
  clang::CompilerInstance* ci_ = nullptr;
  std::uint64_t tokens_ = 0;
  std::uint64_t run_ = 0;           // tokens of the current expression run
  std::uint64_t controls_ = 0;      // statement keywords of the current run: scopes nested without braces
  std::vector<char> brackets_;      // open ( [ { , innermost last
  bool stopped_ = false;
  std::string reason_;
  clang::SourceLocation cut_at_;
};

}  // namespace warplens::clang_frontend
