/* The block of the b200 and h100 targets: which thread this is, block-wide
 * barriers, accesses the interpreter checks, index checks. Included by
 * vx/cuda/runtime.h after the definitions it needs (VX_HD, trap, the
 * interpreter). */
#ifndef VX_CUDA_BLOCK_H
#define VX_CUDA_BLOCK_H

namespace vx::cu {

/* ---- the block: which thread this is, block-wide barriers ---- */

VX_HD inline unsigned lane() {
#if defined(__CUDA_ARCH__)
  return threadIdx.x;
#else
  return 0;
#endif
}
VX_HD inline unsigned lanes() {
#if defined(__CUDA_ARCH__)
  return blockDim.x;
#else
  return 1;
#endif
}
/* A block-wide barrier; under the interpreter, a point where copies land. */
VX_HD inline void sync() {
#if defined(__CUDA_ARCH__)
  __syncthreads();
#elif !defined(__CUDACC__)
  interp::state().progress();
#endif
}
/* An access of [p, p + bytes) by the program (the interpreter checks it
 * against the copies in flight). */
VX_HD inline void touch([[maybe_unused]] const void* p, [[maybe_unused]] uint64_t bytes,
                        [[maybe_unused]] bool write, [[maybe_unused]] const char* at) {
#if !defined(__CUDA_ARCH__) && !defined(__CUDACC__)
  interp::state().access(p, bytes, write, at);
#endif
}

VX_HD inline void check_index(uint64_t i, uint64_t n, const char* at) {
  if (i >= n) {
#if defined(__CUDA_ARCH__)
    printf("error: runtime trap: index out of bounds: the len is %llu but the index is %llu at %s\n",
           static_cast<unsigned long long>(n), static_cast<unsigned long long>(i), at);
    __trap();
#else
    char what[96];
    std::snprintf(what, sizeof what, "index out of bounds: the len is %llu but the index is %llu",
                  static_cast<unsigned long long>(n), static_cast<unsigned long long>(i));
    trap(what, at);
#endif
  }
}

}  // namespace vx::cu

#endif /* VX_CUDA_BLOCK_H */
