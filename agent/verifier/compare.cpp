#include "agent/verifier/compare.h"

#include "agent/verifier/compare_units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace warplens::verifier {

static_assert(static_cast<int>(Problem::StrayWrite) == ops::kStrayWrite &&
                  static_cast<int>(Problem::ChangedBits) == ops::kChangedBits,
              "element_ops.h's problem codes must be Problem's values");

double Tolerance::rtol(ElementType t) const {
  if (t == ElementType::F64) return rtol_f64;
  return (t == ElementType::F16 || t == ElementType::BF16) ? rtol_half : rtol_f32;
}
double Tolerance::atol(ElementType t) const {
  if (t == ElementType::F64) return atol_f64;
  return (t == ElementType::F16 || t == ElementType::BF16) ? atol_half : atol_f32;
}

std::uint64_t total_bytes(const ByteRanges& r) {
  std::uint64_t n = 0;
  for (const auto& x : r) n += x.end - x.begin;
  return n;
}

const char* to_string(Problem p) {
  switch (p) {
    case Problem::None: return "none";
    case Problem::OutOfTolerance: return "out-of-tolerance";
    case Problem::NaN: return "nan";
    case Problem::StrayWrite: return "stray-write";
    case Problem::ChangedBits: return "changed-bits";
  }
  return "none";
}

std::string describe(const ElementReport& e) {
  std::string s = "element " + std::to_string(e.index) + " (byte " + std::to_string(e.byte_offset) + "): expected " +
                  e.expected + ", got " + e.got;
  switch (e.problem) {
    case Problem::StrayWrite: s += " (the original never writes this element)"; break;
    case Problem::NaN: s += " (NaN never compares equal)"; break;
    case Problem::OutOfTolerance: {
      char buf[96];
      std::snprintf(buf, sizeof buf, " (abs error %.3g, rel error %.3g)", e.abs_error, e.rel_error);
      s += buf;
      break;
    }
    default: break;
  }
  return s;
}

namespace {

// Walks an allocation as units: leading bytes before the phase, whole
// elements, trailing bytes. Each unit carries its type (Bytes for the edges).
template <class F>
void for_each_unit(std::uint64_t bytes, BufferLayout layout, F&& f) {
  const std::uint64_t size = static_cast<std::uint64_t>(element_size(layout.type));
  const std::uint64_t phase = std::min(layout.phase, bytes);
  std::uint64_t b = 0;
  for (; b < phase; ++b) f(b, std::uint64_t{1}, ElementType::Bytes, b);
  std::uint64_t index = 0;
  for (; b + size <= bytes; b += size, ++index) f(b, size, layout.type, index);
  for (; b < bytes; ++b) f(b, std::uint64_t{1}, ElementType::Bytes, b);
}

// Cursor over sorted ranges: how many bytes of [b, e) the ranges cover.
class RangeCursor {
 public:
  explicit RangeCursor(const ByteRanges& r) : r_(r) {}
  std::uint64_t covered(std::uint64_t b, std::uint64_t e) {
    while (i_ < r_.size() && r_[i_].end <= b) ++i_;
    std::uint64_t n = 0;
    for (std::size_t k = i_; k < r_.size() && r_[k].begin < e; ++k)
      n += std::min(e, r_[k].end) - std::max(b, r_[k].begin);
    return n;
  }
  bool in(std::uint64_t byte) { return covered(byte, byte + 1) == 1; }

