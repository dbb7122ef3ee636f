// The examples' self-check (examples/optimize/harness.cuh): what decides
// whether an original or a candidate is correct on the H200. Host code only,
// so it runs without a GPU. Built and run with nvcc by ctest
// (examples_harness_compare); exits non-zero on the first failed check.
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "harness.cuh"

static int failures = 0;
#define EXPECT(c)                                                     \
  do {                                                                \
    if (!(c)) {                                                       \
      std::fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #c); \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

int main() {
  const std::vector<float> a = {1.5f, -0.0f, 3.25f, 0.0f};
  // Bit-exact comparison (rtol = atol = 0) of equal data passes: it used to
  // divide 0 by 0 and fail every element.
  example::Comparison same = example::compare(a, a, 0.0, 0.0);
  EXPECT(same.ok);
  EXPECT(same.bad == 0);
  EXPECT(same.checked == 4);
  EXPECT(same.max_error == 0.0);
  // Zeros with a relative tolerance only (atol = 0) are equal too.
  EXPECT(example::compare(std::vector<float>{0.0f}, std::vector<float>{0.0f}, 1e-6, 0.0).ok);
  // Any difference fails a bit-exact comparison, and names the element.
  std::vector<float> b = a;
  b[2] = 3.2500002f;
  example::Comparison diff = example::compare(b, a, 0.0, 0.0);
  EXPECT(!diff.ok);
  EXPECT(diff.bad == 1);
  EXPECT(diff.worst.find("index 2") != std::string::npos);
  // Within tolerance passes, beyond fails.
  EXPECT(example::compare(std::vector<float>{1.00001f}, std::vector<float>{1.0f}, 1e-4, 1e-4).ok);
  EXPECT(!example::compare(std::vector<float>{1.01f}, std::vector<float>{1.0f}, 1e-4, 1e-4).ok);
  // NaN and infinity never pass, even against themselves.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT(!example::compare(std::vector<float>{nan}, std::vector<float>{nan}, 1e-4, 1e-4).ok);
  EXPECT(!example::compare(std::vector<float>{INFINITY}, std::vector<float>{1.0f}, 1e-4, 1e-4).ok);
  // Sizes must match.
  EXPECT(!example::compare(std::vector<float>{1.0f}, a, 1e-4, 1e-4).ok);
  if (failures == 0) std::printf("harness compare: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
