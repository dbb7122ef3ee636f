// The LLM policy's ReAct loop against the scripted endpoint (test double)
// replaying hand-written conversations from tests/fixtures/llm/: a full
// episode through the real optimize job, tool argument errors answered to
// the model, the turn limit, cancellation, and HTTP errors ending the job.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "agent/job.h"
#include "agent/llm/llm_error.h"
#include "agent/llm/llm_policy.h"
#include "agent/llm/llm_policy_factory.h"
#include "tests/unit/agent/llm_test_support.h"

using namespace warplens;
using namespace warplens::agent;
using namespace warplens::agent::llm;
using warplens::test::ScriptedLlmEndpoint;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const std::string kKey = "sk-policy-test-key-9f8e7d6c";
const std::string kModel = "Qwen/Qwen2.5-Coder-32B-Instruct";

LlmConfig config_for(const ScriptedLlmEndpoint& endpoint) {
  LlmConfig c;
  c.base_url = endpoint.base_url();
  c.model = kModel;
  c.api_key = kKey;
  c.timeout = 10s;
  c.max_retries = 1;
  c.retry_base_delay = 10ms;
  return c;
}

std::vector<test::ScriptedExchange> script(const std::string& name) {
  return ScriptedLlmEndpoint::load_script(llm_test::fixtures() + "/" + name, {{"KEY", kKey}, {"MODEL", kModel}});
}

void check_no_failures(const ScriptedLlmEndpoint& endpoint) {
  for (const auto& f : endpoint.failures()) FAIL_CHECK(f);
}

// Verdicts as the verifier would give them, keyed by candidate id.
class ScriptedVerifier : public CandidateVerifier {
 public:
  std::string name() const override { return "scripted-verifier"; }
  CandidateVerdict verify(const Candidate& c, std::stop_token) override {
    seen.push_back(c);
    CandidateVerdict v;
    v.candidate_id = c.id;
    v.compiled = true;
    v.input_sets = 5;
    if (c.id == "llm-01") {
      v.correct = true;
      v.original = {1.0, 0.98, 1.02, 50};
      v.candidate = {0.3226, 0.32, 0.33, 50};
      v.speedup = 3.1;
      v.level = RewardLevel::Faster;
      v.max_error = 0.0;
    } else {
      v.correct = false;
      v.worst = "out set 2: index 33: expected 33, got 0";
      v.max_error = 1e9;
      v.level = RewardLevel::Incorrect;
      v.reason = "wrong results";
    }
    v.gpu_seconds = 0.5;
    return v;
  }
  std::vector<Candidate> seen;
};

}  // namespace

TEST_CASE("the factory builds the policy, or says what is wrong with the config") {
  CHECK(llm_policy_available());
  LlmConfig c;
  c.base_url = "http://localhost:8000/v1";
  c.model = "m";
  auto made = make_llm_policy(c);
  REQUIRE(made.policy);
  CHECK(made.policy->name() == "llm");
  c.base_url = "localhost:8000";
  made = make_llm_policy(c);
  CHECK_FALSE(made.policy);
  CHECK(made.error.find("no scheme") != std::string::npos);
}

