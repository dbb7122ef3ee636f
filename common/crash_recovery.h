// Surviving a crash inside code we do not own (Clang) on a thread of ours.
//
// Clang's Sema has bugs that invalid code reaches: an endless recursion in
// typo correction took the language server down with a stack overflow, and
// an editor passes through invalid code on every keystroke. libclang runs
// each parse under llvm::CrashRecoveryContext for the same reason; that one
// cannot catch a stack overflow (its handler has no stack of its own to run
// on), so this is ours: a synchronous SIGSEGV, SIGBUS, SIGFPE or SIGILL
// raised on this thread inside `fn` jumps back out of `fn`, on an alternate
// signal stack, and the caller reports the file as not analysed.
//
// The price: `fn`'s frames are abandoned. No destructor runs, so what they
// held leaks (one parse's AST), and a lock held at the fault stays held.
// Callers run only self-contained work here (a parse on a thread of its own)
// and remember the input, so that it is not parsed again.
//
// A fault anywhere else, or with recovery off, is what it was: the previous
// handler (a sanitizer's, the default's core dump) runs. The fuzzers turn
// recovery off, so a crash stays a finding for them.
#pragma once

#include <cstddef>
#include <functional>

namespace warplens::common {

struct RecoveredCrash {
  int signal = 0;               // 0: `fn` returned normally
  bool stack_overflow = false;  // the fault was at the end of this thread's stack
  explicit operator bool() const { return signal != 0; }
};

// Runs `fn` on this thread; see above. Nested calls: the innermost catches.
RecoveredCrash run_recovering(const std::function<void()>& fn);

// On by default; WARPLENS_CRASH_RECOVERY=0 in the environment turns it off
// at start-up. Off, run_recovering just calls `fn`.
void set_crash_recovery(bool enabled);
bool crash_recovery_enabled();

// "SIGSEGV (a stack overflow)", "SIGFPE", ...
const char* describe(const RecoveredCrash& crash);

}  // namespace warplens::common
