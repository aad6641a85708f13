/* Tensor maps of the b200 and h100 targets (docs/b200.md, "Blocks and
 * tensor maps"): how a block of a row-major tensor is copied by the Tensor
 * Memory Accelerator. The launcher encodes, per tensor parameter, a 2-D map
 * (its rows x its last dimension) for each box shape the kernel's blocks
 * use, with `cuTensorMapEncodeTiled` found at run time through
 * `cudaGetDriverEntryPointByVersion` (the binary does not link the driver
 * library, so it starts without one), and hands the kernel a table of them
 * in global memory. The kernel picks the map of a copy's box and issues
 * `cp.async.bulk.tensor.2d` with the block's coordinates (vx/cuda/copies.h).
 *
 * Under the interpreter a map holds the encode's arguments instead of the
 * driver's opaque bytes; the interpreter refuses what the driver would and
 * lands a tensor copy as the hardware does: the box's rows, zeros for
 * elements outside the tensor, and the 128-byte swizzle when the map asks
 * for it. Host and device, header-only C++17. */
#ifndef VX_CUDA_TMA_H
#define VX_CUDA_TMA_H

#include <cstdint>
#include <cstring>

#include "vx/hd.h"

#if defined(__CUDACC__)
#include <cuda.h>  // CUtensorMap and the encode's enums: declarations only
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#endif

namespace vx::cu::tma {

inline constexpr uint32_t kMaxMaps = 8;   // box shapes (and swizzles) per tensor
inline constexpr uint32_t kMaxBox = 256;  // elements per box dimension

enum class Swizzle : uint32_t {
  None = 0,  // the box lands row-major, as Vx buffers are
  B128 = 1,  // 128-byte rows land in the tensor cores' swizzled layout (vx/cuda/layout.h)
};

/* One encoded map: the driver's opaque CUtensorMap (128 bytes, aligned to
 * 128 as cuda.h declares it), or under the interpreter a Desc. */
struct alignas(128) Map {
  unsigned char bytes[128];
};

/* What an interpreter's map holds: the arguments of the encode. */
struct Desc {
  uint64_t magic;
  uint64_t base;      // global address of element [0, 0]
  uint64_t dims[2];   // elements: columns (the inner dimension), rows
  uint64_t rowBytes;  // the stride between rows
  uint32_t box[2];    // columns, rows
  uint32_t elemBytes;
  uint32_t swizzle;   // Swizzle
};
static_assert(sizeof(Desc) <= sizeof(Map), "an interpreter's map fits a CUtensorMap");
inline constexpr uint64_t kMagic = 0x7061'6d2d'7478'762eull;

struct Entry {
  uint32_t boxRows = 0, boxCols = 0;
  Swizzle swizzle = Swizzle::None;
  uint32_t pad = 0;
  Map map;
};

/* The maps of one parameter, in global memory: its 2-D view (`rows`: every
 * dimension but the last, times a Vec's length; `cols`: the last) and a map
 * per box shape its kernel's blocks use. */
struct Maps {
  const void* base = nullptr;
  uint64_t rows = 0, cols = 0;
  uint32_t elemBytes = 0, count = 0;
  Entry entries[kMaxMaps];
};

/* A box shape of the kernel's blocks (the launcher's list). */
struct Box {
  uint32_t rows, cols;
};

/* Whether the driver encodes a 2-D tiled map without interleave: a 16-byte
 * aligned base, rows a multiple of 16 bytes apart (under 2^40), extents up
 * to 2^32, boxes of 1..256 elements per dimension whose rows are a multiple
 * of 16 bytes, and for the 128-byte swizzle at most 128 bytes. */
VX_HD inline bool encodable(uint64_t base, uint32_t elemBytes, uint64_t rows, uint64_t cols, uint32_t boxRows,
                            uint32_t boxCols, Swizzle s) {
  const uint64_t rowBytes = cols * elemBytes, boxBytes = uint64_t{boxCols} * elemBytes;
  if (base % 16 != 0 || rows == 0 || cols == 0 || rows > (1ull << 32) || cols > (1ull << 32)) return false;
  if (rowBytes % 16 != 0 || rowBytes >= (1ull << 40)) return false;
  if (boxRows == 0 || boxCols == 0 || boxRows > kMaxBox || boxCols > kMaxBox || boxBytes % 16 != 0) return false;
  return s != Swizzle::B128 || boxBytes <= 128;
}

#if defined(__CUDACC__)
static_assert(sizeof(CUtensorMap) == sizeof(Map) && alignof(CUtensorMap) <= alignof(Map), "a CUtensorMap fits a Map");

/* cuTensorMapEncodeTiled, from the driver the process finds at run time;
 * null when it has none (the copies then move rows). */
inline PFN_cuTensorMapEncodeTiled_v12000 driverEncode() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      p = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}
#endif