TEST_CASE("a full ReAct episode through the optimize job ends with a verified candidate") {
  ScriptedLlmEndpoint endpoint(script("react_episode.json"));
  LlmPolicy policy(config_for(endpoint));
  ScriptedVerifier verifier;
  PolicyTools tools = llm_test::fake_tools();

  OptimizeRequest request;
  request.file = llm_test::transpose_file();
  request.kernel = "transpose";
  request.budget = Budget{300, 6, 100};
  request.findings = llm_test::fake_analyze(request.file.text).findings;
  ProfileHints hints;
  hints.kernel_ms = 1.0;
  hints.dram_throughput_pct = 31.5;
  request.profile = hints;
  OptimizeResult result = run_optimize_job(request, policy, verifier, &tools, {});

  check_no_failures(endpoint);
  CHECK(endpoint.unused_exchanges() == 0);
  CHECK(endpoint.requests().size() == 6);
  CHECK(result.error == "");
  CHECK(result.stop_reason == StopReason::PolicyExhausted);
  REQUIRE(result.tried.size() == 2);
  const Candidate& first = result.tried[0].candidate;
  CHECK(first.id == "llm-01");
  CHECK(first.policy == "llm");
  CHECK(first.plan.empty());
  CHECK(first.description == "stage 32x32 tiles through shared memory so the stores coalesce");
  CHECK(first.source.find("#define TILE 32\n__global__ void transpose(const float* __restrict__ in") != std::string::npos);
  CHECK(first.source.find("dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);") != std::string::npos);
  CHECK_FALSE(first.edits.empty());  // the job's minimal edits against the original
  REQUIRE(first.launch_changes.size() == 1);
  CHECK(first.launch_changes[0].kernel == "transpose");
  CHECK(first.launch_changes[0].thread_scale[1] == Ratio{1, 4});
  CHECK_FALSE(first.launch_changes[0].block);
  CHECK(first.predicted_gain == 3.0);
  CHECK(first.notes.size() >= 3);  // model and turn, signature kept, compiles
  const Candidate& second = result.tried[1].candidate;
  CHECK(second.id == "llm-02");
  CHECK(second.source.find("__shared__ float tile[TILE][TILE + 1];") != std::string::npos);
  CHECK(second.source.find("#define TILE 32") != std::string::npos);  // built on llm-01
  REQUIRE(result.offers.size() == 1);
  CHECK(result.offers[0].candidate_id == "llm-01");
  CHECK(policy.stopped_because().find("finish") != std::string::npos);
  CHECK(policy.turns_used() == 6);

  // The profile reached the model in the opening brief.
  const auto& brief = policy.transcript().at(1);
  REQUIRE(brief.content);
  CHECK(brief.content->find("DRAM throughput: 31.5% of peak") != std::string::npos);
}

TEST_CASE("tool argument errors are answered to the model, which can then recover") {
  ScriptedLlmEndpoint endpoint(script("tool_argument_errors.json"));
  LlmPolicy policy(config_for(endpoint));
  llm_test::Round round;
  std::vector<Candidate> out = policy.propose(round.context(), 1, {});
  check_no_failures(endpoint);
  CHECK(endpoint.unused_exchanges() == 0);
  REQUIRE(out.size() == 1);
  CHECK(out[0].id == "llm-01");
  CHECK(out[0].description == "read-only inputs through __restrict__");
  CHECK(out[0].source.find("const float* __restrict__ in, float* __restrict__ out") != std::string::npos);
  CHECK(out[0].predicted_gain == doctest::Approx(1.1));
  // The second proposal of the same turn was turned away, not lost silently.
  bool refused_extra = false;
  for (const auto& m : policy.transcript())
    if (m.role == "tool" && m.tool_call_id == "c_extra")
      refused_extra = m.content->find("already has 1 candidate") != std::string::npos;
  CHECK(refused_extra);
  CHECK(policy.stopped_because().empty());
}

TEST_CASE("the policy stops at max_turns") {
  ScriptedLlmEndpoint endpoint(script("max_turns.json"));
  LlmConfig config = config_for(endpoint);
  config.max_turns = 3;
  LlmPolicy policy(config);
  llm_test::Round round;
  CHECK(policy.propose(round.context(), 4, {}).empty());
  check_no_failures(endpoint);
  CHECK(endpoint.requests().size() == 3);
  CHECK(policy.turns_used() == 3);
  CHECK(policy.stopped_because() == "reached the limit of 3 turns");
  // Asked again, it does not talk to the endpoint any more.
  CHECK(policy.propose(round.context(), 4, {}).empty());
  CHECK(endpoint.requests().size() == 3);
}

