// TEST DOUBLE: see fake_device.h.
#include "tests/unit/agent/fake_cuda/fake_device.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace warplens::fake_cuda {

namespace {

constexpr std::size_t kCanary = 64 * 1024;  // padding past every allocation (real GPU pages are larger still)
constexpr std::uint8_t kCanaryByte = 0xcd;

struct Op {
  std::uint64_t seq = 0;
  std::function<double()> run;
};

struct Allocation {
  std::size_t bytes = 0;
};

std::recursive_mutex& mutex() {
  static std::recursive_mutex m;
  return m;
}
std::uint64_t g_seq = 0;
double g_clock_ns = 0;
bool g_hung = false;
bool g_faulted = false;
std::map<std::uintptr_t, Allocation>& allocations() {
  static std::map<std::uintptr_t, Allocation> a;
  return a;
}

}  // namespace

struct FakeStream {
  bool blocking = true;
  std::deque<Op> ops;
};

namespace {
std::set<FakeStream*>& streams() {
  static std::set<FakeStream*> s;
  return s;
}
}  // namespace

FakeStream* legacy_stream() {
  static FakeStream legacy;
  return &legacy;
}

FakeStream* new_stream(bool blocking) {
  std::lock_guard lock(mutex());
  auto* s = new FakeStream();
  s->blocking = blocking;
  streams().insert(s);
  return s;
}

void destroy_stream(FakeStream* s) {
  std::lock_guard lock(mutex());
  run_until(s, g_seq);
  streams().erase(s);
  delete s;
}

std::uint64_t enqueue(FakeStream* s, std::function<double()> op) {
  std::lock_guard lock(mutex());
  s->ops.push_back({++g_seq, std::move(op)});
  return g_seq;
}

void run_until(FakeStream* s, std::uint64_t seq) {
  std::lock_guard lock(mutex());
  while (!g_hung && !g_faulted && !s->ops.empty() && s->ops.front().seq <= seq) {
    Op op = std::move(s->ops.front());
    s->ops.pop_front();
    // Implicit ordering with the legacy stream.
    if (s == legacy_stream()) {
      for (FakeStream* b : streams())
        if (b->blocking) run_until(b, op.seq);
    } else if (s->blocking) {
      run_until(legacy_stream(), op.seq);
    }
    if (g_hung || g_faulted) {
      s->ops.push_front(std::move(op));
      return;
    }
    g_clock_ns += op.run();
  }
}

void run_all() {
  std::lock_guard lock(mutex());
  run_until(legacy_stream(), g_seq);
  for (FakeStream* s : streams()) run_until(s, g_seq);
}

std::uint64_t last_seq() {
  std::lock_guard lock(mutex());
  return g_seq;
}

double device_clock_ns() { return g_clock_ns; }

bool hung() { return g_hung; }
void set_hung() { g_hung = true; }
bool faulted() { return g_faulted; }
void set_faulted() { g_faulted = true; }

void block_forever() {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

bool memcheck_enabled() {
  const char* v = std::getenv("FAKE_CUDA_MEMCHECK");
  return v && *v;
}

void* allocate(std::size_t bytes) {
  const std::size_t total = (bytes + kCanary + 255) / 256 * 256;
  void* p = std::aligned_alloc(256, total);
  if (!p) return nullptr;
  std::memset(static_cast<std::uint8_t*>(p) + bytes, kCanaryByte, total - bytes);
  std::lock_guard lock(mutex());
  allocations()[reinterpret_cast<std::uintptr_t>(p)] = {bytes};
  return p;
}

void release(void* p) {
  std::lock_guard lock(mutex());
  allocations().erase(reinterpret_cast<std::uintptr_t>(p));
  std::free(p);
}

namespace {
// Violations of the running kernel, written out when it ends (one write per
// launch, however many threads went astray).
std::vector<std::string>& pending() {
  static std::vector<std::string> p;
  return p;
}
void report(const std::string& line) { pending().push_back(line); }
void flush_reports() {
  const char* path = std::getenv("FAKE_CUDA_MEMCHECK");
  if (!path || !*path || pending().empty()) return;
  if (FILE* f = std::fopen(path, "a")) {
    for (const auto& line : pending()) std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
  pending().clear();
}
}  // namespace

void memcheck_after_kernel(const std::string& kernel) {
  if (!memcheck_enabled()) return;
  std::lock_guard lock(mutex());
  struct Flush {
    ~Flush() { flush_reports(); }
  } flush;
  for (auto& [base, a] : allocations()) {
    auto* pad = reinterpret_cast<std::uint8_t*>(base) + a.bytes;
    std::size_t first = kCanary;
    for (std::size_t k = 0; k < kCanary; ++k)
      if (pad[k] != kCanaryByte) {
        if (first == kCanary) first = k;
        pad[k] = kCanaryByte;
      }
    if (first == kCanary) continue;
    char buf[256];
    std::snprintf(buf, sizeof buf, "Invalid __global__ write of size 4 bytes|at %s|Address 0x%llx is out of bounds",
                  kernel.c_str(), static_cast<unsigned long long>(base + a.bytes + first));
    report(buf);
  }
}

void zero_allocations_like(const void* like, const std::vector<const void*>& keep) {
  std::lock_guard lock(mutex());
  auto holds = [](std::uintptr_t base, const Allocation& a, const void* p) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    return at >= base && at < base + a.bytes;
  };
  std::size_t size = 0;
  for (auto& [base, a] : allocations())
    if (holds(base, a, like)) size = a.bytes;
  for (auto& [base, a] : allocations()) {
    if (a.bytes != size) continue;
    bool mine = false;
    for (const void* k : keep) mine = mine || holds(base, a, k);
    if (!mine) std::memset(reinterpret_cast<void*>(base), 0, a.bytes);
  }
}

void memcheck_access(const std::string& kernel, const void* p, std::size_t bytes, bool write) {
  if (!memcheck_enabled()) return;
  std::lock_guard lock(mutex());
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  auto it = allocations().upper_bound(at);
  if (it != allocations().begin()) {
    --it;
    if (at >= it->first && at + bytes <= it->first + it->second.bytes) return;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "Invalid __global__ %s of size %zu bytes|at %s|Address 0x%llx is out of bounds",
                write ? "write" : "read", bytes, kernel.c_str(), static_cast<unsigned long long>(at));
  report(buf);
}

}  // namespace warplens::fake_cuda
