// The capture as the replay process sees it: the manifest plus each used
// launch's blobs, read once and kept in memory; and the plan's virtual
// launches (launch sequences merged into one record, launch_sequence.h),
// served under their ids like captured ones.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "agent/verifier/launch_sequence.h"
#include "agent/verifier/replay/cuda_driver.h"
#include "profiler/capture_format.h"

namespace warplens::replay {

using Blobs = std::vector<std::vector<std::uint8_t>>;

class CapturedLaunches {
 public:
  explicit CapturedLaunches(const std::string& dir);
  // Merges each sequence; throws std::runtime_error when one cannot be.
  void add_sequences(const std::vector<verifier::LaunchSequence>& sequences);
  const capture::CaptureManifest& manifest() const { return manifest_; }
  const capture::LaunchRecord& launch(int index) const;
  const verifier::MergedLaunch* merged(int index) const;  // nullptr for a captured launch
  const Blobs& before(int index);
  const Blobs& after(int index);
  const Blobs& globals_before(int index);  // launch(index).globals' "before" contents

 private:
  std::string dir_;
  capture::CaptureManifest manifest_;
  std::map<int, verifier::MergedLaunch> merged_;
  std::map<int, Blobs> before_, after_, globals_before_;
};

// "" when the compiled function's parameters (cuFuncGetParamInfo) have the
// offsets and sizes of the captured launch; otherwise what differs.
std::string param_layout_mismatch(const std::vector<ParamLayoutEntry>& layout, const capture::LaunchRecord& launch);

}  // namespace warplens::replay
