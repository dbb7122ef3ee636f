// The kernel model as JSON: the machine-readable view printed by
// `warplens report --format json` (docs/formats/report.md). Later features
// extend it (resources, occupancy, profiles).
//
// Ranges are LSP ranges (0-based lines, UTF-16 columns), like everything
// else warplens prints as JSON, so tools can use one convention.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/analyzer.h"
#include "formats/convert.h"

namespace warplens::formats {

// {"tree": "threadIdx.x + 32 * i", "affine": "threadIdx.x + 32*i" | "not affine"}, or null.
nlohmann::json expression_json(const ExprRef& e);

nlohmann::json model_json(const KernelModel& model, Converter& convert);
nlohmann::json toolchain_json(const ToolchainStatus& toolchain);

// One finding as `check --format json` prints it:
// {file, range, severity, code, source, message, data}.
nlohmann::json finding_json(const Finding& finding, Converter& convert);

}  // namespace warplens::formats
