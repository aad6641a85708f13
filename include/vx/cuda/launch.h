/* The host side of an entry of the b200 and h100 targets (docs/b200.md):
 * device memory for the parameters, copies in and out, the launch of the
 * entry's kernel on one block, and every CUDA error reported with the Vx
 * function's name. Under the interpreter the same calls use host memory and
 * run the kernel on the calling thread. Included by vx/cuda/runtime.h. */
#ifndef VX_CUDA_LAUNCH_H
#define VX_CUDA_LAUNCH_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace vx::cu {

/* What the `vxc run` harness keeps across repeats, and what a run leaves:
 * the accumulator of an entry without outputs. */
struct HostArena {};
struct HostInvocation {
  struct Accumulator {
    bool has = false;
    uint64_t sum = 0;
    bool hasAccumulator() const { return has; }
    uint64_t accumulatorChecksum() const { return sum; }
  } mxu;
  HostInvocation() = default;
  explicit HostInvocation(HostArena&) {}
};

class Launch {
 public:
  Launch(HostInvocation& inv, const char* fn) : inv_(inv), fn_(fn) {
    scratch_.header = alloc<Header>(1, "the launch header");
    scratch_.weights = alloc<float>(kMxuFloats, "the matrix unit's weights");
    scratch_.acc = alloc<float>(kMxuFloats, "the matrix unit's accumulator");
    Header h{};
    copyIn(scratch_.header, &h, 1);
  }
  Launch(const Launch&) = delete;
  Launch& operator=(const Launch&) = delete;
  ~Launch() {
    for (void* p : owned_) release(p);
  }

  /* Device memory holding a copy of `n` elements at `host`. */
  template <typename T>
  T* input(const T* host, size_t n) {
    T* d = alloc<T>(n, "a parameter");
    copyIn(d, host, n);
    return d;
  }
  template <typename T>
  void output(T* host, const T* dev, size_t n) {
    copyOut(host, dev, n);
  }

  template <typename... P, typename... A>
  void run(void (*kernel)(Scratch, P...), A... args) {
#if defined(__CUDACC__)
    constexpr size_t smem = kSmemBytes + 128;  // the arena, aligned within the dynamic window
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
          "setting the kernel's shared-memory size");
    kernel<<<1, kThreads, smem>>>(scratch_, args...);
    check(cudaGetLastError(), "launching the kernel");
    check(cudaDeviceSynchronize(), "running the kernel");
#else
    interp::state().begin();
    kernel(scratch_, args...);
#endif
    Header h{};
    copyOut(&h, scratch_.header, 1);
    std::memcpy(result_, h.result, sizeof result_);
    inv_.mxu.has = h.hasAcc != 0;
    if (inv_.mxu.has) {
      std::vector<float> acc(h.rows * h.cols);
      copyOut(acc.data(), scratch_.acc, acc.size());
      inv_.mxu.sum = vx_checksum(acc.data(), acc.size());
    }
  }

  template <typename R>
  R result() const {
    R r;
    std::memcpy(&r, result_, sizeof r);
    return r;
  }

 private:
  [[noreturn]] void fail(const char* what, const char* detail) const {
    std::fflush(stdout);
    std::fprintf(stderr, "error: CUDA error in `%s` while %s: %s\n", fn_, what, detail);
    std::exit(101);
  }
#if defined(__CUDACC__)
  void check(cudaError_t e, const char* what) const {
    if (e != cudaSuccess) fail(what, cudaGetErrorString(e));
  }
#endif
  template <typename T>
  T* alloc(size_t n, const char* what) {
    void* p = nullptr;
    size_t bytes = n * sizeof(T) ? n * sizeof(T) : 16;
#if defined(__CUDACC__)
    check(cudaMalloc(&p, bytes), what);
#else
    p = std::aligned_alloc(128, (bytes + 127) / 128 * 128);
    if (!p) fail(what, "out of memory");
#endif
    owned_.push_back(p);
    return static_cast<T*>(p);
  }
  static void release(void* p) {
#if defined(__CUDACC__)
    cudaFree(p);
#else
    std::free(p);
#endif
  }
  template <typename T>
  void copyIn(T* dev, const T* host, size_t n) {
    if (n == 0) return;
#if defined(__CUDACC__)
    check(cudaMemcpy(dev, host, n * sizeof(T), cudaMemcpyHostToDevice), "copying a parameter in");
#else
    std::memcpy(static_cast<void*>(dev), host, n * sizeof(T));
#endif
  }
  template <typename T>
  void copyOut(T* host, const T* dev, size_t n) {
    if (n == 0) return;
#if defined(__CUDACC__)
    check(cudaMemcpy(host, dev, n * sizeof(T), cudaMemcpyDeviceToHost), "copying a result out");
#else
    std::memcpy(static_cast<void*>(host), dev, n * sizeof(T));
#endif
  }

  HostInvocation& inv_;
  const char* fn_;
  Scratch scratch_{};
  std::vector<void*> owned_;
  unsigned char result_[8] = {};
};

}  // namespace vx::cu

#endif /* VX_CUDA_LAUNCH_H */
