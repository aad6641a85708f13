/* `dbg(x)` (language.md §5, docs/compute.md): the line every target prints,
 * written once here for the cpu runtime, the CUDA layer (host interpreter
 * and device) and vxsim, so that one program prints the same text on each:
 *
 *   file:line: <expression> = 42
 *   file:line: <expression> = f32[4, 8] {0.5, 1, 2, 3, 4, 5, 6, 7, ...} sum 123.5
 *
 * Integers in decimal, bools as true/false, floats and elements with %g (six
 * significant digits), the sum of every element in f64, in row-major order,
 * with %.9g. The first kFirst elements are shown. The host writes each line
 * with one call (lines of concurrent grid instances do not interleave); a
 * GPU prints with the device's printf, on standard output, when the kernel
 * ends. Header-only C++17. */
#ifndef VX_DEBUG_H
#define VX_DEBUG_H

#include <cstdint>
#include <cstdio>

#include "vx/hd.h"

namespace vx::dbg {

inline constexpr uint64_t kFirst = 8;

#if defined(__CUDA_ARCH__)
/* Device: piece by piece through printf (one thread of the block prints). */
struct Line {
  template <typename... A>
  __device__ void put(const char* fmt, A... a) { printf(fmt, a...); }
  __device__ void end() {}
};
#else
/* Host: the line in a buffer, written to standard error at once. */
struct Line {
  char buf[1024];
  int len = 0;
  template <typename... A>
  void put(const char* fmt, A... a) {
    if (len >= static_cast<int>(sizeof buf) - 1) return;
    int n = std::snprintf(buf + len, sizeof buf - static_cast<size_t>(len), fmt, a...);
    if (n > 0) len = len + n < static_cast<int>(sizeof buf) - 1 ? len + n : static_cast<int>(sizeof buf) - 1;
  }
  void end() {
    if (len > 0 && buf[len - 1] != '\n') buf[len++] = '\n';
    std::fwrite(buf, 1, static_cast<size_t>(len), stderr);
    std::fflush(stderr);
  }
};
#endif

VX_HD inline void print_int(const char* label, long long v) {
  Line l;
  l.put("%s = %lld\n", label, v);
  l.end();
}
VX_HD inline void print_uint(const char* label, unsigned long long v) {
  Line l;
  l.put("%s = %llu\n", label, v);
  l.end();
}
VX_HD inline void print_bool(const char* label, bool v) {
  Line l;
  l.put("%s = %s\n", label, v ? "true" : "false");
  l.end();
}
VX_HD inline void print_float(const char* label, double v) {
  Line l;
  l.put("%s = %g\n", label, v);
  l.end();
}

/* A tensor of n elements, `at(i)` the i-th (row-major) widened to double;
 * `type` its element type and shape (`f32[4, 8]`). */
template <typename At>
VX_HD inline void print_tensor(const char* label, const char* type, uint64_t n, At at) {
  double sum = 0;
  for (uint64_t i = 0; i < n; ++i) sum += at(i);
  Line l;
  l.put("%s = %s {", label, type);
  for (uint64_t i = 0; i < n && i < kFirst; ++i) l.put(i ? ", %g" : "%g", at(i));
  l.put(n > kFirst ? ", ...} sum %.9g\n" : "} sum %.9g\n", sum);
  l.end();
}

}  // namespace vx::dbg

#endif /* VX_DEBUG_H */
