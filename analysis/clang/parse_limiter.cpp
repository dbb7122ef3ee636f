#include "analysis/clang/parse_limiter.h"

#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Preprocessor.h>

#include "common/file_read.h"

namespace warplens::clang_frontend {

namespace {

constexpr std::uint64_t kCheckEvery = 1024;         // tokens between stop/stack checks
constexpr std::uint64_t kMemoryCheckEvery = 65536;  // tokens between memory checks
constexpr std::size_t kMaxBracketStack = 1u << 20;  // Clang refuses nesting beyond 256 anyway

}  // namespace

ParseLimiter::ParseLimiter(const AnalysisLimits& limits, std::stop_token stop, const char* stack_top,
                           std::size_t stack_bytes)
    : limits_(limits), stop_(std::move(stop)), stack_top_(stack_top),
      stack_limit_(static_cast<std::size_t>(static_cast<double>(stack_bytes) * kParseStackFraction)) {}

void ParseLimiter::attach(clang::CompilerInstance& ci) {
  ci_ = &ci;
  ci.getPreprocessor().setTokenWatcher([this](const clang::Token& token) { on_token(token); });
}

void ParseLimiter::cut(const clang::Token& token, std::string reason) {
  stopped_ = true;
  reason_ = std::move(reason);
  cut_at_ = token.getLocation();
  // What comes now ("expected '}'" at the cut) is not the user's error.
  ci_->getDiagnostics().setSuppressAllDiagnostics(true);
}

void ParseLimiter::check_costly() {
  if (stop_.stop_requested()) {
    stopped_ = true;  // cancelled or out of time: analyze() tells which
    ci_->getDiagnostics().setSuppressAllDiagnostics(true);
    return;
  }
  if (stack_limit_ > 0 && stack_top_) {
    char here = 0;
    // Only on the parse thread's own stack (Clang may run a piece of work
    // on a thread of its own, whose stack says nothing about ours).
    const bool ours = &here < stack_top_ && static_cast<std::size_t>(stack_top_ - &here) < 2 * stack_limit_;
    const std::size_t used = ours ? static_cast<std::size_t>(stack_top_ - &here) : 0;
    if (used > stack_limit_) {
      reason_ = "too large to analyse: nested too deeply for the parser (it used " + common::describe_size(used) +
                " of stack, the limit is " + common::describe_size(stack_limit_) + ")";
      return;
    }
  }
  if (tokens_ % kMemoryCheckEvery == 0 && ci_->hasASTContext()) {
    const clang::ASTContext& ctx = ci_->getASTContext();
    std::size_t bytes = ctx.getASTAllocatedMemory() + ctx.getSideTableAllocatedMemory() +
                        ci_->getPreprocessor().getTotalMemory() + ci_->getSourceManager().getDataStructureSizes();
    if (bytes > limits_.max_ast_bytes)
      reason_ = "too large to analyse: the parse took more than " + common::describe_size(limits_.max_ast_bytes) +
                " of memory (the limit)";
  }
}

void ParseLimiter::on_token(const clang::Token& token) {
  auto& tok = const_cast<clang::Token&>(token);  // the preprocessor's own token, being returned to the parser
  if (stopped_) {
    // Every token after the cut is the end of the file.
    clang::SourceLocation at = tok.getLocation();
    tok.startToken();
    tok.setKind(clang::tok::eof);
    tok.setLocation(at);
    return;
  }
  ++tokens_;
  switch (tok.getKind()) {
    case clang::tok::l_brace:
      if (brackets_.size() < kMaxBracketStack) brackets_.push_back('{');
      run_ = 0;
      controls_ = 0;
      break;
    case clang::tok::r_brace:
      if (!brackets_.empty()) brackets_.pop_back();
      run_ = 0;
      controls_ = 0;
      break;
    case clang::tok::kw_if:
    case clang::tok::kw_else:
    case clang::tok::kw_for:
    case clang::tok::kw_while:
    case clang::tok::kw_do:
    case clang::tok::kw_switch:
      ++controls_;
      ++run_;
      break;
    case clang::tok::l_paren:
    case clang::tok::l_square:
      if (brackets_.size() < kMaxBracketStack) brackets_.push_back('(');
      ++run_;
      break;
    case clang::tok::r_paren:
    case clang::tok::r_square:
      if (!brackets_.empty()) brackets_.pop_back();
      ++run_;
      break;
    case clang::tok::semi:
      run_ = 0;
      controls_ = 0;
      break;
    case clang::tok::comma:
      // The elements of a braced list are siblings; a comma operator chain
      // (or a call's arguments) is one expression.
      if (!brackets_.empty() && brackets_.back() == '{') run_ = 0;
      else ++run_;
      break;
    default:
      ++run_;
      break;
  }
  if (tokens_ > limits_.max_tokens)
    reason_ = "too large to analyse: more than " + std::to_string(limits_.max_tokens) +
              " preprocessor tokens (headers and macro expansions included; the limit)";
  else if (controls_ > limits_.max_unbraced_nesting)
    reason_ = "too large to analyse: more than " + std::to_string(limits_.max_unbraced_nesting) +
              " statements nested without braces (the limit)";
  else if (run_ > limits_.max_expression_tokens)
    reason_ = "too large to analyse: an expression of more than " + std::to_string(limits_.max_expression_tokens) +
              " tokens (the limit)";
  else if (tokens_ % kCheckEvery == 0)
    check_costly();
  if (!reason_.empty() && !stopped_) cut(tok, reason_);
  if (stopped_) on_token(tok);  // this token is the first end-of-file
}

std::optional<int> ParseLimiter::line_in(const clang::SourceManager& sm, const std::string& file) const {
  if (cut_at_.isInvalid()) return std::nullopt;
  clang::SourceLocation loc = sm.getExpansionLoc(cut_at_);
  auto entry = sm.getFileEntryRefForID(sm.getFileID(loc));
  if (!entry || entry->getName() != file) return std::nullopt;
  return static_cast<int>(sm.getExpansionLineNumber(loc)) - 1;
}

}  // namespace warplens::clang_frontend
