#include "agent/verifier/replay/replay_capture.h"

#include <stdexcept>

namespace warplens::replay {

CapturedLaunches::CapturedLaunches(const std::string& dir) : dir_(dir), manifest_(capture::load_capture(dir)) {}

void CapturedLaunches::add_sequences(const std::vector<verifier::LaunchSequence>& sequences) {
  for (const auto& seq : sequences) {
    std::vector<const capture::LaunchRecord*> parts;
    for (int l : seq.launches) parts.push_back(&launch(l));
    std::string error;
    auto m = verifier::merge_launches(parts, seq.id, &error);
    if (!m) throw std::runtime_error("launch sequence " + std::to_string(seq.id) + ": " + error);
    merged_[seq.id] = std::move(*m);
  }
}

const verifier::MergedLaunch* CapturedLaunches::merged(int index) const {
  auto it = merged_.find(index);
  return it == merged_.end() ? nullptr : &it->second;
}

const capture::LaunchRecord& CapturedLaunches::launch(int index) const {
  if (const verifier::MergedLaunch* m = merged(index)) return m->record;
  if (index < 0 || static_cast<std::size_t>(index) >= manifest_.launches.size())
    throw std::runtime_error("the capture has no launch " + std::to_string(index));
  return manifest_.launches[static_cast<std::size_t>(index)];
}

const Blobs& CapturedLaunches::before(int index) {
  auto it = before_.find(index);
  if (it != before_.end()) return it->second;
  Blobs blobs;
  for (const auto& a : launch(index).allocations)
    blobs.push_back(capture::read_blob(dir_, a.before_blob, a.bytes, a.before_hash));
  return before_[index] = std::move(blobs);
}

const Blobs& CapturedLaunches::after(int index) {
  auto it = after_.find(index);
  if (it != after_.end()) return it->second;
  Blobs blobs;
  for (const auto& a : launch(index).allocations)
    blobs.push_back(capture::read_blob(dir_, a.after_blob, a.bytes, a.after_hash));
  return after_[index] = std::move(blobs);
}

const Blobs& CapturedLaunches::globals_before(int index) {
  auto it = globals_before_.find(index);
  if (it != globals_before_.end()) return it->second;
  Blobs blobs;
  for (const auto& g : launch(index).globals)
    blobs.push_back(capture::read_blob(dir_, g.before_blob, g.bytes, g.before_hash));
  return globals_before_[index] = std::move(blobs);
}

std::string param_layout_mismatch(const std::vector<ParamLayoutEntry>& layout, const capture::LaunchRecord& launch) {
  auto describe = [](std::uint64_t o, std::uint64_t s) {
    return "@" + std::to_string(o) + ":" + std::to_string(s);
  };
  std::string compiled, captured;
  for (const auto& p : layout) compiled += " " + describe(p.offset, p.size);
  for (const auto& p : launch.params) captured += " " + describe(p.offset, p.size);
  bool same = layout.size() == launch.params.size();
  for (std::size_t i = 0; same && i < layout.size(); ++i)
    same = layout[i].offset == launch.params[i].offset && layout[i].size == launch.params[i].size;
  if (same) return "";
  return "parameters (offset:size) compiled as" + (compiled.empty() ? std::string(" none") : compiled) +
         ", captured as" + (captured.empty() ? std::string(" none") : captured);
}

}  // namespace warplens::replay
