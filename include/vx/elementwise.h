/* Elementwise ops on VMEM buffers: `+ - *`, relu, scale. Each result is a new
 * buffer of the arena (the operands may still be borrowed elsewhere).
 * Header-only C++17. */
#ifndef VX_ELEMENTWISE_H
#define VX_ELEMENTWISE_H

#include "vx/memory.h"

namespace vx::rt {

template <typename T, typename F>
inline Buf<T> map2(Arena& arena, const Buf<T>& a, const Buf<T>& b, const char* at, F f) {
  Buf<T> r = allocate<T>(arena, a.n, at);
  for (uint64_t i = 0; i < a.n; ++i) r.data[i] = f(static_cast<float>(a.data[i]), static_cast<float>(b.data[i]));
  return r;
}

template <typename T>
inline Buf<T> add(Arena& arena, const Buf<T>& a, const Buf<T>& b, const char* at) {
  return map2(arena, a, b, at, [](float x, float y) { return x + y; });
}
template <typename T>
inline Buf<T> sub(Arena& arena, const Buf<T>& a, const Buf<T>& b, const char* at) {
  return map2(arena, a, b, at, [](float x, float y) { return x - y; });
}
template <typename T>
inline Buf<T> mul(Arena& arena, const Buf<T>& a, const Buf<T>& b, const char* at) {
  return map2(arena, a, b, at, [](float x, float y) { return x * y; });
}
inline Buf<double> add(Arena& arena, const Buf<double>& a, const Buf<double>& b, const char* at) {
  Buf<double> r = allocate<double>(arena, a.n, at);
  for (uint64_t i = 0; i < a.n; ++i) r.data[i] = a.data[i] + b.data[i];
  return r;
}
inline Buf<double> sub(Arena& arena, const Buf<double>& a, const Buf<double>& b, const char* at) {
  Buf<double> r = allocate<double>(arena, a.n, at);
  for (uint64_t i = 0; i < a.n; ++i) r.data[i] = a.data[i] - b.data[i];
  return r;
}
inline Buf<double> mul(Arena& arena, const Buf<double>& a, const Buf<double>& b, const char* at) {
  Buf<double> r = allocate<double>(arena, a.n, at);
  for (uint64_t i = 0; i < a.n; ++i) r.data[i] = a.data[i] * b.data[i];
  return r;
}

template <typename T>
inline Buf<T> relu(Arena& arena, const Buf<T>& x, const char* at) {
  Buf<T> r = allocate<T>(arena, x.n, at);
  for (uint64_t i = 0; i < x.n; ++i) {
    T v = x.data[i];
    r.data[i] = static_cast<float>(v) > 0.0f ? v : T(0.0f);
  }
  return r;
}

template <typename T>
inline Buf<T> scale(Arena& arena, const Buf<T>& x, float s, const char* at) {
  Buf<T> r = allocate<T>(arena, x.n, at);
  for (uint64_t i = 0; i < x.n; ++i) r.data[i] = static_cast<T>(static_cast<float>(x.data[i]) * s);
  return r;
}

}  // namespace vx::rt

#endif /* VX_ELEMENTWISE_H */
