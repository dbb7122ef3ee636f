// Device helpers defined in the project's headers, inlined into the file's
// kernels: findings at the helper's own lines (where the hardware attributes
// an inlined helper's instructions), the call chain as related information;
// reference parameters bound to shared memory; loops that halve a stride;
// loads the compiler serves from a register.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "analysis/analyzer.h"
#include "tests/support/annotations.h"

using namespace warplens;
using namespace warplens::testing;
namespace fs = std::filesystem;

namespace {

struct Project {
  fs::path dir;
  explicit Project(const std::string& name) : dir(fs::temp_directory_path() / ("warplens_helpers_" + name)) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "compile_commands.json") << "[]";
  }
  ~Project() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

std::vector<const Finding*> with_code(const AnalysisResult& r, const std::string& code) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.code == code) out.push_back(&f);
  return out;
}

}  // namespace

TEST_CASE("a bitonic network's compare-exchange helper in a header: conflicts at the helper's lines") {
  Project p("bitonic");
  Annotations header(R"cu(#pragma once
__device__ inline void order(unsigned& a, unsigned& b, unsigned dir) {
  if (($la[[a]] > $lb[[b]]) == dir) {
    unsigned t = $lt[[a]];
    $sa[[a]] = $lb2[[b]];
    $sb[[b]] = t;
  }
}
)cu");
  std::string header_path = p.write("sort_helpers.cuh", header.code());
  Annotations main(R"cu(#include "sort_helpers.cuh"
#define N 1024
__global__ void sort_shared(unsigned* keys, unsigned dir) {
  __shared__ unsigned s[N];
  s[threadIdx.x] = keys[blockIdx.x * N + threadIdx.x];
  s[threadIdx.x + N / 2] = keys[blockIdx.x * N + threadIdx.x + N / 2];
  for (unsigned size = 2; size <= N; size <<= 1)
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      $call[[order(s[pos], s[pos + stride], dir)]];
    }
  __syncthreads();
  keys[blockIdx.x * N + threadIdx.x] = s[threadIdx.x];
}
int main() { unsigned* k = nullptr; sort_shared<<<8, N / 2>>>(k, 1u); }
)cu");
  std::string main_path = p.write("sort.cu", main.code());
  AnalysisResult r = analyze({main_path, main.code()}, AnalysisOptions{});
  for (const auto& f : r.findings) INFO(f.location.file, ":", f.location.range.start.line + 1, " ", f.message);
  REQUIRE(r.model.included_functions.size() == 1);
  CHECK(r.model.included_functions[0].file == header_path);
  CHECK(r.model.included_functions[0].name == "order");

  auto fs = with_code(r, codes::kSharedBankConflict);
  std::vector<Range> got;
  for (const Finding* f : fs) {
    CHECK(f->location.file == header_path);  // none in sort.cu: its own accesses are conflict-free
    CHECK(f->severity == Severity::Warning);  // the launch gives the block; every iteration runs
    got.push_back(f->location.range);
    REQUIRE(f->related.size() == 1);
    CHECK(f->related[0].location.file == main_path);
    CHECK(f->related[0].location.range == main.range("call"));
    CHECK(f->related[0].message == "`sort_shared` calls `order` here");
    // Strides below 32 are 2-way, the others conflict-free: the average is in between.
    CHECK(f->message.find("2-way bank conflict") == 0);
    CHECK(f->message.find("on average") != std::string::npos);
  }
  // `t = a` and the `b` of `a = b` reuse the values the comparison loaded
  // (register_reuse.h): no shared request there.
  std::vector<Range> want;
  for (const char* n : {"la", "lb", "sa", "sb"}) want.push_back(header.range(n));
  auto order = [](const Range& a, const Range& b) { return a.start < b.start; };
  std::sort(got.begin(), got.end(), order);
  std::sort(want.begin(), want.end(), order);
  CHECK(got == want);
}

TEST_CASE("a reference parameter bound to a register is not memory") {
  Project p("register_ref");
  std::string header_path = p.write("acc.cuh", R"cu(#pragma once
__device__ inline void add_to(float& sum, const float& x) { sum += x; }
)cu");
  Annotations main(R"cu(#include "acc.cuh"
__global__ void k(const float* in, float* out, int n) {
  float s = 0;
  for (int i = threadIdx.x; i < n; i += 32) add_to(s, $in[[in[i * 32]]]);
  out[threadIdx.x] = s;
}
int main() { k<<<1, 32>>>(nullptr, nullptr, 1024); }
)cu");
  std::string main_path = p.write("k.cu", main.code());
  AnalysisResult r = analyze({main_path, main.code()}, AnalysisOptions{});
  // `x` is bound to in[i * 32]: the load is the helper's, reported there with the chain.
  auto fs = with_code(r, codes::kUncoalescedGlobal);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0]->location.file == header_path);
  CHECK(fs[0]->location.range.start.line == 1);
  REQUIRE(fs[0]->related.size() == 1);
  CHECK(fs[0]->related[0].location.file == main_path);
  // `sum` is bound to the local `s`: a register, not judged as memory.
  CHECK(with_code(r, codes::kSharedBankConflict).empty());
}