 private:
  const ByteRanges& r_;
  std::size_t i_ = 0;
};

ElementReport make_report(ElementType t, std::uint64_t offset, std::uint64_t index, const std::uint8_t* expected,
                          const std::uint8_t* got, Problem problem) {
  ElementReport r;
  r.index = index;
  r.byte_offset = offset;
  r.expected = format_element(t, expected);
  r.got = format_element(t, got);
  r.problem = problem;
  if (is_floating(t) || t != ElementType::Bytes) {
    double e = load_as_double(t, expected), g = load_as_double(t, got);
    if (std::isfinite(e) && std::isfinite(g)) {
      r.abs_error = std::fabs(g - e);
      r.rel_error = e != 0 ? r.abs_error / std::fabs(e) : 0;  // undefined at 0: abs_error tells
    }
  }
  return r;
}

struct WorstTracker {
  double severity = -1;
  std::optional<ElementReport> failing;
  double best_passing_error = -1;
  std::optional<ElementReport> passing;
  void fail(double s, ElementReport&& r) {
    if (s > severity) {
      severity = s;
      failing = std::move(r);
    }
  }
  void pass(double err, ElementReport&& r) {
    if (err > best_passing_error) {
      best_passing_error = err;
      passing = std::move(r);
    }
  }
  std::optional<ElementReport> result(bool ok) { return ok ? passing : failing; }
};

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

namespace {

// Bit-exact agreement, range by range with memcmp: written bytes equal the
// expected ones and never-written bytes still hold the poison. The common
// case for a correct candidate, and far cheaper than element by element.
bool exact_everywhere(const std::uint8_t* expected, const std::uint8_t* got, std::uint64_t bytes,
                      const ByteRanges& unwritten, const std::uint8_t* poison) {
  std::uint64_t at = 0;
  for (const auto& r : unwritten) {
    if (r.begin > at && std::memcmp(expected + at, got + at, r.begin - at) != 0) return false;
    if (!poison || std::memcmp(poison + r.begin, got + r.begin, r.end - r.begin) != 0) return false;
    at = r.end;
  }
  return at >= bytes || std::memcmp(expected + at, got + at, bytes - at) == 0;
}

template <class Bits>
bool any_nan(const std::uint8_t* p, std::uint64_t from, std::uint64_t to, Bits exponent_mask) {
  for (std::uint64_t b = from; b + sizeof(Bits) <= to; b += sizeof(Bits)) {
    Bits v;
    std::memcpy(&v, p + b, sizeof v);
    Bits magnitude = static_cast<Bits>(v & static_cast<Bits>(~(Bits{1} << (8 * sizeof(Bits) - 1))));
    if (magnitude > exponent_mask) return true;
  }
  return false;
}

// Whether any element outside `unwritten` is a NaN (typed, fast).
bool written_nan(const std::uint8_t* p, std::uint64_t bytes, BufferLayout layout, const ByteRanges& unwritten) {
  if (!is_floating(layout.type)) return false;
  const std::uint64_t size = static_cast<std::uint64_t>(element_size(layout.type));
  auto span = [&](std::uint64_t from, std::uint64_t to) {
    // First whole element at or after `from` on the layout's grid.
    std::uint64_t start = from <= layout.phase ? layout.phase : layout.phase + (from - layout.phase + size - 1) / size * size;
    switch (layout.type) {
      case ElementType::F64: return any_nan<std::uint64_t>(p, start, to, 0x7ff0000000000000ULL);
      case ElementType::F32: return any_nan<std::uint32_t>(p, start, to, 0x7f800000u);
      case ElementType::F16: return any_nan<std::uint16_t>(p, start, to, static_cast<std::uint16_t>(0x7c00));
      case ElementType::BF16: return any_nan<std::uint16_t>(p, start, to, static_cast<std::uint16_t>(0x7f80));
      default: return false;
    }
  };
  std::uint64_t at = 0;
  for (const auto& r : unwritten) {
    if (r.begin > at && span(at, r.begin)) return true;
    at = r.end;
  }
  return at < bytes && span(at, bytes);
}

}  // namespace

BufferComparison compare_with_tolerance(const std::uint8_t* expected, const std::uint8_t* got, std::uint64_t bytes,
                                        BufferLayout layout, const Tolerance& tol, const ByteRanges& unwritten,
                                        const std::uint8_t* poison) {
  BufferComparison out;
  if (exact_everywhere(expected, got, bytes, unwritten, poison)) {
    // NaN in the expected values still never compares equal.
    if (tol.nan_equal || !written_nan(expected, bytes, layout, unwritten)) {
      out.elements = (bytes - total_bytes(unwritten)) / static_cast<std::uint64_t>(element_size(layout.type));
      return out;
    }
  }
  WorstTracker worst;
  RangeCursor cursor(unwritten);
  for_each_unit(bytes, layout, [&](std::uint64_t b, std::uint64_t size, ElementType t, std::uint64_t index) {
    std::uint64_t untouched = unwritten.empty() ? 0 : cursor.covered(b, b + size);
    if (untouched > 0) {
      // The original leaves (some of) these bytes alone: they must still be
      // the poison. Compare those bytes only.
      std::uint64_t changed = 0;
      for (std::uint64_t k = 0; k < size; ++k)
        if ((untouched == size || cursor.in(b + k)) && got[b + k] != poison[b + k]) ++changed;
      if (changed) {
        out.ok = false;
        ++out.mismatches;
        out.stray_bytes += changed;
        worst.fail(kInf, make_report(t, b, index, poison + b, got + b, Problem::StrayWrite));
      }
      return;
    }
    ++out.elements;
    const std::uint8_t* e = expected + b;
    const std::uint8_t* g = got + b;
    if (!is_floating(t)) {
      if (std::memcmp(e, g, size) != 0) {
        out.ok = false;
        ++out.mismatches;
        ElementReport r = make_report(t, b, index, e, g, Problem::ChangedBits);
        double s = t == ElementType::Bytes ? 1.0 : r.abs_error;
        worst.fail(s, std::move(r));
      }
      return;
    }
    double ev = load_as_double(t, e), gv = load_as_double(t, g);
    if (std::isnan(ev) || std::isnan(gv)) {
      if (tol.nan_equal && std::isnan(ev) && std::isnan(gv)) return;
      out.ok = false;
      ++out.mismatches;
      worst.fail(kInf, make_report(t, b, index, e, g, Problem::NaN));
      return;
    }
    if (std::isinf(ev) || std::isinf(gv)) {
      if (ev != gv) {
        out.ok = false;
        ++out.mismatches;
        worst.fail(kInf, make_report(t, b, index, e, g, Problem::OutOfTolerance));
      }
      return;
    }
    double d = std::fabs(gv - ev);
    double allowed = tol.atol(t) + tol.rtol(t) * std::fabs(ev);
    out.max_abs_error = std::max(out.max_abs_error, d);
    out.max_abs_expected = std::max(out.max_abs_expected, std::fabs(ev));
    if (ev != 0) out.max_rel_error = std::max(out.max_rel_error, d / std::fabs(ev));
    if (d > allowed) {
      out.ok = false;
      ++out.mismatches;
      worst.fail(d / allowed, make_report(t, b, index, e, g, Problem::OutOfTolerance));
    } else if (d > 0 && (!worst.passing || d > worst.best_passing_error)) {
      worst.pass(d, make_report(t, b, index, e, g, Problem::None));
    }
  });
  out.worst = worst.result(out.ok);
  return out;
}

BufferComparison compare_exact(const std::uint8_t* expected, const std::uint8_t* got, std::uint64_t bytes,
                               BufferLayout layout, const ByteRanges& ignore) {
  BufferComparison out;
  if (exact_everywhere(expected, got, bytes, ignore, got)) {
    out.elements = (bytes - total_bytes(ignore)) / static_cast<std::uint64_t>(element_size(layout.type));
    return out;
  }
  RangeCursor cursor(ignore);
  for_each_unit(bytes, layout, [&](std::uint64_t b, std::uint64_t size, ElementType t, std::uint64_t index) {
    std::uint64_t skipped = ignore.empty() ? 0 : cursor.covered(b, b + size);
    if (skipped == size) return;
    ++out.elements;
    bool differs = false;
    for (std::uint64_t k = 0; k < size; ++k)
      if (expected[b + k] != got[b + k] && (skipped == 0 || !cursor.in(b + k))) differs = true;
    if (!differs) return;
    out.ok = false;
    ++out.mismatches;
    if (!out.worst) out.worst = make_report(t, b, index, expected + b, got + b, Problem::ChangedBits);
    if (is_floating(t)) {
      double ev = load_as_double(t, expected + b), gv = load_as_double(t, got + b);
      if (std::isfinite(ev) && std::isfinite(gv)) {
        out.max_abs_error = std::max(out.max_abs_error, std::fabs(gv - ev));
        if (ev != 0) out.max_rel_error = std::max(out.max_rel_error, std::fabs(gv - ev) / std::fabs(ev));
      }
    }
  });
  return out;
}

ByteRanges unwritten_ranges(const std::uint8_t* ra, const std::uint8_t* pa, const std::uint8_t* rb,
                            const std::uint8_t* pb, std::uint64_t bytes) {
  ByteRanges out;
  std::uint64_t i = 0;
  while (i < bytes) {
    // Fast skip of written stretches, 8 bytes at a time.
    while (i + 8 <= bytes && std::memcmp(ra + i, pa + i, 8) != 0 && std::memcmp(rb + i, pb + i, 8) != 0) {
      bool any = false;
      for (int k = 0; k < 8; ++k)
        if (ra[i + k] == pa[i + k] && rb[i + k] == pb[i + k]) any = true;
      if (any) break;
      i += 8;
    }
    if (i >= bytes) break;
    if (ra[i] == pa[i] && rb[i] == pb[i]) {
      std::uint64_t start = i;
      while (i < bytes && ra[i] == pa[i] && rb[i] == pb[i]) ++i;
      if (!out.empty() && out.back().end == start) out.back().end = i;
      else out.push_back({start, i});
    } else {
      ++i;
    }
  }
  return out;
}

ops::CompareSpec compare_spec(BufferLayout layout, std::uint64_t bytes, const Tolerance& tol,
                              const CompareOptions& options) {
  ops::CompareSpec s;
  s.type = static_cast<std::uint8_t>(layout.type);
  s.phase = layout.phase;
  s.bytes = bytes;
  s.rtol = tol.rtol(layout.type);
  s.atol = tol.atol(layout.type);
  s.nan_equal = tol.nan_equal ? 1 : 0;
  s.exact = options.exact ? 1 : 0;
  s.pref_poison = options.pref_poison;
  return s;
}

ElementReport unit_report(const ops::CompareSpec& spec, const ops::Unit& unit, const std::uint8_t* expected,
                          const std::uint8_t* got, std::uint8_t problem) {
  std::uint8_t shown[8] = {0};
  const std::uint8_t* e = expected;
  if (problem == ops::kStrayWrite) {
    for (std::uint64_t k = 0; k < unit.size && k < 8; ++k)
      shown[k] = ops::poison_byte(spec.pref_poison, spec.type, spec.phase, spec.bytes, unit.offset + k);
    e = shown;
  }
  return make_report(static_cast<ElementType>(unit.type), unit.offset, unit.index, e, got,
                     static_cast<Problem>(problem));
}

BufferComparison finish_comparison(const ops::CompareStats& s, std::optional<ElementReport> worst) {
  BufferComparison out;
  out.elements = s.elements;
  out.mismatches = s.mismatches;
  out.stray_bytes = s.stray_bytes;
  out.max_abs_error = ops::dbl(s.max_abs_bits);
  out.max_rel_error = ops::dbl(s.max_rel_bits);
  out.max_abs_expected = ops::dbl(s.max_expected_bits);
  out.ok = s.mismatches == 0;
  out.worst = std::move(worst);
  return out;
}

BufferComparison compare_buffers(const std::uint8_t* expected, const std::uint8_t* got, const std::uint8_t* pref,
                                 std::uint64_t bytes, BufferLayout layout, const Tolerance& tol,
                                 const CompareOptions& options) {
  const ops::CompareSpec spec = compare_spec(layout, bytes, tol, options);
  const ops::UnitGrid grid = ops::unit_grid(spec.type, spec.phase, bytes);
  ops::CompareStats stats;
  const std::uint64_t n = grid.units();
  // Bit-identical buffers with no reference-unwritten units and no NaN can
  // skip the per-unit walk (the common case for a correct candidate).
  if (spec.pref_poison < 0 && std::memcmp(expected, got, bytes) == 0 &&
      (options.exact || tol.nan_equal || !written_nan(expected, bytes, layout, {}))) {
    stats.elements = n;
    return finish_comparison(stats, std::nullopt);
  }
  for (std::uint64_t u = 0; u < n; ++u) ops::accumulate(stats, ops::compare_unit(spec, grid.unit(u), expected, got, pref));
  std::optional<ElementReport> worst;
  if (stats.mismatches || stats.worst_pass_bits) {
    for (std::uint64_t u = 0; u < n; ++u) {
      const ops::Unit unit = grid.unit(u);
      const ops::UnitResult r = ops::compare_unit(spec, unit, expected, got, pref);
      if (!ops::is_worst(stats, r)) continue;
      worst = unit_report(spec, unit, expected + unit.offset, got + unit.offset, r.problem);
      stats.worst_unit = u;
      break;
    }
  }
  return finish_comparison(stats, std::move(worst));
}

}  // namespace warplens::verifier
