// CUPTI results in words the user can act on.
#pragma once

#include <cupti.h>

#include <string>

namespace warplens::inject {

// "CUPTI_ERROR_NOT_SUPPORTED (27): ..." for logs and warnings.
std::string describe(CUptiResult r);

// Why SASS metrics (per-line data) cannot be collected, as a profile warning:
// a stable code and a message that says what happened, what still works
// (kernel timings), and what to do. `step` names the CUPTI call that refused.
struct Refusal {
  std::string code;
  std::string message;
};
Refusal explain_sass_refusal(CUptiResult r, const std::string& step);

}  // namespace warplens::inject
