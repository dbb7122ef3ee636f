// Per-element operations of the verifier's buffer work, written once for the
// host and the GPU: fp16/bf16 conversions, typed loads, the poison patterns,
// the counter-based re-draw of fresh inputs, the comparison of one element
// and the content hash. warplens-replay runs them as kernels
// (replay/replay_kernels.cu, built at build time), the host code and the
// fake CUDA driver (tests) run the same functions in loops, so every path
// gives the same bits and the same verdict.
//
// Plain C++ that nvcc also compiles: no standard library beyond <cstdint>
// and <cstring>; floating-point steps spelled so that no compiler may fuse
// them (a fused multiply-add would change the last bit of a tolerance).
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define WL_HD __host__ __device__ __forceinline__
#else
#define WL_HD inline
#endif

namespace warplens::verifier::ops {

using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

// Element type codes: the values of verifier::ElementType (element_type.h
// checks that they agree).
enum : u8 {
  kBytes = 0, kF64, kF32, kF16, kBF16, kI8, kU8, kI16, kU16, kI32, kU32, kI64, kU64, kBool,
};

WL_HD int type_size(u8 t) {
  switch (t) {
    case kF64: case kI64: case kU64: return 8;
    case kF32: case kI32: case kU32: return 4;
    case kF16: case kBF16: case kI16: case kU16: return 2;
    default: return 1;
  }
}
WL_HD bool type_is_float(u8 t) { return t == kF64 || t == kF32 || t == kF16 || t == kBF16; }

// IEEE operations that are never contracted into an FMA.
WL_HD double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
WL_HD double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
WL_HD double fabs_(double v) { return v < 0 ? -v : v; }
WL_HD bool isnan_(double v) { return v != v; }
WL_HD bool isinf_(double v) { return !isnan_(v) && isnan_(v - v); }
WL_HD double dbl(u64 bits) {
  double d;
  memcpy(&d, &bits, 8);
  return d;
}
WL_HD u64 bits_of(double d) {
  u64 b;
  memcpy(&b, &d, 8);
  return b;
}
WL_HD double inf_() { return dbl(0x7ff0000000000000ULL); }
WL_HD double qnan_() { return dbl(0x7ff8000000000000ULL); }

// 2^e for integer e within double range.
WL_HD double pow2(int e) { return dbl(static_cast<u64>(e + 1023) << 52); }

WL_HD double half_to_double(u16 h) {
  const int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0) v = static_cast<double>(mant) * pow2(-24);
  else if (exp == 31) v = mant ? qnan_() : inf_();
  else v = static_cast<double>(mant | 0x400) * pow2(exp - 25);
  return sign ? -v : v;
}
WL_HD double bf16_to_double(u16 b) {
  u32 bits = static_cast<u32>(b) << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}
// Through float first: double->float rounds, then float->half rounds to
// nearest even on the float's bits.
WL_HD u16 double_to_half(double v) {
  float f = static_cast<float>(v);
  u32 x;
  memcpy(&x, &f, 4);
  const u16 sign = static_cast<u16>((x >> 16) & 0x8000);
  const u32 abs = x & 0x7fffffff;
  if (abs >= 0x7f800000) return static_cast<u16>(sign | (abs > 0x7f800000 ? 0x7e00 : 0x7c00));
  if (abs >= 0x477ff000) return static_cast<u16>(sign | 0x7c00);  // rounds to >= 65520: inf
  if (abs < 0x33000001) return sign;                              // below half the smallest subnormal
  const int exp = static_cast<int>(abs >> 23);
  const u32 mant = (abs & 0x7fffff) | 0x800000;
  if (exp < 113) {  // subnormal half
    const int shift = 126 - exp;
    u32 m = mant >> shift;
    const u32 rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (m & 1))) ++m;
    return static_cast<u16>(sign | m);
  }
  u32 h = (static_cast<u32>(exp - 112) << 10) | ((mant >> 13) & 0x3ff);
  const u32 rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
  return static_cast<u16>(sign | h);
}
WL_HD u16 double_to_bf16(double v) {
  float f = static_cast<float>(v);
  u32 x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<u16>((x >> 16) | 0x40);  // quiet NaN
  const u32 rounding = 0x7fff + ((x >> 16) & 1);
  return static_cast<u16>((x + rounding) >> 16);
}

