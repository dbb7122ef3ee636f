#include "common/crash_recovery.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace warplens::common {

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
constexpr std::size_t kAltStackBytes = std::size_t{256} << 10;
// A fault this close below (or just above) the stack's low end is the stack
// running out: the guard pages, or a frame that reached past them.
constexpr std::uintptr_t kOverflowMargin = std::uintptr_t{4} << 20;

struct Frame {
  sigjmp_buf env;
  volatile sig_atomic_t signal = 0;
  void* volatile address = nullptr;
  Frame* outer = nullptr;
};

thread_local Frame* tl_frame = nullptr;

std::atomic<bool>& enabled_flag() {
  static std::atomic<bool> flag{[] {
    const char* env = std::getenv("WARPLENS_CRASH_RECOVERY");
    return !(env && std::strcmp(env, "0") == 0);
  }()};
  return flag;
}

struct sigaction g_previous[NSIG];

void pass_on(int sig, siginfo_t* info, void* context) {
  const struct sigaction& prev = g_previous[sig];
  if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) {
    prev.sa_sigaction(sig, info, context);
    return;
  }
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler) {
    prev.sa_handler(sig);
    return;
  }
  // The default: put it back and let the fault happen again (a faulting
  // instruction re-executes on return; a signal sent by kill is re-raised).
  signal(sig, SIG_DFL);
  if (info->si_code <= 0) raise(sig);
}

void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  Frame* frame = tl_frame;
  // Only faults this thread's own instructions raised (si_code > 0), inside
  // run_recovering: a signal another process sent is not a crash of ours.
  if (frame && info && info->si_code > 0) {
    frame->signal = sig;
    frame->address = info->si_addr;
    siglongjmp(frame->env, 1);
  }
  pass_on(sig, info, context);
}

// Ours is put in place on every call, not once: others replace handlers
// after us (a test framework per test case, LLVM's crash reporting when it
// is first used), and what they installed becomes the handler we pass
// other faults on to.
std::mutex g_install_mutex;
void install_handlers() {
  std::lock_guard lock(g_install_mutex);
  for (int sig : kSignals) {
    struct sigaction current;
    if (sigaction(sig, nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_fatal_signal) continue;
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    g_previous[sig] = current;
    sigaction(sig, &action, nullptr);
  }
}

bool near_stack_end(void* address) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return false;
  void* low = nullptr;
  std::size_t size = 0;
  const bool got = pthread_attr_getstack(&attr, &low, &size) == 0;
  pthread_attr_destroy(&attr);
  if (!got) return false;
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  const auto lo = reinterpret_cast<std::uintptr_t>(low);
  return a + kOverflowMargin >= lo && a < lo + (std::uintptr_t{64} << 10);
}

// This thread's alternate signal stack for the duration of one call: the
// handler cannot run on a stack that has just run out.
class AltStack {
 public:
  AltStack() : memory_(kAltStackBytes) {
    stack_t next;
    next.ss_sp = memory_.data();
    next.ss_size = memory_.size();
    next.ss_flags = 0;
    installed_ = sigaltstack(&next, &previous_) == 0;
  }
  ~AltStack() {
    if (installed_) sigaltstack(&previous_, nullptr);
  }
  AltStack(const AltStack&) = delete;
  AltStack& operator=(const AltStack&) = delete;

 private:
  std::vector<char> memory_;
  stack_t previous_{};
  bool installed_ = false;
};

}  // namespace

void set_crash_recovery(bool enabled) { enabled_flag() = enabled; }
bool crash_recovery_enabled() { return enabled_flag(); }

RecoveredCrash run_recovering(const std::function<void()>& fn) {
  if (!crash_recovery_enabled()) {
    fn();
    return {};
  }
  install_handlers();
  AltStack alt;
  Frame frame;
  frame.outer = tl_frame;
  RecoveredCrash crash;
  // sigsetjmp(.., 1): the jump restores the signal mask the handler blocked.
  if (sigsetjmp(frame.env, 1) == 0) {
    tl_frame = &frame;
    fn();
    tl_frame = frame.outer;
    return crash;
  }
  tl_frame = frame.outer;
  crash.signal = frame.signal;
  crash.stack_overflow = frame.signal == SIGSEGV && near_stack_end(frame.address);
  return crash;
}

const char* describe(const RecoveredCrash& crash) {
  switch (crash.signal) {
    case 0: return "no crash";
    case SIGSEGV: return crash.stack_overflow ? "SIGSEGV (a stack overflow)" : "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    default: return "a fatal signal";
  }
}

}  // namespace warplens::common
