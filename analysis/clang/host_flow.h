// What host code does with device memory (issue 9), for the fusion analysis:
// per host function of the target file, its buffers (pointer variables that
// reach a CUDA memory call or a kernel launch) and the ordered events on them
// (kernel_model.h, "host code"). Internal to analysis/clang/.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "analysis/clang/source_mapper.h"
#include "analysis/kernel_model.h"

namespace warplens::clang_frontend {

using FunctionKeyOf = std::function<std::string(const clang::FunctionDecl*)>;

// Host functions (not __global__, not __device__; lambdas excluded) defined in
// the target file that launch a kernel or call the CUDA memory API, with
// their events. Launch events point into `launches` (matched by range and
// kernel key). A function template is walked through its first
// instantiation, or as a pattern when it has none.
std::vector<HostFunction> build_host_flow(clang::ASTContext& ctx, const SourceMapper& map,
                                          const std::vector<LaunchSite>& launches, const FunctionKeyOf& key_of,
                                          std::stop_token stop);

}  // namespace warplens::clang_frontend
