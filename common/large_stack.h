// Running a function on a thread with a stack of a chosen size.
//
// std::thread cannot choose its stack; the Clang front end needs far more
// than the 8 MiB a thread gets by default (its recursive descent takes ~5
// KiB per nesting level of `- - - x`). The stack is reserved address space:
// pages are touched only as deep as the function actually goes.
#pragma once

#include <cstddef>
#include <functional>

namespace warplens::common {

// Runs `fn` to completion on a new thread with a stack of `bytes` (or the
// largest of bytes/4, bytes/16, ... down to 8 MiB that the system grants),
// and returns the size it got; `fn` receives it too. When no thread can be
// created at all, runs `fn` on the calling thread and returns 0. An
// exception `fn` throws is rethrown here.
std::size_t run_with_stack(std::size_t bytes, const std::function<void(std::size_t stack_bytes)>& fn);

}  // namespace warplens::common
