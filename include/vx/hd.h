/* Host/device qualifiers for the headers that both the cpu runtime and the
 * CUDA intrinsic layer (vx/cuda/runtime.h) include: empty for a host
 * compiler, `__host__ __device__` under nvcc. */
#ifndef VX_HD_H
#define VX_HD_H

#if defined(__CUDACC__)
#define VX_HD __host__ __device__
#else
#define VX_HD
#endif

#endif /* VX_HD_H */