template <class T>
WL_HD T load_raw(const u8* p) {
  T v;
  memcpy(&v, p, sizeof(T));
  return v;
}

WL_HD double load(u8 t, const u8* p) {
  switch (t) {
    case kF64: return load_raw<double>(p);
    case kF32: return load_raw<float>(p);
    case kF16: return half_to_double(load_raw<u16>(p));
    case kBF16: return bf16_to_double(load_raw<u16>(p));
    case kI8: return load_raw<std::int8_t>(p);
    case kU8: return load_raw<u8>(p);
    case kI16: return load_raw<std::int16_t>(p);
    case kU16: return load_raw<u16>(p);
    case kI32: return load_raw<std::int32_t>(p);
    case kU32: return load_raw<u32>(p);
    case kI64: return static_cast<double>(load_raw<std::int64_t>(p));
    case kU64: return static_cast<double>(load_raw<u64>(p));
    case kBool: return p[0] ? 1.0 : 0.0;
    default: return p[0];
  }
}
// Floating-point types only (fresh inputs re-draw floats, nothing else).
WL_HD void store_float(u8 t, u8* p, double v) {
  switch (t) {
    case kF64: memcpy(p, &v, 8); break;
    case kF32: {
      float f = static_cast<float>(v);
      memcpy(p, &f, 4);
      break;
    }
    case kF16: {
      u16 h = double_to_half(v);
      memcpy(p, &h, 2);
      break;
    }
    case kBF16: {
      u16 h = double_to_bf16(v);
      memcpy(p, &h, 2);
      break;
    }
    default: break;
  }
}

// --- poison ------------------------------------------------------------------
// A: every byte 0xFF (NaN for every float type). B: a quiet NaN with payload
// 0xa5 for float types, 0xa5 bytes otherwise. No byte of B equals A's.
WL_HD u64 poison_b_pattern(u8 t) {
  switch (t) {
    case kF64: return 0x7ffca5a5a5a5a5a5ULL;
    case kF32: return 0x7fe5a5a5ULL;
    case kF16: return 0x7ea5ULL;
    case kBF16: return 0x7fe5ULL;
    default: return 0xa5a5a5a5a5a5a5a5ULL;
  }
}
// The poison byte at `offset` of an allocation read as (t, phase):
// which = 0 (A) or 1 (B). Bytes before the phase and a trailing partial
// element hold 0xa5 in B.
WL_HD u8 poison_byte(int which, u8 t, u64 phase, u64 bytes, u64 offset) {
  if (which == 0) return 0xff;
  if (!type_is_float(t)) return 0xa5;
  const u64 size = static_cast<u64>(type_size(t));
  if (offset < phase) return 0xa5;
  const u64 k = (offset - phase) / size;
  if (phase + (k + 1) * size > bytes) return 0xa5;
  return static_cast<u8>(poison_b_pattern(t) >> (8 * ((offset - phase) % size)));
}

