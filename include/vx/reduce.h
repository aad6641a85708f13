/* Row reductions (`row_max`, `row_sum`; docs/compute.md) in one order on
 * every target, so that cpu, vxsim, the CUDA interpreter and a GPU agree bit
 * for bit: the order a warp of 32 threads reduces a row in with shuffles.
 * Lane l folds columns l, l + 32, l + 64, ... in ascending order into its
 * partial (starting from the identity); then five butterfly steps, s = 16,
 * 8, 4, 2, 1, set every lane's partial to op(own, partial of lane l ^ s)
 * (`__shfl_xor_sync`); lane 0's partial is the result. row() computes the
 * same thing lane by lane; a GPU runs it (vx/cuda/compute.h). The max keeps
 * a NaN (jnp.max, unlike fmax), the sum is in f32 (f64 for f64 rows).
 * Header-only C++17. */
#ifndef VX_REDUCE_H
#define VX_REDUCE_H

#include <cmath>
#include <cstdint>

#include "vx/hd.h"

namespace vx::reduce {

inline constexpr unsigned kLanes = 32;

struct Max {
  template <typename W>
  VX_HD static W identity() { return -static_cast<W>(INFINITY); }
  template <typename W>
  VX_HD W operator()(W a, W b) const { return (b != b || b > a) ? b : a; }
};
struct Sum {
  template <typename W>
  VX_HD static W identity() { return W(0); }
  template <typename W>
  VX_HD W operator()(W a, W b) const { return a + b; }
};

/* The reduction of a row of `cols` elements, `at(c)` the c-th widened to W. */
template <typename W, typename Op, typename At>
VX_HD inline W row(uint64_t cols, At at, Op op) {
  W p[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) p[l] = Op::template identity<W>();
  uint64_t c = 0;
  for (; c + kLanes <= cols; c += kLanes)  // whole groups of 32: one column per lane
    for (unsigned l = 0; l < kLanes; ++l) p[l] = op(p[l], at(c + l));
  for (unsigned l = 0; c + l < cols; ++l) p[l] = op(p[l], at(c + l));
  for (unsigned s = kLanes / 2; s > 0; s /= 2) {
    W q[kLanes];
    for (unsigned l = 0; l < kLanes; ++l) q[l] = op(p[l], p[l ^ s]);
    for (unsigned l = 0; l < kLanes; ++l) p[l] = q[l];
  }
  return p[0];
}

}  // namespace vx::reduce

#endif /* VX_REDUCE_H */