TEST_CASE("a size used as a mask: information naming the sizes that conflict") {
  Project p("mask");
  Annotations src(R"cu(
__device__ unsigned scan1(unsigned v, volatile unsigned* s, unsigned size) {
  unsigned pos = 2 * threadIdx.x - (threadIdx.x & (size - 1));
  $zero[[s[pos]]] = 0;
  pos += size;
  $store[[s[pos]]] = v;
  return $load[[s[pos]]];
}
__global__ void scan(unsigned* out, unsigned size) {
  __shared__ unsigned s_Data[512];
  out[threadIdx.x] = scan1(out[threadIdx.x], s_Data, size);
}
int main(int argc, char**) { unsigned n = argc; scan<<<1, 256>>>(nullptr, n); }
)cu");
  std::string path = p.write("scan.cu", src.code());
  AnalysisResult r = analyze({path, src.code()}, AnalysisOptions{});
  auto fs = with_code(r, codes::kSharedBankConflict);
  REQUIRE(fs.size() == 3);
  for (const Finding* f : fs) {
    CHECK(f->severity == Severity::Information);
    CHECK(f->message.find("2-way bank conflict") == 0);
    // pos = tid + (tid / size) * size: two segments of a warp share banks while size < 32.
    CHECK(f->message.find("only for some values of `size`, which the launch does not give: when it is at most 16") !=
          std::string::npos);
  }
}

TEST_CASE("a histogram's data-dependent shared update: random data, information") {
  Project p("histogram");
  Annotations src(R"cu(
__global__ void hist64(unsigned* partial, const unsigned* data, unsigned n) {
  __shared__ unsigned char s_Hist[64 * 64];
  const unsigned pos = 4 * (threadIdx.x & 15) + (threadIdx.x >> 4);
  unsigned char* base = s_Hist + pos;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned v = data[i];
    $bin[[base[((v >> 2) & 0x3F) * 64]]]++;
  }
  __syncthreads();
  if (threadIdx.x < 64) partial[blockIdx.x * 64 + threadIdx.x] = s_Hist[threadIdx.x * 64];
}
int main() { hist64<<<240, 64>>>(nullptr, nullptr, 1 << 20); }
)cu");
  std::string path = p.write("hist.cu", src.code());
  AnalysisResult r = analyze({path, src.code()}, AnalysisOptions{});
  std::vector<const Finding*> at_bin;
  for (const Finding* f : with_code(r, codes::kSharedBankConflict))
    if (f->location.range == src.range("bin")) at_bin.push_back(f);
  // Lanes l and l + 16 share a word's bank; random bins make them 2-way.
  REQUIRE(at_bin.size() == 2);  // the ++: a load and a store
  for (const Finding* f : at_bin) {
    CHECK(f->severity == Severity::Information);
    CHECK(f->message.find("modelled as uniformly random values") != std::string::npos);
  }
}

TEST_CASE("a load after a statement that stores to the same array is a new shared request") {
  Project p("reload");
  Annotations src(R"cu(
__global__ void k(float* out) {
  __shared__ float s[2048];
  unsigned t = threadIdx.x;
  s[t] = out[t];
  s[t + 1024] = out[t + 1024];
  __syncthreads();
  s[t] = $first[[s[2 * t]]];
  $again[[s[2 * t]]] += 1.0f;
  __syncthreads();
  out[t] = s[t];
}
int main() { k<<<1, 256>>>(nullptr); }
)cu");
  std::string path = p.write("reload.cu", src.code());
  AnalysisResult r = analyze({path, src.code()}, AnalysisOptions{});
  // `s[t]` (stored after the first load of its statement) may be `s[2 * t]`
  // (t = 0): the second statement reloads it, a 2-way request of its own,
  // as the scan down-sweep's `temp[ai] = temp[bi]; temp[bi] += t;` does.
  std::vector<std::string> loads;
  for (const Finding* f : with_code(r, codes::kSharedBankConflict)) {
    const EvidenceValue* access = f->data.get("access");
    if (!access || std::get<std::string>(*access) != "load") continue;
    CHECK(f->message.find("2-way bank conflict") == 0);
    if (f->location.range == src.range("first")) loads.push_back("first");
    if (f->location.range == src.range("again")) loads.push_back("again");
  }
  std::sort(loads.begin(), loads.end());
  CHECK(loads == std::vector<std::string>{"again", "first"});
}
