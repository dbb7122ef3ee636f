// run_recovering: a fault inside comes back as a value (a stack overflow
// too, which needs the alternate signal stack), a fault outside is still
// fatal, and with recovery off nothing is caught.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "common/crash_recovery.h"
#include "common/large_stack.h"

using namespace warplens::common;

namespace {

volatile int g_sink = 0;
volatile bool g_never = false;

// Unbounded recursion the optimiser cannot turn into a loop.
int endless(int n) {
  volatile char frame[256];
  frame[0] = static_cast<char>(n);
  if (g_never) return frame[0];
  return endless(n + 1) + frame[0];
}

void null_read() {
  volatile int* p = nullptr;
  g_sink = *p;
}

// The exit signal of `fn` run in a child process (0: it exited normally).
// A fault that is passed on kills with SIGSEGV, or with SIGABRT under ASan
// (its handler reports the fault, then aborts: .ci/run runs these tests so).
template <class Fn>
int child_signal(Fn fn) {
  pid_t pid = fork();
  if (pid == 0) {
    fn();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

bool killed_by_fault(int sig) { return sig == SIGSEGV || sig == SIGABRT; }

}  // namespace

TEST_CASE("a fault inside run_recovering is returned, and the thread goes on") {
  REQUIRE(crash_recovery_enabled());
  RecoveredCrash none = run_recovering([] { g_sink = 1; });
  CHECK_FALSE(none);

  // On a thread of a chosen stack, as the parse runs: several times over.
  for (int round = 0; round < 3; ++round) {
    RecoveredCrash overflow, null;
    run_with_stack(std::size_t{16} << 20, [&](std::size_t) {
      overflow = run_recovering([] { g_sink = endless(0); });
      null = run_recovering(null_read);
    });
    CHECK(overflow.signal == SIGSEGV);
    CHECK(overflow.stack_overflow);
    CHECK(std::string(describe(overflow)) == "SIGSEGV (a stack overflow)");
    CHECK(null.signal == SIGSEGV);
    CHECK_FALSE(null.stack_overflow);
  }

  // Nested: the innermost catches, the outer goes on.
  RecoveredCrash inner;
  RecoveredCrash outer = run_recovering([&] { inner = run_recovering(null_read); });
  CHECK(inner.signal == SIGSEGV);
  CHECK_FALSE(outer);
}

TEST_CASE("a fault outside run_recovering, or with recovery off, is still fatal") {
  // The handler is installed by now (the case above); outside a guarded call
  // it passes the fault on to the default: the process dies of it.
  CHECK(killed_by_fault(child_signal([] { null_read(); })));
  CHECK(killed_by_fault(child_signal([] {
    std::thread t([] { null_read(); });
    t.join();
  })));
  // A signal another process sends is not a crash of ours.
  CHECK(killed_by_fault(child_signal([] { (void)run_recovering([] { kill(getpid(), SIGSEGV); }); })));
  // Off (the fuzzers): nothing is caught.
  CHECK(killed_by_fault(child_signal([] {
    set_crash_recovery(false);
    (void)run_recovering(null_read);
  })));
}

TEST_CASE("a handler installed after ours gets the faults outside, and recovery still works") {
  // Test frameworks (per test case) and LLVM (on first use) install their
  // handlers after ours: run_recovering puts ours back and passes other
  // faults on to theirs.
  pid_t pid = fork();
  if (pid == 0) {
    (void)run_recovering([] {});
    struct sigaction theirs {};
    theirs.sa_handler = [](int) { _exit(42); };
    sigemptyset(&theirs.sa_mask);
    sigaction(SIGSEGV, &theirs, nullptr);
    if (run_recovering(null_read).signal != SIGSEGV) _exit(1);
    null_read();  // outside: theirs runs
    _exit(2);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 42);
}