// --- fresh inputs ------------------------------------------------------------
// splitmix64's finaliser: a fixed, fully specified mixing function.
WL_HD u64 mix64(u64 z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// The k-th random word for element i of a stream: counter-based, so every
// element is drawn independently (and in parallel) from (seed, i, k).
WL_HD u64 draw(u64 seed, u64 i, u64 k) { return mix64(seed ^ mix64(2 * i + k + 0x9e3779b97f4a7c15ULL)); }

// Fresh element i of a floating-point buffer of `count` whole elements: a
// captured element chosen at random times a factor in [0.5, 1.5) (bootstrap
// with jitter: signs, zeros, ranges and special values survive).
WL_HD void redraw_element(u8 t, const u8* captured_elements, u8* out_elements, u64 count, u64 seed, u64 i) {
  const u64 size = static_cast<u64>(type_size(t));
  const u64 j = draw(seed, i, 0) % count;
  const double u = static_cast<double>(draw(seed, i, 1) >> 11) * pow2(-53);
  const double factor = add_rn(0.5, u);
  store_float(t, out_elements + i * size, mul_rn(load(t, captured_elements + j * size), factor));
}

// --- comparison ----------------------------------------------------------------
// An allocation is walked as units: the bytes before the layout's phase,
// whole elements, the trailing bytes (compare.h's BufferLayout). Unit u:
struct Unit {
  u64 offset = 0;
  u64 size = 1;
  u8 type = kBytes;
  u64 index = 0;  // element index for whole elements, byte offset for edge bytes
};
struct UnitGrid {
  u64 bytes = 0, lead = 0, count = 0, size = 1;
  u8 type = kBytes;
  WL_HD u64 units() const { return lead + count + (bytes - lead - count * size); }
  WL_HD Unit unit(u64 u) const {
    Unit r;
    if (u < lead) {
      r.offset = r.index = u;
    } else if (u < lead + count) {
      r.index = u - lead;
      r.offset = lead + r.index * size;
      r.size = size;
      r.type = type;
    } else {
      r.offset = r.index = lead + count * size + (u - lead - count);
    }
    return r;
  }
};
WL_HD UnitGrid unit_grid(u8 type, u64 phase, u64 bytes) {
  UnitGrid g;
  g.bytes = bytes;
  g.type = type;
  g.size = static_cast<u64>(type_size(type));
  g.lead = phase < bytes ? phase : bytes;
  g.count = (bytes - g.lead) / g.size;
  return g;
}

// Problem codes: the values of verifier::Problem.
enum : u8 { kProblemNone = 0, kOutOfTolerance, kNaN, kStrayWrite, kChangedBits };

struct CompareSpec {
  u8 type = kBytes;
  u64 phase = 0;
  u64 bytes = 0;
  double rtol = 0, atol = 0;  // of this type
  u32 nan_equal = 0;
  u32 exact = 0;              // 1: bit-exact (inputs, determinism); 0: values with tolerance
  // Units where `pref` holds the poison `pref_poison` (0 A, 1 B) are ones the
  // reference never wrote: by value, `got` must still hold that poison there
  // (else a stray write); exactly, they are skipped. -1: no such units.
  int pref_poison = -1;
};

struct UnitResult {
  bool counted = false;   // compared (by value or exactly)
  bool fail = false;
  u8 problem = kProblemNone;
  double severity = 0;    // failing units: the worst is reported
  double pass_error = 0;  // passing units: the largest error is reported
  double abs_error = -1;  // >= 0: enters max_abs_error
  double rel_error = -1;  // >= 0: enters max_rel_error
  double magnitude = -1;  // >= 0: |expected| of a finite float compared by value (max_abs_expected)
  u64 stray = 0;          // poison bytes changed
};

// `unit_bytes` points at the unit's own bytes; poison bytes depend on the
// unit's offset in the allocation.
WL_HD bool holds_poison(const CompareSpec& s, const u8* unit_bytes, const Unit& un) {
  for (u64 k = 0; k < un.size; ++k)
    if (unit_bytes[k] != poison_byte(s.pref_poison, s.type, s.phase, s.bytes, un.offset + k)) return false;
  return true;
}

// One unit of `got` against `expected`, given the unit's bytes in each
// (`pref`: see CompareSpec; may be null).
WL_HD UnitResult compare_unit_bytes(const CompareSpec& s, const Unit& un, const u8* e, const u8* g, const u8* p) {
  UnitResult r;
  if (p && s.pref_poison >= 0 && holds_poison(s, p, un)) {
    if (s.exact) return r;  // never written by the reference: skipped
    for (u64 k = 0; k < un.size; ++k)
      if (g[k] != poison_byte(s.pref_poison, s.type, s.phase, s.bytes, un.offset + k)) ++r.stray;
    if (r.stray) {
      r.fail = true;
      r.problem = kStrayWrite;
      r.severity = inf_();
    }
    return r;
  }
  r.counted = true;
  bool same = true;
  for (u64 k = 0; k < un.size; ++k) same = same && e[k] == g[k];
  const bool fl = type_is_float(un.type);
  if (s.exact || !fl) {
    if (same) return r;
    r.fail = true;
    r.problem = kChangedBits;
    if (fl || un.type != kBytes) {
      const double ev = load(un.type, e), gv = load(un.type, g);
      if (!isnan_(ev) && !isnan_(gv) && !isinf_(ev) && !isinf_(gv)) {
        const double d = fabs_(gv - ev);
        r.severity = d;
        if (fl) {
          r.abs_error = d;
          if (ev != 0) r.rel_error = d / fabs_(ev);
        }
      }
    } else {
      r.severity = 1;
    }
    if (s.exact) r.severity = 1;  // exact comparisons report the first difference
    return r;
  }
  const double ev = load(un.type, e), gv = load(un.type, g);
  if (isnan_(ev) || isnan_(gv)) {
    if (s.nan_equal && isnan_(ev) && isnan_(gv)) return r;
    r.fail = true;
    r.problem = kNaN;
    r.severity = inf_();
    return r;
  }
  if (isinf_(ev) || isinf_(gv)) {
    if (ev != gv) {
      r.fail = true;
      r.problem = kOutOfTolerance;
      r.severity = inf_();
    }
    return r;
  }
  const double d = fabs_(gv - ev);
  const double allowed = add_rn(s.atol, mul_rn(s.rtol, fabs_(ev)));
  r.magnitude = fabs_(ev);
  r.abs_error = d;
  if (ev != 0) r.rel_error = d / fabs_(ev);
  if (d > allowed) {
    r.fail = true;
    r.problem = kOutOfTolerance;
    r.severity = d / allowed;
  } else {
    r.pass_error = d;
  }
  return r;
}

// The same over whole buffers.
WL_HD UnitResult compare_unit(const CompareSpec& s, const Unit& un, const u8* expected, const u8* got, const u8* pref) {
  return compare_unit_bytes(s, un, expected + un.offset, got + un.offset, pref ? pref + un.offset : nullptr);
}

// What a comparison adds up to (the kernels reduce into this in device
// memory; doubles are kept as their bits, which order like the values for
// non-negative numbers).
struct CompareStats {
  u64 elements = 0;
  u64 mismatches = 0;
  u64 stray_bytes = 0;
  u64 max_abs_bits = 0;
  u64 max_rel_bits = 0;
  u64 worst_fail_bits = 0;   // the largest failing severity
  u64 worst_pass_bits = 0;   // the largest passing error
  u64 worst_unit = ~0ULL;    // pass 2: the first unit with that severity / error
  u64 max_expected_bits = 0; // the largest |expected| compared by value (a reassociated sum's scale)
};

WL_HD void accumulate(CompareStats& s, const UnitResult& r) {
  if (r.counted) ++s.elements;
  if (r.fail) ++s.mismatches;
  s.stray_bytes += r.stray;
  if (r.abs_error >= 0 && bits_of(r.abs_error) > s.max_abs_bits) s.max_abs_bits = bits_of(r.abs_error);
  if (r.rel_error >= 0 && bits_of(r.rel_error) > s.max_rel_bits) s.max_rel_bits = bits_of(r.rel_error);
  if (r.magnitude >= 0 && bits_of(r.magnitude) > s.max_expected_bits) s.max_expected_bits = bits_of(r.magnitude);
  if (r.fail && bits_of(r.severity) > s.worst_fail_bits) s.worst_fail_bits = bits_of(r.severity);
  if (!r.fail && bits_of(r.pass_error) > s.worst_pass_bits) s.worst_pass_bits = bits_of(r.pass_error);
}

// Pass 2: whether unit result r is the one to report (the first unit with
// the worst failing severity; when nothing failed, the largest error).
WL_HD bool is_worst(const CompareStats& s, const UnitResult& r) {
  if (s.mismatches) return r.fail && bits_of(r.severity) == s.worst_fail_bits;
  return !r.fail && s.worst_pass_bits != 0 && bits_of(r.pass_error) == s.worst_pass_bits;
}

// --- hashing -------------------------------------------------------------------
// Order-independent (a sum of mixed words), so a parallel reduction gives
// the same value as a loop. Integrity only, like capture::content_hash.
WL_HD u64 hash_word(u64 word, u64 index) { return mix64(word ^ mix64(index + 0x632be59bd9b4e019ULL)); }
WL_HD u64 word_at(const u8* p, u64 bytes, u64 w) {
  u64 v = 0;
  const u64 begin = w * 8;
  const u64 n = bytes - begin < 8 ? bytes - begin : 8;
  memcpy(&v, p + begin, n);
  return v;
}

}  // namespace warplens::verifier::ops
