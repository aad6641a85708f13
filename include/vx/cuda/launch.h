/* The host side of an entry of the b200 and h100 targets (docs/b200.md):
 * device memory for the parameters, their tensor maps (vx/cuda/tma.h),
 * copies in and out, the launch of the entry's kernel on one block (a
 * kernel with a grid: one per SM, vx/cuda/grid.h), and every CUDA error
 * reported with the Vx function's name. Under the interpreter the same
 * calls use host memory and run the kernel's blocks on the calling thread.
 * Included by vx/cuda/runtime.h. */
#ifndef VX_CUDA_LAUNCH_H
#define VX_CUDA_LAUNCH_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <type_traits>
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

/* The tensor cores' self-test: acc[130 x 70] = A[130 x 40] @ B[40 x 70] by
 * the same code path as every `mma` (two row tiles, two column tiles, two K
 * chunks, every edge padded), on values whose products and sums are exact
 * in tf32 and f32, so the result must equal the host's exactly. */
namespace selftest {
inline constexpr uint64_t kR = 130, kN = 70, kK = 40;
inline float a(uint64_t r, uint64_t k) { return static_cast<float>(static_cast<int>((r * 7 + k * 3) % 17) - 8) / 8.0f; }
inline float b(uint64_t k, uint64_t n) {
  return static_cast<float>(static_cast<int>((k * 5 + n * 11) % 13) - 6) / 4.0f;
}
/* The second: operands that are not exact in tf32, moved in by bulk copies
 * (`transfer_async` + `wait`, `transfer`) and the product moved out by a
 * bulk store, as a kernel moves them; the result within tf32's error bound
 * (each operand keeps 10 mantissa bits: a product is off by under 2^-9 of
 * its size), 2^-8 of the sum of |a| |b| over k. */
inline float c(uint64_t r, uint64_t k) { return static_cast<float>((r * 37 + k * 11) % 101) / 7.3f - 6.0f; }
inline float d(uint64_t k, uint64_t n) { return static_cast<float>((k * 13 + n * 29) % 89) / 9.7f - 4.5f; }
/* Both self-tests run once per process, before its first launch. */
inline int& runs() {
  static int n = 0;
  return n;
}
}  // namespace selftest

template <int>
VX_GLOBAL void bulkSelfTest(Scratch s, Hbm<float> a, Hbm<float> b, Hbm<float> out) {
  const char* at = "the bulk copies' self-test";
  Invocation inv(s);
  {
    Token<float> ta = transfer_async(inv.arena, a, at);
    Buf<float> va = wait(ta, at);
    ta = {};
    Buf<float> vb = transfer(inv.arena, b, at);
    Buf<float> acc = zeros<float>(inv.arena, selftest::kR * selftest::kN, at);
    mma(inv.tc, acc, va, vb, selftest::kR, selftest::kN, selftest::kK, at);
    va = {};
    vb = {};
    store(acc, out, at);
  }
  inv.finish(at);
}

template <int>
VX_GLOBAL void tensorSelfTest(float* acc, const float* a, const float* b) {
  Invocation inv(Scratch{});
  gemm(inv.tc, acc, a, b, selftest::kR, selftest::kN, selftest::kK, "the tensor cores' self-test");
  sync();
  releaseTensorCore(inv.tc, "the tensor cores' self-test");
}

