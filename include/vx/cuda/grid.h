/* The launch grid of the b200 and h100 targets (`parallel (i, j) in [e0,
 * e1]`, grid.md §3; docs/b200.md "Grids"): a persistent grid. The launcher
 * starts one CTA per SM (several under the interpreter); every CTA runs the
 * kernel's scalar set-up, then instances flat = blockIdx.x, blockIdx.x +
 * gridDim.x, ... below the product of the extents, each with the CTA's
 * whole shared memory, tensor memory and a fresh matrix unit. The extents
 * are computed by the kernel (`m / BM`), which the host never evaluates:
 * a CTA per instance would need them before the launch. Included by
 * vx/cuda/runtime.h after the invocation. */
#ifndef VX_CUDA_GRID_H
#define VX_CUDA_GRID_H

namespace vx::cu {

inline constexpr unsigned kMaxGridDims = 8;

/* The CTA this is, and how many the launch has. */
VX_HD inline uint64_t ctaIndex() {
#if defined(__CUDA_ARCH__)
  return blockIdx.x;
#elif defined(__CUDACC__)
  return 0;
#else
  return interp::state().cta();
#endif
}
VX_HD inline uint64_t ctaCount() {
#if defined(__CUDA_ARCH__)
  return gridDim.x;
#elif defined(__CUDACC__)
  return 1;
#else
  return interp::state().ctaCount();
#endif
}

/* Runs body(inv, idx) for every index tuple below `ext` (`n` of them) that
 * falls to this CTA, idx the instance's indices (the last fastest, as on
 * the cpu). Instances run one after another on the CTA, each ending with
 * every copy waited and every buffer returned (E6003, and buffers are
 * dropped at their last use), so the next starts on an empty arena. */
template <typename F>
VX_HD inline void parallel_for(Invocation& inv, const uint64_t* ext, unsigned n, F&& body, const char* at) {
  if (n > kMaxGridDims) trap("a grid of more than 8 indices", at);
  uint64_t total = 1;
  for (unsigned d = 0; d < n; ++d) {
    if (ext[d] != 0 && total > ~uint64_t{0} / ext[d]) trap("a grid of more than 2^64 instances", at);
    total *= ext[d];
  }
#if !defined(__CUDACC__)
  interp::state().gridBegin(ext, n);
#endif
  const MatrixUnit outer = inv.mxu;  // the kernel's own, which instances do not share
  uint64_t idx[kMaxGridDims] = {};
  for (uint64_t flat = ctaIndex(); flat < total; flat += ctaCount()) {
    uint64_t k = flat;
    for (unsigned d = n; d-- > 0;) {
      idx[d] = k % ext[d];
      k /= ext[d];
    }
    inv.beginInstance(flat, ctaIndex());
    body(inv, static_cast<const uint64_t*>(idx));
    inv.endInstance(at);
  }
  inv.mxu = outer;
}

}  // namespace vx::cu

#endif /* VX_CUDA_GRID_H */
