// AST -> KernelModel for one target file. Internal to analysis/clang/.
#pragma once

#include <clang/AST/ASTContext.h>

#include <stop_token>
#include <string>

#include "analysis/clang/source_mapper.h"
#include "analysis/kernel_model.h"

namespace warplens::clang_frontend {

// Kernels and __device__ functions defined in the target file (template
// instantiations analysed one by one, de-duplicated by source location), with
// their bodies walked; and the kernel launches written in the target file.
// Returns early (partial model) when `stop` is requested.
KernelModel build_kernel_model(clang::ASTContext& ctx, const SourceMapper& map, const std::string& file,
                               std::stop_token stop);

}  // namespace warplens::clang_frontend
