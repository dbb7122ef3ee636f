// warplens: stand-in for the header CUDA 13 removed (the texture-reference
// API). Clang 19's __clang_cuda_runtime_wrapper.h still includes it; this
// empty file lets CUDA 13 headers parse. Only added to the include path when
// the toolkit lacks the real header, so older toolkits are unaffected.
// Fixed upstream after clang 19 (llvm/llvm-project PR #151766).
#pragma once
