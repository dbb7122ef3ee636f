// A readable text rendering of a KernelModel, for test failure messages and
// for looking at what the front end produced (tests/tools/dump_model).
#pragma once

#include <string>

#include "analysis/kernel_model.h"

namespace warplens::testing {

std::string dump_model(const KernelModel& model);
std::string dump_range(const Range& r);  // "3:4-3:10" (0-based line:column)

}  // namespace warplens::testing
