#include "agent/llm/llm_policy.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "agent/llm/kernel_directory.h"
#include "agent/llm/llm_error.h"
#include "agent/llm/prompts.h"

namespace warplens::agent::llm {

namespace {

// Below this much wall budget a chat request is not worth starting.
constexpr double kMinimumSecondsForATurn = 1.0;
// Replies without a tool call tolerated in a row before the model is taken to be done.
constexpr int kMaxRepliesWithoutTools = 2;

// A reply that spells a tool call out as text means the server did not parse
// tool calls (vLLM without --tool-call-parser, a template without tools).
bool looks_like_unparsed_tool_call(const std::optional<std::string>& content) {
  if (!content) return false;
  const std::string& t = *content;
  for (const char* marker : {"<tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "<function=", "<|tool_call"})
    if (t.find(marker) != std::string::npos) return true;
  const bool names_tool = t.find("\"propose_edit\"") != std::string::npos || t.find("\"read_file\"") != std::string::npos ||
                          t.find("\"compile\"") != std::string::npos || t.find("\"finish\"") != std::string::npos;
  return names_tool && (t.find("\"arguments\"") != std::string::npos || t.find("\"parameters\"") != std::string::npos);
}

const TriedCandidate* find_tried(const std::vector<TriedCandidate>& history, const std::string& id,
                                 const std::string& source) {
  for (const auto& t : history)
    if (t.candidate.id == id && t.candidate.policy == "llm") return &t;
  for (const auto& t : history)  // the job renumbered it
    if (t.candidate.policy == "llm" && t.candidate.source == source) return &t;
  return nullptr;
}

}  // namespace

LlmPolicy::LlmPolicy(LlmConfig config)
    : config_(std::move(config)), client_(config_), tools_(config_), tool_definitions_(tool_definitions()) {
  spdlog::info("llm policy: {}", describe(config_));
}

void LlmPolicy::stop_proposing(std::string why) {
  finished_ = true;
  stopped_because_ = std::move(why);
  spdlog::info("llm policy: stopped: {}", stopped_because_);
}

void LlmPolicy::open_conversation(const PolicyContext& context) {
  KernelDirectory dir(context.file);
  messages_.push_back(ChatMessage::system(system_prompt(config_)));
  messages_.push_back(ChatMessage::user(kernel_brief(context, config_, dir.kernel_file_name(), config_.max_turns - turns_)));
  for (const auto& t : context.history) shown_history_.push_back(t.candidate.id);
}

void LlmPolicy::answer_pending(const PolicyContext& context) {
  const std::string budget = budget_text(context.remaining, config_.max_turns - turns_);
  for (const Pending& p : pending_) {
    const TriedCandidate* t = find_tried(context.history, p.id, p.source);
    std::string text = t ? verdict_text(*t)
                         : "Candidate " + p.id + " was not verified (the job skipped it, for example for lack of budget).";
    if (t) shown_history_.push_back(t->candidate.id);
    messages_.push_back(ChatMessage::tool_result(p.call, text + "\n" + budget));
  }
  pending_.clear();
  // Candidates of other policies verified meanwhile (a combined job).
  std::string others;
  for (const auto& t : context.history) {
    if (std::find(shown_history_.begin(), shown_history_.end(), t.candidate.id) != shown_history_.end()) continue;
    shown_history_.push_back(t.candidate.id);
    others += "- " + t.candidate.id + " (" + t.candidate.policy + ", " +
              (t.candidate.description.empty() ? to_string(t.candidate.plan) : t.candidate.description) + "): " +
              verdict_text(t);
  }
  if (!others.empty()) messages_.push_back(ChatMessage::user("Also verified meanwhile:\n" + others));
}

std::vector<Candidate> LlmPolicy::propose(const PolicyContext& context, int max, std::stop_token stop) {
  std::vector<Candidate> out;
  if (finished_ || max <= 0) return out;
  if (messages_.empty()) open_conversation(context);
  else answer_pending(context);

  using Clock = std::chrono::steady_clock;
  const auto round_start = Clock::now();
  const auto deadline =
      round_start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(context.remaining.wall_seconds));
  int replies_without_tools = 0;
  while (!stop.stop_requested()) {
    if (turns_ >= config_.max_turns) {
      stop_proposing("reached the limit of " + std::to_string(config_.max_turns) + " turns");
      break;
    }
    if (std::chrono::duration<double>(deadline - Clock::now()).count() < kMinimumSecondsForATurn) {
      spdlog::info("llm policy: the job's wall budget is spent; not asking the model again");
      break;
    }
    ChatCompletion reply;
    try {
      reply = client_.complete(messages_, tool_definitions_, stop, deadline);
    } catch (const LlmError& e) {
      if (e.kind() == LlmErrorKind::Cancelled) return {};
      // The request was cut short by the job's wall budget, not by the
      // endpoint: that ends the job normally (wall-time budget), not as an error.
      if (e.kind() == LlmErrorKind::Timeout && Clock::now() + std::chrono::milliseconds(200) >= deadline) {
        spdlog::info("llm policy: the job's wall budget ran out while waiting for the model");
        return {};
      }
      throw;
    }
    ++turns_;
    messages_.push_back(reply.message);
    std::string called;
    for (const auto& c : reply.message.tool_calls) called += (called.empty() ? "" : ", ") + c.name;
    spdlog::info("llm policy: turn {}/{}: {}", turns_, config_.max_turns,
                 called.empty() ? "no tool call (finish_reason " + reply.finish_reason + ")" : called);

    if (reply.message.tool_calls.empty()) {
      if (looks_like_unparsed_tool_call(reply.message.content))
        throw LlmError(LlmErrorKind::NoToolSupport,
                       "the model wrote its tool call as plain text, so the endpoint " + client_.endpoint().to_string() +
                           " did not parse it. Enable the server's tool-call parsing (vLLM: --enable-auto-tool-choice "
                           "--tool-call-parser <parser for the model>; SGLang: --tool-call-parser) or pick a model "
                           "with tool support (see docs/llm.md).");
      if (++replies_without_tools > kMaxRepliesWithoutTools) {
        stop_proposing("the model stopped calling tools");
        break;
      }
      messages_.push_back(ChatMessage::user(
          "Continue by calling a tool: propose_edit with your rewrite, another tool to investigate, or finish if you "
          "have nothing more to try."));
      continue;
    }
    replies_without_tools = 0;

    for (const ToolCall& call : reply.message.tool_calls) {
      if (call.name == "propose_edit" && static_cast<int>(out.size()) >= max) {
        messages_.push_back(ChatMessage::tool_result(
            call, "Not accepted: this round already has " + std::to_string(out.size()) +
                      " candidate(s) waiting for verification. Propose again after their verdicts."));
        continue;
      }
      ToolOutcome outcome = tools_.call(call, context, turns_);
      if (outcome.candidate) {
        spdlog::info("llm policy: candidate {}: {}", outcome.candidate->id, outcome.candidate->description);
        pending_.push_back({call, outcome.candidate->id, outcome.candidate->source});
        out.push_back(std::move(*outcome.candidate));
        continue;  // answered with the verdict in the next round
      }
      spdlog::debug("llm policy: {} -> {} bytes", call.name, outcome.reply.size());
      messages_.push_back(ChatMessage::tool_result(call, std::move(outcome.reply)));
      if (outcome.finish) stop_proposing("the model called finish: " + outcome.finish_reason);
    }
    if (!out.empty() || finished_) break;
  }
  return out;
}

}  // namespace warplens::agent::llm