/* Encodes the map of `box` over the rows x cols elements at `base` (host
 * only); false when the driver would not (the copies then move rows). */
inline bool encode(Map& map, const void* base, uint32_t elemBytes, uint64_t rows, uint64_t cols, Box box, Swizzle s) {
  if (!encodable(reinterpret_cast<uint64_t>(base), elemBytes, rows, cols, box.rows, box.cols, s)) return false;
#if defined(__CUDACC__)
  PFN_cuTensorMapEncodeTiled_v12000 fn = driverEncode();
  if (!fn) return false;
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_UINT8;  // elements move as bits: no conversion
  switch (elemBytes) {
    case 1: type = CU_TENSOR_MAP_DATA_TYPE_UINT8; break;
    case 2: type = CU_TENSOR_MAP_DATA_TYPE_UINT16; break;
    case 4: type = CU_TENSOR_MAP_DATA_TYPE_UINT32; break;
    case 8: type = CU_TENSOR_MAP_DATA_TYPE_INT64; break;
    default: return false;
  }
  cuuint64_t dims[2] = {cols, rows};
  cuuint64_t strides[1] = {cols * elemBytes};
  cuuint32_t boxDim[2] = {box.cols, box.rows};
  cuuint32_t elementStrides[2] = {1, 1};
  CUresult r = fn(reinterpret_cast<CUtensorMap*>(&map), type, 2, const_cast<void*>(base), dims, strides, boxDim,
                  elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                  s == Swizzle::B128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS;
#else
  Desc d{kMagic, reinterpret_cast<uint64_t>(base), {cols, rows}, cols * elemBytes, {box.cols, box.rows}, elemBytes,
         static_cast<uint32_t>(s)};
  std::memset(map.bytes, 0, sizeof map.bytes);
  std::memcpy(map.bytes, &d, sizeof d);
  return true;
#endif
}

/* The map of a box of `boxRows` x `boxCols` elements of `elemBytes`, with
 * swizzle `s`, or null. */
VX_HD inline const Map* find(const Maps* m, uint64_t boxRows, uint64_t boxCols, uint32_t elemBytes, Swizzle s) {
  if (!m || m->elemBytes != elemBytes) return nullptr;
  for (uint32_t i = 0; i < m->count; ++i) {
    const Entry& e = m->entries[i];
    if (e.boxRows == boxRows && e.boxCols == boxCols && e.swizzle == s) return &e.map;
  }
  return nullptr;
}

/* The coordinates of the element at `p` in the map's 2-D view: column x,
 * row y (as the copy instruction takes them), or false outside it. */
VX_HD inline bool coords(const Maps* m, const void* p, int32_t* x, int32_t* y) {
  const auto* b = static_cast<const unsigned char*>(m->base);
  const auto* q = static_cast<const unsigned char*>(p);
  if (q < b) return false;
  const uint64_t off = static_cast<uint64_t>(q - b);
  if (off % m->elemBytes != 0) return false;
  const uint64_t e = off / m->elemBytes, row = e / m->cols;
  if (row >= m->rows || row >= (1ull << 31)) return false;
  *x = static_cast<int32_t>(e % m->cols);
  *y = static_cast<int32_t>(row);
  return true;
}

}  // namespace vx::cu::tma

#endif /* VX_CUDA_TMA_H */
