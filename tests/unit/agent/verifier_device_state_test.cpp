#include <doctest/doctest.h>

#include "agent/verifier/device_state.h"

using namespace warplens::verifier;

namespace {
DeviceStateFacts facts(const char* src) { return device_state_facts(tokenize_source(src)); }
std::vector<std::string> names(const std::vector<DeviceStateItem>& items) {
  std::vector<std::string> out;
  for (const auto& i : items) out.push_back(i.function.empty() ? i.name : i.function + "::" + i.name);
  return out;
}
}  // namespace

TEST_CASE("device state: writable device globals, not constants, not functions") {
  auto f = facts(R"(
#define DEV __device__
__device__ unsigned long long memo_key[1 << 16], memo_count;
__device__ const float table[4] = {1, 2, 3, 4};
__constant__ float coeffs[8];
__device__ __constant__ int mode;
DEV float cache[256];
__managed__ int counter = 0;
__device__ float helper(float x) { return x * 2; }
__device__ int declared(int);
__global__ void k(float* out) { out[0] = helper(1.0f); }
namespace ns { __device__ int inside; }
static __shared__ float tile[32];
struct S { __device__ float get() const { return 1; } };
)");
  CHECK(names(f.writable_globals) == std::vector<std::string>{"memo_key", "memo_count", "cache", "counter", "inside"});
  CHECK(f.static_locals.empty());
  CHECK(f.device_allocations.empty());
}

TEST_CASE("device state: static locals and allocation in device code, not in host code") {
  auto f = facts(R"(
__device__ float* memo(bool store) {
  static unsigned long long last_key;
  static float cache[1 << 21];
  static const int kLimit = 4;
  static __shared__ float staged[32];
  return cache;
}
__global__ void k(float* out, int n) {
  float* p = static_cast<float*>(malloc(n * sizeof(float)));
  int* q = new int[4];
  free(p);
  delete[] q;
  out[0] = s.malloc;  // a member, not a call
}
int main() { static int calls = 0; void* h = malloc(8); free(h); return calls; }
)");
  CHECK(names(f.static_locals) == std::vector<std::string>{"memo::last_key", "memo::cache"});
  CHECK(names(f.device_allocations) == std::vector<std::string>{"k::malloc", "k::new"});
}

TEST_CASE("device state: findings only for what the original does not have") {
  const char* original = "__device__ int seen;\n__global__ void k(int* o) { o[0] = seen++; }\n";
  const char* candidate =
      "__device__ int seen;\n__device__ float memo[64];\n"
      "__device__ float* keep() { static float* p; return p; }\n"
      "__global__ void k(int* o) { float* m = (float*)malloc(4); o[0] = seen++; }\n";
  auto findings = compare_device_state(facts(original), facts(candidate));
  REQUIRE(findings.size() == 3);
  for (const auto& f : findings) {
    CHECK(f.rule == "device-state");
    CHECK(f.needs_review);
    CHECK_FALSE(f.demotes);
  }
  CHECK(findings[0].message ==
        "the candidate keeps state on the device that the original does not: writable __device__ variable(s) `memo` "
        "(line 2); it could carry results from one run to the next, so it is not offered without review");
  CHECK(findings[1].message.find("static local(s) in device code `p` in keep (line 3)") != std::string::npos);
  CHECK(findings[2].message.find("device-side allocation `malloc` in k (line 4)") != std::string::npos);
  CHECK(compare_device_state(facts(candidate), facts(candidate)).empty());
}