class Launch {
 public:
  Launch(HostInvocation& inv, const char* fn) : inv_(inv), fn_(fn) {
#if !defined(__CUDACC__)
    interp::state().hbm().clear();
#endif
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

  /* Device memory holding a copy of `n` elements at `host`: parameter
   * `name`, rows of `cols` elements, whose elements the interpreter holds a
   * grid's instances to (vx/cuda/interpret_grid.h). */
  template <typename T>
  T* input(const T* host, size_t n, const char* name = nullptr, uint64_t cols = 0) {
    T* d = alloc<T>(n, "a parameter");
    copyIn(d, host, n);
#if !defined(__CUDACC__)
    if (name) interp::state().hbm().add(d, n * sizeof(T), sizeof(T), cols, name);
#else
    (void)name, (void)cols;
#endif
    return d;
  }

  /* The tensor maps of a parameter: `rows` x `cols` elements at `dev`, a
   * map per box of `boxes` (and, for f32 boxes of 32 columns, one that
   * lands in the tensor cores' swizzle), in device memory; null when none
   * can be encoded (its blocks then move row by row). */
  template <typename T>
  const tma::Maps* maps(const T* dev, uint64_t rows, uint64_t cols, std::initializer_list<tma::Box> boxes) {
    tma::Maps h{};
    h.base = dev;
    h.rows = rows;
    h.cols = cols;
    h.elemBytes = sizeof(T);
    auto add = [&](tma::Box b, tma::Swizzle s) {
      if (h.count == tma::kMaxMaps) return;
      tma::Entry& e = h.entries[h.count];
      if (!tma::encode(e.map, dev, sizeof(T), rows, cols, b, s)) return;
      e.boxRows = b.rows;
      e.boxCols = b.cols;
      e.swizzle = s;
      ++h.count;
    };
    for (tma::Box b : boxes) {
      add(b, tma::Swizzle::None);
      if (std::is_same_v<T, float> && b.cols * sizeof(T) == tc::kRowBytes && b.rows % 8 == 0) add(b, tma::Swizzle::B128);
    }
    if (h.count == 0) return nullptr;
    tma::Maps* d = alloc<tma::Maps>(1, "a parameter's tensor maps");
    copyIn(d, &h, 1);
    return d;
  }
  template <typename T>
  void output(T* host, const T* dev, size_t n) {
    copyOut(host, dev, n);
  }

  /* A kernel without a grid: one block. */
  template <typename... P, typename... A>
  void run(void (*kernel)(Scratch, P...), A... args) {
    launch(1, false, kernel, args...);
  }
  /* A kernel with a grid: the persistent grid of vx/cuda/grid.h, one block
   * per SM (under the interpreter $VX_CTAS, else 3, so that a block runs
   * several instances and blocks interleave). `matrixUnit`: its instances
   * use the latched-weights unit, which then gets its cells per block. */
  template <typename... P, typename... A>
  void runGrid(bool matrixUnit, void (*kernel)(Scratch, P...), A... args) {
    launch(gridBlocks(), matrixUnit, kernel, args...);
  }

 private:
  unsigned gridBlocks() {
#if defined(__CUDACC__)
    int dev = 0, sms = 0;
    check(cudaGetDevice(&dev), "finding the GPU");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "counting the GPU's SMs");
    return sms > 0 ? static_cast<unsigned>(sms) : 1u;
#else
    const char* env = std::getenv("VX_CTAS");
    const unsigned long n = env && *env ? std::strtoul(env, nullptr, 10) : 3;
    return n >= 1 && n <= 64 ? static_cast<unsigned>(n) : 3u;
#endif
  }

