// What the editor shows about a kernel: a markdown card for hover (name,
// signature, parameters, launch bounds, shared memory, launch sites and
// their block shapes) and a one-line launch summary for code lenses.
#pragma once

#include <optional>
#include <string>

#include "analysis/kernel_model.h"

namespace warplens::server {

// The kernel whose name, or one of whose launch sites, is at `position`.
const Function* kernel_at(const KernelModel& model, Position position, Range* where = nullptr);

// The launch sites of `kernel` in the model (matched by key, else by name).
std::vector<const LaunchSite*> launches_of(const KernelModel& model, const Function& kernel);

std::string kernel_markdown(const KernelModel& model, const Function& kernel);

// "launched 2× · block 256×1×1", "no launch in this file", ...
std::string launch_summary(const KernelModel& model, const Function& kernel);

// "16×16×1" when known, else the spelling as written.
std::string describe_dim3(const Dim3Value& value);

}  // namespace warplens::server
