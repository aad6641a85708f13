/* Global memory (HBM) of the b200 and h100 targets: tensors, Vecs of
 * tensors, and blocks of row-major tensors (grid.md §2), as the cpu
 * runtime's vx/memory.h has them. A block is a strided view: `n / cols`
 * rows of `cols` elements, `stride` elements apart. A view remembers the
 * tensor maps of the parameter it views (vx/cuda/tma.h), through which its
 * blocks are copied. Included by vx/cuda/runtime.h after the block's
 * helpers (touch, check_index, detail_store_one). */
#ifndef VX_CUDA_HBM_H
#define VX_CUDA_HBM_H

namespace vx::cu {

namespace tma {
struct Maps;
}

/* A tensor in global memory: `n` elements at `data`, or a block of one. */
template <typename T>
struct Hbm {
  T* data = nullptr;
  uint64_t n = 0;
  /* A block: its row length, and the distance between its rows in
   * elements (0: one run, contiguous). Plain tensors leave both 0. */
  uint64_t cols = 0, stride = 0;
  const tma::Maps* maps = nullptr;  // the tensor maps of the parameter this views, if any

  VX_HD bool strided() const { return stride != 0 && stride != cols; }
  VX_HD uint64_t rows() const { return strided() ? n / cols : 1; }
  VX_HD uint64_t rowElems() const { return strided() ? cols : n; }
  VX_HD uint64_t rowStride() const { return strided() ? stride : n; }
  /* Element i of the view (row-major over its rows). */
  VX_HD T* at(uint64_t i) const { return strided() ? data + (i / cols) * stride + i % cols : data + i; }

  /* Sub-tensor `i` of `count` along the leading dimension. */
  VX_HD Hbm slot(uint64_t i, uint64_t count, const char* at) const {
    check_index(i, count, at);
    uint64_t sub = n / count;
    if (!strided()) return Hbm{data + i * sub, sub, 0, 0, maps};
    uint64_t rowsPer = sub / cols;
    return Hbm{data + i * rowsPer * stride, sub, cols, rowsPer > 1 ? stride : 0, maps};
  }
  VX_HD T load(uint64_t i, const char* where) const {
    check_index(i, n, where);
    touch(at(i), sizeof(T), false, where);
    return *at(i);
  }
  VX_HD void store(uint64_t i, T v, const char* where) const {
    check_index(i, n, where);
    touch(at(i), sizeof(T), true, where);
    detail_store_one(at(i), v);
  }
};

/* `block::<[R, C]>(src, r, c)`: rows r..r+R, columns c..c+C of `src`, a
 * `rows` x `cols` tensor (or a block of one). `checked`: the checker did not
 * prove it in bounds, so it is checked here. The view keeps `cols = C` even
 * when it is one run (C spans whole rows), so a copy knows its box. */
template <typename T>
VX_HD inline Hbm<T> block(const Hbm<T>& src, uint64_t r, uint64_t c, uint64_t R, uint64_t C, uint64_t rows,
                          uint64_t cols, bool checked, const char* at) {
  if (checked && (r > rows || R > rows - r || c > cols || C > cols - c)) {
#if defined(__CUDA_ARCH__)
    printf("error: runtime trap: block out of bounds: rows %llu..%llu and columns %llu..%llu of a %llu x %llu tensor "
           "at %s\n",
           (unsigned long long)r, (unsigned long long)(r + R), (unsigned long long)c, (unsigned long long)(c + C),
           (unsigned long long)rows, (unsigned long long)cols, at);
    __trap();
#else
    char what[192];
    std::snprintf(what, sizeof what,
                  "block out of bounds: rows %llu..%llu and columns %llu..%llu of a %llu x %llu tensor",
                  (unsigned long long)r, (unsigned long long)(r + R), (unsigned long long)c,
                  (unsigned long long)(c + C), (unsigned long long)rows, (unsigned long long)cols);
    trap(what, at);
#endif
  }
  uint64_t stride = src.strided() ? src.stride : cols;
  return Hbm<T>{src.data + r * stride + c, R * C, C, R > 1 ? stride : 0, src.maps};
}

/* A Vec of tensors in global memory, back to back. */
template <typename T>
struct Vec {
  T* data = nullptr;
  uint64_t len = 0;
  uint64_t elems = 0;  // per tensor
  const tma::Maps* maps = nullptr;
  VX_HD Hbm<T> get(uint64_t i, const char* at) const {
    check_index(i, len, at);
    return Hbm<T>{data + i * elems, elems, 0, 0, maps};
  }
};

template <typename T>
VX_HD inline CopyShape fromHbm(const Hbm<T>& src) {
  return CopyShape{src.rows(), src.rowElems() * sizeof(T), src.rowStride() * sizeof(T), src.rowElems() * sizeof(T)};
}
template <typename T>
VX_HD inline CopyShape toHbm(const Hbm<T>& dst) {
  return CopyShape{dst.rows(), dst.rowElems() * sizeof(T), dst.rowElems() * sizeof(T), dst.rowStride() * sizeof(T)};
}

/* Program accesses of the rows of a copy (the interpreter checks each). */
VX_HD inline void touchRows(const void* p, const CopyShape& s, bool src, bool write, const char* at) {
  const auto* c = static_cast<const unsigned char*>(p);
  const uint64_t stride = src ? s.srcStride : s.dstStride;
  if (s.rows == 1 || stride == s.rowBytes) {
    touch(c, s.bytes(), write, at);
    return;
  }
  for (uint64_t r = 0; r < s.rows; ++r) touch(c + r * stride, s.rowBytes, write, at);
}

}  // namespace vx::cu

#endif /* VX_CUDA_HBM_H */