  template <typename... P, typename... A>
  void launch(unsigned blocks, bool perBlockMatrixUnit, void (*kernel)(Scratch, P...), A... args) {
    // Once per process, whatever kernel comes first (a static here would be
    // one per instance of this template: one per kernel signature).
    if (selftest::runs() == 0) {
      ++selftest::runs();
      checkTensorCores();
      checkBulkRoundTrip();
    }
    Scratch s = scratch_;
    if (perBlockMatrixUnit) {
      s.weights = alloc<float>(size_t{blocks} * kMxuFloats, "the matrix units' weights");
      s.acc = alloc<float>(size_t{blocks} * kMxuFloats, "the matrix units' accumulators");
      s.perCta = true;
    }
#if defined(__CUDACC__)
    constexpr size_t smem = kDynamicSmemBytes;
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
          "setting the kernel's shared-memory size");
    // $VX_KERNEL_TIME: the kernel's own time on stdout (the entry's time
    // includes the launcher's copies; scripts/gpu-check.sh reads both).
    const bool timed = std::getenv("VX_KERNEL_TIME") != nullptr;
    cudaEvent_t start{}, stop{};
    if (timed) {
      check(cudaEventCreate(&start), "timing the kernel");
      check(cudaEventCreate(&stop), "timing the kernel");
      check(cudaEventRecord(start), "timing the kernel");
    }
    kernel<<<blocks, kThreads, smem>>>(s, args...);
    check(cudaGetLastError(), "launching the kernel");
    if (timed) check(cudaEventRecord(stop), "timing the kernel");
    check(cudaDeviceSynchronize(), "running the kernel");
    if (timed) {
      float ms = 0.0f;
      check(cudaEventElapsedTime(&ms, start, stop), "timing the kernel");
      std::printf("kernel_us = %.3f\n", static_cast<double>(ms) * 1000.0);
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
    }
#else
    interp::state().begin(blocks);
    if (blocks == 1) kernel(s, args...);
    else interp::state().runCtas([&](unsigned) { kernel(s, args...); });
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

 public:
  template <typename R>
  R result() const {
    R r;
    std::memcpy(&r, result_, sizeof r);
    return r;
  }

 private:
  /* A rows x cols self-test operand, row-major, element (i, j) = f(i, j). */
  static std::vector<float> operand(uint64_t rows, uint64_t cols, float (*f)(uint64_t, uint64_t)) {
    std::vector<float> v(rows * cols);
    for (uint64_t i = 0; i < rows; ++i)
      for (uint64_t j = 0; j < cols; ++j) v[i * cols + j] = f(i, j);
    return v;
  }

  /* Once per process, before the first launch: the tensor cores compute
   * what the host does, or the run stops rather than return wrong numbers. */
  void checkTensorCores() {
    using namespace selftest;
    std::vector<float> ha = operand(kR, kK, selftest::a), hb = operand(kK, kN, selftest::b);
    std::vector<float> want(kR * kN, 0.0f), got(kR * kN);
    for (uint64_t r = 0; r < kR; ++r)
      for (uint64_t n = 0; n < kN; ++n)
        for (uint64_t k = 0; k < kK; ++k) want[r * kN + n] += ha[r * kK + k] * hb[k * kN + n];
    float* da = input(ha.data(), ha.size());
    float* db = input(hb.data(), hb.size());
    float* dacc = input(std::vector<float>(kR * kN, 0.0f).data(), kR * kN);
#if defined(__CUDACC__)
    constexpr size_t smem = kDynamicSmemBytes;
    check(cudaFuncSetAttribute(tensorSelfTest<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
          "setting the self-test's shared-memory size");
    tensorSelfTest<0><<<1, kThreads, smem>>>(dacc, da, db);
    check(cudaGetLastError(), "launching the tensor cores' self-test");
    check(cudaDeviceSynchronize(), "running the tensor cores' self-test");
#else
    interp::state().begin();
    tensorSelfTest<0>(dacc, da, db);
    interp::state().finish("the tensor cores' self-test");
#endif
    output(got.data(), dacc, got.size());
    for (uint64_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i]) {
        char detail[256];
        std::snprintf(detail, sizeof detail,
                      "element (%llu, %llu) of a %llux%llux%llu product is %g where the host computes %g; "
                      "the matrix lowering of this build is wrong here, so no kernel runs",
                      static_cast<unsigned long long>(i / kN), static_cast<unsigned long long>(i % kN),
                      static_cast<unsigned long long>(kR), static_cast<unsigned long long>(kN),
                      static_cast<unsigned long long>(kK), static_cast<double>(got[i]), static_cast<double>(want[i]));
        fail("checking the tensor cores", detail);
      }
  }

