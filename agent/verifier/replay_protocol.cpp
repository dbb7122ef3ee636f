#include "agent/verifier/replay_protocol.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "agent/verifier/verifier_json.h"
#include "common/file_read.h"

namespace warplens::verifier {

std::string describe(const InputSetSpec& s) {
  std::string which = "launch " + std::to_string(s.launch);
  if (!s.sequence.empty()) {
    which = "launches ";
    for (std::size_t i = 0; i < s.sequence.size(); ++i) which += (i ? "+" : "") + std::to_string(s.sequence[i]);
  }
  const std::string kept = s.captured_scalars ? ", captured scalars: the original faults with them re-drawn" : "";
  if (!s.variation.empty())
    return "shape variation of " + which + " (seed " + std::to_string(s.seed) + kept + "): " + s.variation;
  if (!s.fresh) return "captured " + which;
  return "fresh from " + which + " (seed " + std::to_string(s.seed) + kept + ")";
}

const LaunchLayout* ReplayPlan::layout_for(int launch) const {
  for (const auto& l : layouts)
    if (l.launch == launch) return &l;
  return nullptr;
}

const LaunchSequence* ReplayPlan::sequence(int launch) const {
  for (const auto& s : sequences)
    if (s.id == launch) return &s;
  return nullptr;
}

const char* to_string(BufferRole r) {
  switch (r) {
    case BufferRole::Input: return "input";
    case BufferRole::Output: return "output";
    case BufferRole::InOut: return "inout";
  }
  return "input";
}

namespace {
template <class T>
T parse_as(const std::string& text, const char* what) {
  try {
    return json::parse(text).get<T>();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("cannot read ") + what + ": " + e.what());
  }
}
}  // namespace

std::string to_json_text(const ReplayPlan& v) { return json(v).dump(1); }
std::string to_json_text(const ReferenceResult& v) { return json(v).dump(1); }
std::string to_json_text(const CandidateResult& v) { return json(v).dump(1); }
std::string to_json_text(const DeviceProbe& v) { return json(v).dump(1); }
std::string to_json_text(const SanitizeResult& v) { return json(v).dump(1); }

ReplayPlan parse_replay_plan(const std::string& text) {
  auto plan = parse_as<ReplayPlan>(text, "replay plan");
  if (plan.version != kReplayProtocolVersion)
    throw std::runtime_error("replay plan version " + std::to_string(plan.version) + " does not match this warplens-replay (" +
                             std::to_string(kReplayProtocolVersion) + ")");
  return plan;
}
ReferenceResult parse_reference_result(const std::string& text) {
  return parse_as<ReferenceResult>(text, "reference result");
}
CandidateResult parse_candidate_result(const std::string& text) {
  return parse_as<CandidateResult>(text, "candidate result");
}
DeviceProbe parse_device_probe(const std::string& text) { return parse_as<DeviceProbe>(text, "device probe"); }
SanitizeResult parse_sanitize_result(const std::string& text) {
  return parse_as<SanitizeResult>(text, "sanitize result");
}

std::string read_text_file(const std::filesystem::path& path) {
  // Paths here come from the user too (the original source, a capture's
  // manifest): only a regular file is read, so a FIFO or a device named as
  // one is refused instead of blocking or reading forever (common/file_read.h).
  common::FileReadResult read = common::read_regular_file(path.string(), std::size_t{1} << 30);
  if (!read) throw std::runtime_error("cannot read " + read.error);
  return std::move(*read.content);
}

void write_text_file(const std::filesystem::path& path, const std::string& text) {
  auto tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot rename " + tmp.string() + ": " + ec.message());
}

}  // namespace warplens::verifier