TEST_CASE("a model that keeps answering in prose is taken to be done") {
  ScriptedLlmEndpoint endpoint({llm_test::text_reply("Hmm."), llm_test::text_reply("Still thinking."),
                                llm_test::text_reply("I would tile it.")});
  LlmPolicy policy(config_for(endpoint));
  llm_test::Round round;
  CHECK(policy.propose(round.context(), 4, {}).empty());
  check_no_failures(endpoint);
  CHECK(policy.stopped_because() == "the model stopped calling tools");
}

TEST_CASE("a tool call written as text means the endpoint does not parse tool calls") {
  ScriptedLlmEndpoint endpoint({llm_test::text_reply(
      "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"transpose.cu\"}}\n</tool_call>")});
  LlmPolicy policy(config_for(endpoint));
  llm_test::Round round;
  try {
    policy.propose(round.context(), 4, {});
    FAIL("expected an error");
  } catch (const LlmError& e) {
    CHECK(e.kind() == LlmErrorKind::NoToolSupport);
    CHECK(std::string(e.what()).find("--tool-call-parser") != std::string::npos);
  }
}

TEST_CASE("cancellation mid-request returns promptly with nothing") {
  ScriptedLlmEndpoint endpoint({{json::object(), json{{"delay_ms", 20000}, {"reply", {{"content", "late"}}}}}});
  LlmPolicy policy(config_for(endpoint));
  llm_test::Round round;
  std::stop_source stop;
  std::jthread canceller([&] {
    std::this_thread::sleep_for(300ms);
    stop.request_stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(policy.propose(round.context(), 4, stop.get_token()).empty());
  CHECK(std::chrono::steady_clock::now() - t0 < 5s);
  for (int i = 0; i < 100 && !endpoint.client_hung_up_during_delay(); ++i) std::this_thread::sleep_for(10ms);
  CHECK(endpoint.client_hung_up_during_delay());
}

TEST_CASE("cancelling the optimize job while the model is thinking") {
  ScriptedLlmEndpoint endpoint({{json::object(), json{{"delay_ms", 20000}, {"reply", {{"content", "late"}}}}}});
  auto made = make_llm_policy(config_for(endpoint));
  REQUIRE(made.policy);
  OptimizeRequest request;
  request.file = llm_test::transpose_file();
  request.kernel = "transpose";
  // As the server's job runner runs it: on a thread of its own, stopped through its stop_token.
  ScriptedVerifier verifier;
  OptimizeResult result;
  std::jthread job([&](std::stop_token stop) {
    result = run_optimize_job(request, *made.policy, verifier, nullptr, {}, stop);
  });
  std::this_thread::sleep_for(300ms);
  const auto t0 = std::chrono::steady_clock::now();
  job.request_stop();
  job.join();
  CHECK(std::chrono::steady_clock::now() - t0 < 5s);
  CHECK(result.stop_reason == StopReason::Cancelled);
  CHECK(result.tried.empty());
}

TEST_CASE("an HTTP error ends the job with a clear message (and no key)") {
  ScriptedLlmEndpoint endpoint({llm_test::status(401, {{"error", {{"message", "invalid key " + kKey}}}})});
  LlmPolicy policy(config_for(endpoint));
  ScriptedVerifier verifier;
  OptimizeRequest request;
  request.file = llm_test::transpose_file();
  request.kernel = "transpose";
  OptimizeResult result = run_optimize_job(request, policy, verifier, nullptr, {});
  CHECK(result.stop_reason == StopReason::Error);
  CHECK(result.error.find("refused the request (HTTP 401") != std::string::npos);
  CHECK(result.error.find(kKey) == std::string::npos);
  CHECK(result.tried.empty());
}

TEST_CASE("the job's wall budget caps the request; running out of it is not an error") {
  ScriptedLlmEndpoint endpoint({{json::object(), json{{"delay_ms", 20000}, {"reply", {{"content", "late"}}}}}});
  LlmPolicy policy(config_for(endpoint));
  llm_test::Round round;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(policy.propose(round.context(BudgetLeft{2, 6, 100}), 4, {}).empty());
  const auto waited = std::chrono::steady_clock::now() - t0;
  CHECK(waited >= 1500ms);
  CHECK(waited < 5s);
}
