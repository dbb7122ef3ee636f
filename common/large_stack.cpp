#include "common/large_stack.h"

#include <pthread.h>

#include <exception>

namespace warplens::common {

namespace {

struct Call {
  const std::function<void(std::size_t)>* fn;
  std::size_t bytes;
  std::exception_ptr error;  // rethrown on the caller's thread
};

void* trampoline(void* arg) {
  auto* call = static_cast<Call*>(arg);
  try {
    (*call->fn)(call->bytes);
  } catch (...) {
    call->error = std::current_exception();
  }
  return nullptr;
}

}  // namespace

std::size_t run_with_stack(std::size_t bytes, const std::function<void(std::size_t)>& fn) {
  constexpr std::size_t kMin = std::size_t{8} << 20;
  for (std::size_t size = bytes; size >= kMin; size /= 4) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) break;
    Call call{&fn, size, nullptr};
    pthread_t thread;
    // A guard of 1 MiB below the stack, not one page: a frame larger than
    // the guard would step over it into another mapping instead of faulting
    // (common/crash_recovery.h turns the fault into an error).
    (void)pthread_attr_setguardsize(&attr, std::size_t{1} << 20);
    const bool made = pthread_attr_setstacksize(&attr, size) == 0 &&
                      pthread_create(&thread, &attr, trampoline, &call) == 0;
    pthread_attr_destroy(&attr);
    if (!made) continue;  // not granted: try a smaller stack
    pthread_join(thread, nullptr);
    if (call.error) std::rethrow_exception(call.error);
    return size;
  }
  fn(0);
  return 0;
}

}  // namespace warplens::common
