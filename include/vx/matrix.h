/* The matrix unit of one invocation (language brief §5): an f32 accumulator
 * ACC, latched weights W (identity until `load_weights`), and `mma` on
 * explicit buffers. All run the cache-blocked kernel of gemm.h.
 * Header-only C++17. */
#ifndef VX_MATRIX_H
#define VX_MATRIX_H

#include <cstdio>
#include <vector>

#include "vx/data.h"
#include "vx/gemm.h"
#include "vx/memory.h"

namespace vx::rt {

class MatrixUnit {
 public:
  template <typename T>
  void load_weights(const Buf<T>& w, uint64_t K, uint64_t N) {
    // Latching copies (and packs) W, as a systolic array's weight load does:
    // later writes to the buffer do not change W.
    weights_ = gemm::packB(w.data, N, K, N);
    hasWeights_ = true;
  }

  template <typename T>
  void matmul_acc(const Buf<T>& x, uint64_t R, uint64_t K, const char* at) {
    if (hasWeights_ && weights_.K != K) {
      char what[128];
      std::snprintf(what, sizeof what, "matmul_acc: x has %llu columns but the latched weights have %llu rows",
                    static_cast<unsigned long long>(K), static_cast<unsigned long long>(weights_.K));
      trap(what, at);
    }
    uint64_t N = hasWeights_ ? weights_.N : K;
    shapeAcc(R, N, at);
    if (!hasWeights_) {  // W = identity: ACC += x
      addInto(acc_.data(), x.data, R * K);
      return;
    }
    gemm::gemmPacked(R, x.data, K, weights_, acc_.data(), N);
  }

  /* a[0..n) += b[0..n), through restrict parameters: as a loop over the
   * member vector inlined into a kernel, GCC kept the loop's vectors on
   * the stack in some contexts (the stream's baseline ran 20% slower;
   * bench/README.md "cpu", session 38). */
  template <typename U>
  static void addInto(float* __restrict a, const U* __restrict b, uint64_t n) {
    if constexpr (std::is_same_v<U, float>) {
      gemm::addFloats(a, b, n);  // at the widest vectors the CPU has
    } else {
      for (uint64_t i = 0; i < n; ++i) a[i] += static_cast<float>(b[i]);
    }
  }

  void store_acc(const Hbm<float>& dst, uint64_t R, uint64_t N, const char* at) {
    if (!accShaped_) {
      for (uint64_t r = 0, rows = dst.rows(); r < rows; ++r)
        std::memset(dst.data + r * dst.rowStride(), 0, dst.rowElems() * sizeof(float));
      return;
    }
    if (rows_ != R || cols_ != N) trap("store_acc: the destination's shape is not the accumulator's", at);
    copyBytes(dst.data, acc_.data(), toHbm(dst));
    accShaped_ = false;  // zeroed; the next use may reshape it
  }

  /* For `vxc run` on an entry without outputs: the accumulator is its result. */
  bool hasAccumulator() const { return accShaped_; }
  uint64_t accumulatorChecksum() const { return vx_checksum(acc_.data(), rows_ * cols_); }

 private:
  void shapeAcc(uint64_t R, uint64_t N, const char* at) {
    if (accShaped_) {
      if (rows_ != R || cols_ != N) trap("matmul_acc: the result's shape is not the accumulator's", at);
      return;
    }
    rows_ = R;
    cols_ = N;
    acc_.assign(R * N, 0.0f);
    accShaped_ = true;
  }

  std::vector<float> acc_;
  uint64_t rows_ = 0, cols_ = 0;
  bool accShaped_ = false;
  gemm::PackedB weights_;
  bool hasWeights_ = false;
};

/* acc[R x N] += a[R x K] @ b[K x N] */
template <typename T>
inline void mma(const Buf<float>& acc, const Buf<T>& a, const Buf<T>& b, uint64_t R, uint64_t N, uint64_t K) {
  gemm::gemm(R, N, K, a.data, K, b.data, N, acc.data, N);
}

}  // namespace vx::rt

#endif /* VX_MATRIX_H */