  /* Bulk copies in, the tensor cores on operands tf32 rounds, a bulk store
   * out: within the bound above, or the run stops. */
  void checkBulkRoundTrip() {
    using namespace selftest;
    std::vector<float> ha = operand(kR, kK, selftest::c), hb = operand(kK, kN, selftest::d);
    std::vector<float> want(kR * kN, 0.0f), bound(kR * kN, 0.0f), got(kR * kN);
    for (uint64_t r = 0; r < kR; ++r)
      for (uint64_t n = 0; n < kN; ++n)
        for (uint64_t k = 0; k < kK; ++k) {
          double p = static_cast<double>(ha[r * kK + k]) * static_cast<double>(hb[k * kN + n]);
          want[r * kN + n] += static_cast<float>(p);
          bound[r * kN + n] += static_cast<float>(p < 0 ? -p : p);
        }
    Hbm<float> da{input(ha.data(), ha.size()), ha.size()};
    Hbm<float> db{input(hb.data(), hb.size()), hb.size()};
    std::vector<float> sentinel(kR * kN, -12345.0f);  // what a store that never lands leaves
    Hbm<float> dout{input(sentinel.data(), sentinel.size()), sentinel.size()};
#if defined(__CUDACC__)
    constexpr size_t smem = kDynamicSmemBytes;
    check(cudaFuncSetAttribute(bulkSelfTest<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
          "setting the bulk self-test's shared-memory size");
    bulkSelfTest<0><<<1, kThreads, smem>>>(scratch_, da, db, dout);
    check(cudaGetLastError(), "launching the bulk copies' self-test");
    check(cudaDeviceSynchronize(), "running the bulk copies' self-test");
#else
    interp::state().begin();
    bulkSelfTest<0>(scratch_, da, db, dout);
#endif
    output(got.data(), dout.data, got.size());
    for (uint64_t i = 0; i < got.size(); ++i) {
      float err = got[i] > want[i] ? got[i] - want[i] : want[i] - got[i];
      if (!(err <= bound[i] / 256.0f + 1e-6f)) {  // also a NaN
        char detail[320];
        std::snprintf(detail, sizeof detail,
                      "element (%llu, %llu) of a %llux%llux%llu product moved by bulk copies is %g where the host "
                      "computes %g (tolerance %g); the copies or the matrix lowering of this build are wrong here, "
                      "so no kernel runs",
                      static_cast<unsigned long long>(i / kN), static_cast<unsigned long long>(i % kN),
                      static_cast<unsigned long long>(kR), static_cast<unsigned long long>(kN),
                      static_cast<unsigned long long>(kK), static_cast<double>(got[i]), static_cast<double>(want[i]),
                      static_cast<double>(bound[i] / 256.0f + 1e-6f));
        fail("checking bulk copies and the tensor cores", detail);
      }
    }
  }

  [[noreturn]] void fail(const char* what, const char* detail) const {
    std::fflush(stdout);
    std::fprintf(stderr, "error: CUDA error in `%s` while %s: %s\n", fn_, what, detail);
    std::exit(101);
  }
#if defined(__CUDACC__)
  void check(cudaError_t e, const char* what) const {
    if (e == cudaSuccess) return;
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorSystemDriverMismatch ||
        e == cudaErrorInitializationError) {
      std::string detail = std::string(cudaGetErrorString(e)) +
                           "; no usable GPU here: `vxc run --interpret` runs the same CUDA source on the CPU";
      fail(what, detail.c_str());
    }
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorUnsupportedPtxVersion) {
      std::string detail = std::string(cudaGetErrorString(e)) +
                           "; the GPU here is not the one this was built for (`--target b200`: sm_100a, "
                           "`--target h100`: sm_90a)";
      fail(what, detail.c_str());
    }
    fail(what, cudaGetErrorString(e));
  }
#endif
  template <typename T>
  T* alloc(size_t n, const char* what) {
    void* p = nullptr;
    size_t bytes = n * sizeof(T) != 0 ? n * sizeof(T) : 16;
#if defined(__CUDACC__)
    check(cudaMalloc(&p, bytes), (std::string("allocating ") + what).c_str());
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
