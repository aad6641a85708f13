// The cpu runtime (include/vx/): the matrix unit's kernel against the
// textbook loop on awkward shapes, the VMEM arena, the copy engine, Rust's
// scalar semantics. Built twice (tests/run/CMakeLists.txt): with the host's
// vectors (AVX-512 / AVX2 kernels) and without (the portable kernel).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <string>
#include <thread>
#include <set>
#include <vector>

#include <unistd.h>
#include "vx/runtime.h"

#include "TestSupport.h"

namespace {

/* Every copy a job for the engine, whatever the host's load: naps are
 * switched off, and one already begun (by an earlier test, on a loaded
 * machine) is waited out: copies started during it would be made where
 * they start. A nap lasts at most 64 ms. */
void noNaps() {
  vx::rt::CopyEngine& engine = vx::rt::CopyEngine::instance();
  engine.allowNaps(false);
  for (int i = 0; i < 2000 && engine.napping(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE_FALSE(engine.napping());
}

/* A job copying n floats from src to dst, as start_copy makes one, not queued. */
void setUpCopy(vx::rt::CopyJob& job, const float* src, float* dst, size_t n) {
  job.src = src;
  job.dst = dst;
  job.shape = vx::rt::contiguous<float>(n);
  job.chunks = vx::rt::copyChunks(job.shape);
}

template <typename T>
std::vector<float> naive(size_t m, size_t n, size_t k, const T* a, const T* b) {
  std::vector<float> c(m * n, 0.0f);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      float s = 0;
      for (size_t p = 0; p < k; ++p) s += static_cast<float>(a[i * k + p]) * static_cast<float>(b[p * n + j]);
      c[i * n + j] = s;
    }
  return c;
}

}  // namespace

TEST_CASE("the gemm kernel equals the textbook loop on shapes that are not multiples of its blocks") {
  const size_t shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {8, 32, 256}, {13, 47, 300}, {128, 128, 128}, {130, 70, 513}, {3, 100, 1}};
  for (auto& s : shapes) {
    size_t m = s[0], n = s[1], k = s[2];
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    std::vector<float> a = filled(0, m * k), b = filled(1, k * n);
    std::vector<float> c(m * n, 1.0f);  // the kernel accumulates onto C
    vx::rt::gemm::gemm(m, n, k, a.data(), k, b.data(), n, c.data(), n);
    std::vector<float> want = naive(m, n, k, a.data(), b.data());
    for (float& x : want) x += 1.0f;
    CHECK(vx_checksum(c.data(), c.size()) == vx_checksum(want.data(), want.size()));
  }
}

TEST_CASE("tiles are multiplied in place, rows apart by their matrices' strides") {
  // A 64 x 96 block of a 100 x 200 matrix times a 96 x 64 block of a
  // 120 x 160 one, into a block of a 70 x 100 one: the shapes the unpacked
  // f32 path takes (whole 8 x 32 tiles), as `mma` on blocks passes them.
  const size_t m = 64, n = 64, k = 96, lda = 200, ldb = 160, ldc = 100;
  std::vector<float> A = filled(2, 100 * lda), B = filled(3, 120 * ldb), C(70 * ldc, 0.5f);
  const float* a = A.data() + 3 * lda + 5;
  const float* b = B.data() + 7 * ldb + 9;
  float* c = C.data() + 2 * ldc + 4;
  std::vector<float> ta(m * k), tb(k * n);
  for (size_t i = 0; i < m; ++i)
    for (size_t p = 0; p < k; ++p) ta[i * k + p] = a[i * lda + p];
  for (size_t p = 0; p < k; ++p)
    for (size_t j = 0; j < n; ++j) tb[p * n + j] = b[p * ldb + j];
  vx::rt::gemm::gemm(m, n, k, a, lda, b, ldb, c, ldc);
  std::vector<float> want = naive(m, n, k, ta.data(), tb.data());
  for (size_t i = 0; i < 70; ++i)
    for (size_t j = 0; j < ldc; ++j) {
      bool inside = i >= 2 && i < 2 + m && j >= 4 && j < 4 + n;
      float expect = inside ? want[(i - 2) * n + (j - 4)] + 0.5f : 0.5f;
      REQUIRE(C[i * ldc + j] == expect);
    }
}

TEST_CASE("the unpacked AVX2 tiles equal the textbook loop, six rows at a time and the rows left over") {
#if defined(__x86_64__)
  if (static_cast<int>(vx::rt::gemm::detectIsa()) < static_cast<int>(vx::rt::gemm::Isa::Avx2)) {
    MESSAGE("no AVX2 on this CPU: not run");
    return;
  }
  const size_t shapes[][3] = {{1, 16, 1}, {5, 16, 7}, {13, 48, 300}, {128, 128, 128}, {130, 64, 96}};
  for (auto& s : shapes) {
    size_t m = s[0], n = s[1], k = s[2];
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    REQUIRE(vx::rt::gemm::directFitsAvx2(m, n, k));
    std::vector<float> a = filled(4, m * k), b = filled(5, k * n), c(m * n, 1.0f);
    vx::rt::gemm::directAvx2(m, n, k, a.data(), k, b.data(), n, c.data(), n);
    std::vector<float> want = naive(m, n, k, a.data(), b.data());
    for (float& x : want) x += 1.0f;
    CHECK(vx_checksum(c.data(), c.size()) == vx_checksum(want.data(), want.size()));
  }
#endif
}

TEST_CASE("the direct kernels read B's panel from a copy where it is read often enough, and in place otherwise") {
  // Few rows (the panel read in place), a panel already contiguous (ldb ==
  // its width), and K at kDirectMax (the copy's buffer full), each on a C
  // that already holds values; run.runtime.avx2 runs the AVX2 kernel on them.
  const size_t shapes[][4] = {{8, 32, 512, 96},  {16, 64, 40, 64},   {32, 32, 512, 32},
                              {512, 64, 512, 80}, {130, 96, 300, 128}, {48, 16, 7, 16}};
  for (auto& s : shapes) {
    size_t m = s[0], n = s[1], k = s[2], ldb = s[3];
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    CAPTURE(ldb);
    std::vector<float> a = filled(8, m * k), b = filled(9, k * ldb), c(m * n, 3.0f), bc(k * n);
    for (size_t p = 0; p < k; ++p)
      for (size_t j = 0; j < n; ++j) bc[p * n + j] = b[p * ldb + j];
    vx::rt::gemm::gemm(m, n, k, a.data(), k, b.data(), ldb, c.data(), n);
    std::vector<float> want = naive(m, n, k, a.data(), bc.data());
    for (float& x : want) x += 3.0f;
    CHECK(vx_checksum(c.data(), c.size()) == vx_checksum(want.data(), want.size()));
  }
}

TEST_CASE("products larger than a direct tile equal the textbook loop (by contiguous blocks on AVX2)") {
  // Past kDirectMax on one side, with blocks left over on every side, as
  // parts of larger matrices (strides wider than the product), onto a C
  // that already holds values (the kernel accumulates).
  const size_t shapes[][3] = {{600, 64, 40}, {40, 528, 200}, {136, 96, 700}, {520, 544, 260}};
  for (auto& s : shapes) {
    size_t m = s[0], n = s[1], k = s[2], lda = k + 3, ldb = n + 16, ldc = n + 32;
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    std::vector<float> a = filled(6, m * lda), b = filled(7, k * ldb), c(m * ldc, 2.0f);
    vx::rt::gemm::gemm(m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc);
    std::vector<float> ac(m * k), bc(k * n);
    for (size_t i = 0; i < m; ++i)
      for (size_t p = 0; p < k; ++p) ac[i * k + p] = a[i * lda + p];
    for (size_t p = 0; p < k; ++p)
      for (size_t j = 0; j < n; ++j) bc[p * n + j] = b[p * ldb + j];
    std::vector<float> want = naive(m, n, k, ac.data(), bc.data()), got(m * n);
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j) got[i * n + j] = c[i * ldc + j];
    for (float& x : want) x += 2.0f;
    CHECK(vx_checksum(got.data(), got.size()) == vx_checksum(want.data(), want.size()));
    for (size_t i = 0; i < m; ++i) CHECK(c[i * ldc + n] == 2.0f);  // past the product's columns: untouched
  }
}

TEST_CASE("every micro-kernel this CPU can run equals the textbook loop") {
  const size_t shapes[][3] = {{1, 1, 1}, {13, 47, 300}, {130, 70, 513}};
  atEveryWidth([&](vx::rt::gemm::Isa level) {
    for (auto& s : shapes) {
      size_t m = s[0], n = s[1], k = s[2];
      std::vector<float> a = filled(0, m * k), b = filled(1, k * n), c(m * n, 0.0f);
      vx::rt::gemm::PackedB p = vx::rt::gemm::packB(b.data(), n, k, n, level);
      vx::rt::gemm::gemmPacked(m, a.data(), k, p, c.data(), n);
      std::vector<float> want = naive(m, n, k, a.data(), b.data());
      CHECK(vx_checksum(c.data(), c.size()) == vx_checksum(want.data(), want.size()));
    }
  });
}

TEST_CASE("the packing loops equal the textbook loop across the edges of every cache block, on every micro-kernel") {
  // Past kMC rows, kNC columns and KC steps, with partial register tiles
  // left over at each edge, onto a C that already holds values, as blocks
  // of larger matrices; B packed as it is reached (gemmPacking) and packed
  // once beforehand (gemmPacked, the latched weights).
  using namespace vx::rt::gemm;
  const size_t shapes[][3] = {{kMC + 9, 37, 3}, {7, kNC + 33, 300}, {17, 40, 2 * KC + 1}, {kMC, kNC, KC}};
  atEveryWidth([&](Isa level) {
    for (auto& s : shapes) {
      size_t m = s[0], n = s[1], k = s[2], lda = k + 5, ldb = n + 3, ldc = n + 7;
      CAPTURE(m);
      CAPTURE(n);
      CAPTURE(k);
      std::vector<float> a = filled(8, m * lda), b = filled(9, k * ldb), ac(m * k), bc(k * n);
      for (size_t i = 0; i < m; ++i)
        for (size_t p = 0; p < k; ++p) ac[i * k + p] = a[i * lda + p];
      for (size_t p = 0; p < k; ++p)
        for (size_t j = 0; j < n; ++j) bc[p * n + j] = b[p * ldb + j];
      std::vector<float> want = naive(m, n, k, ac.data(), bc.data());
      for (float& x : want) x += 3.0f;
      for (bool prepacked : {false, true}) {
        CAPTURE(prepacked);
        std::vector<float> c(m * ldc, 3.0f);
        if (prepacked) {
          PackedB p = packB(b.data(), ldb, k, n, level);
          gemmPacked(m, a.data(), lda, p, c.data(), ldc);
        } else {
          gemmPacking(m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, level);
        }
        std::vector<float> got(m * n);
        bool outsideUntouched = true;
        for (size_t i = 0; i < m; ++i) {
          for (size_t j = 0; j < n; ++j) got[i * n + j] = c[i * ldc + j];
          for (size_t j = n; j < ldc; ++j) outsideUntouched = outsideUntouched && c[i * ldc + j] == 3.0f;
        }
        CHECK(outsideUntouched);
        CHECK(vx_checksum(got.data(), got.size()) == vx_checksum(want.data(), want.size()));
      }
    }
  });
}

TEST_CASE("a portable build runs the best micro-kernel the CPU has, chosen at run time") {
  using vx::rt::gemm::Isa;
  Isa want = Isa::Generic;
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) want = Isa::Avx512;
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) want = Isa::Avx2;
#endif
  if (const char* env = std::getenv("VX_CPU_ISA")) {
    MESSAGE("VX_CPU_ISA=" << env << " is set: not checking the automatic choice");
    return;
  }
  CHECK(vx::rt::gemm::isaName(vx::rt::gemm::isa()) == std::string(vx::rt::gemm::isaName(want)));
}

TEST_CASE("bf16 inputs are widened while packing") {
  size_t m = 33, n = 40, k = 70;
  std::vector<float> af = filled(2, m * k), bf = filled(3, k * n);
  std::vector<vx::rt::bf16> a(af.begin(), af.end()), b(bf.begin(), bf.end());
  std::vector<float> c(m * n, 0.0f);
  vx::rt::gemm::gemm(m, n, k, a.data(), k, b.data(), n, c.data(), n);
  std::vector<float> want = naive(m, n, k, af.data(), bf.data());  // fill values are exact in bf16
  CHECK(vx_checksum(c.data(), c.size()) == vx_checksum(want.data(), want.size()));
}

TEST_CASE("the matrix unit: identity until load_weights, store_acc zeroes") {
  vx::rt::Arena arena;
  vx::rt::Invocation inv(arena);
  std::vector<float> x = filled(4, 64 * 32), w = filled(5, 32 * 16);
  vx::rt::Buf<float> xb = vx::rt::pin(inv, x.data(), x.size());
  inv.mxu.matmul_acc(xb, 64, 32, "test");  // ACC = x (W = identity)
  inv.mxu.matmul_acc(xb, 64, 32, "test");  // ACC = 2x
  std::vector<float> out(64 * 32);
  inv.mxu.store_acc(vx::rt::Hbm<float>{out.data(), out.size()}, 64, 32, "test");
  for (size_t i = 0; i < x.size(); ++i) REQUIRE(out[i] == 2 * x[i]);
  CHECK_FALSE(inv.mxu.hasAccumulator());

  vx::rt::Buf<float> wb = vx::rt::pin(inv, w.data(), w.size());
  inv.mxu.load_weights(wb, 32, 16);
  wb.data[0] = 1000.0f;  // latching copied W
  inv.mxu.matmul_acc(xb, 64, 32, "test");
  std::vector<float> r(64 * 16);
  inv.mxu.store_acc(vx::rt::Hbm<float>{r.data(), r.size()}, 64, 16, "test");
  std::vector<float> want = naive(64, 16, 32, x.data(), w.data());
  CHECK(vx_checksum(r.data(), r.size()) == vx_checksum(want.data(), want.size()));
}

TEST_CASE("the arena reuses and coalesces freed blocks") {
  vx::rt::Arena arena(1 << 20);
  void* a = nullptr;
  {
    vx::rt::Buf<float> x = vx::rt::allocate<float>(arena, 1000, "t");
    vx::rt::Buf<float> y = vx::rt::allocate<float>(arena, 1000, "t");
    a = y.data;
    CHECK(reinterpret_cast<uintptr_t>(x.data) % vx::rt::kAlign == 0);
  }
  {
    // Everything was freed and coalesced: the whole arena is one block again.
    vx::rt::Buf<float> all = vx::rt::allocate<float>(arena, (1 << 20) / sizeof(float), "t");
    CHECK(all.data != nullptr);
    CHECK(static_cast<void*>(all.data) != a);
  }
  vx::rt::Buf<float> z = vx::rt::zeros<float>(arena, 300, "t");
  vx::rt::Buf<float> s = z.slot(2, 3, "t");  // views share the block
  CHECK(s.data == z.data + 200);
  CHECK(s.n == 100);
  CHECK(z.owner.use_count() == 2);
  CHECK(arena.peak() == (1 << 20));
}

TEST_CASE("live buffers within the capacity are allocated even when the arena is fragmented") {
  vx::rt::Arena arena(1 << 20);
  const uint64_t quarter = (1 << 18) / sizeof(float);
  vx::rt::Buf<float> a = vx::rt::allocate<float>(arena, quarter * 2, "t");
  vx::rt::Buf<float> b = vx::rt::allocate<float>(arena, quarter, "t");
  a = {};  // a half-size hole before `b`, a quarter after it
  // Three quarters are free but no gap holds them: allocated on their own.
  vx::rt::Buf<float> c = vx::rt::zeros<float>(arena, quarter * 3, "t");
  CHECK(c.data != nullptr);
  CHECK(c.data[quarter * 3 - 1] == 0.0f);
  CHECK(arena.peak() == (1 << 20));
  c = {};
  // Back in the reservation once a gap holds it.
  vx::rt::Buf<float> d = vx::rt::allocate<float>(arena, quarter * 2, "t");
  CHECK(d.data + quarter * 2 == b.data);
}

TEST_CASE("rotating blocks go round a window of the arena while packed ones take the lowest gap") {
  const size_t kib = 1024, window = 256 * kib;
  vx::rt::Arena arena(1 << 20, window);
  const uint64_t tile = 64 * kib / sizeof(float);
  vx::rt::Buf<float> acc = vx::rt::allocate<float>(arena, tile, "t");  // packed: the start of the arena
  char* base = reinterpret_cast<char*>(acc.data);
  std::vector<size_t> offsets;
  for (int i = 0; i < 6; ++i) {
    // Each freed before the next: packed, all would be at 64 KiB.
    vx::rt::Buf<float> b = vx::rt::allocate<float>(arena, tile, "t", vx::rt::Placement::Rotating);
    offsets.push_back(static_cast<size_t>(reinterpret_cast<char*>(b.data) - base));
    b.data[tile - 1] = 1.0f;
  }
  // After `acc`, on to the end of the window, then round from its start
  // (the first gap there is after `acc`).
  CHECK(offsets == std::vector<size_t>{64 * kib, 128 * kib, 192 * kib, 64 * kib, 128 * kib, 192 * kib});
  vx::rt::Buf<float> packed = vx::rt::allocate<float>(arena, tile, "t");
  CHECK(reinterpret_cast<char*>(packed.data) - base == static_cast<ptrdiff_t>(64 * kib));
  // A block larger than the window, or one no gap of the window holds, is
  // placed first fit.
  vx::rt::Buf<float> big = vx::rt::allocate<float>(arena, 2 * window / sizeof(float), "t", vx::rt::Placement::Rotating);
  CHECK(reinterpret_cast<char*>(big.data) - base == static_cast<ptrdiff_t>(128 * kib));
  CHECK(arena.peak() == 64 * kib + 64 * kib + 2 * window);
}

TEST_CASE("a rotating window of zero places every block packed") {
  vx::rt::Arena arena(1 << 20, 0);
  void* first = nullptr;
  for (int i = 0; i < 3; ++i) {
    vx::rt::Buf<float> b = vx::rt::allocate<float>(arena, 1000, "t", vx::rt::Placement::Rotating);
    if (i == 0) first = b.data;
    CHECK(static_cast<void*>(b.data) == first);
  }
}

TEST_CASE("the engine's destinations rotate; a copy made where it starts writes a packed block") {
  noNaps();
  vx::rt::CopyEngine& eng = vx::rt::CopyEngine::instance();
  const size_t kib = 1024;
  vx::rt::Arena arena(1 << 20, 256 * kib);
  std::vector<float> src = filled(9, 4 * 16 * kib);
  auto tileAt = [&](size_t i) { return vx::rt::Hbm<float>{src.data() + i * 16 * kib, 16 * kib}; };
  // Four tiles, each waited for and dropped before the next starts: the
  // blocks they were copied into.
  auto blocks = [&] {
    std::set<float*> seen;
    for (size_t i = 0; i < 4; ++i) {
      vx::rt::Buf<float> b = vx::rt::wait(vx::rt::transfer_async(arena, tileAt(i), "t"));
      REQUIRE(std::memcmp(b.data, tileAt(i).data, 64 * kib) == 0);
      seen.insert(b.data);
    }
    return seen.size();
  };
  CHECK(eng.placement() == vx::rt::Placement::Rotating);
  CHECK(blocks() == 4);
  const bool was = vx::rt::copiesInline;
  vx::rt::copiesInline = true;  // made where they start: packed
  CHECK(eng.placement() == vx::rt::Placement::Packed);
  CHECK(blocks() == 1);
  vx::rt::copiesInline = was;
}

TEST_CASE("a grid's pool has one copy engine per worker, bounded by the cores the workers leave free") {
  CHECK(vx::rt::gridEngines(1, 1) == 0);
  CHECK(vx::rt::gridEngines(2, 2) == 0);  // every core a worker: copies made in place
  CHECK(vx::rt::gridEngines(3, 2) == 0);
  CHECK(vx::rt::gridEngines(1, 2) == 1);
  CHECK(vx::rt::gridEngines(2, 4) == 2);
  CHECK(vx::rt::gridEngines(3, 4) == 1);
  CHECK(vx::rt::gridEngines(4, 16) == 4);
}

TEST_CASE("each worker of a grid's pool queues its copies on its own engine, or copies in place") {
  noNaps();
  std::vector<float> src = filled(10, 4 * 4096);
  // Each worker copies a tile on the engine of its thread and records the
  // engine its job went to (null: made in place).
  auto engines = [&](vx::rt::WorkerPool& pool) {
    std::vector<vx::rt::CopyEngine*> used(pool.size(), nullptr);
    pool.run([&](unsigned w) {
      vx::rt::Arena arena;
      vx::rt::Token<float> t = vx::rt::transfer_async(arena, vx::rt::Hbm<float>{src.data() + w * 4096, 4096}, "t");
      used[w] = t.job ? t.job->engine : nullptr;
      vx::rt::Buf<float> b = vx::rt::wait(t);
      REQUIRE(std::memcmp(b.data, src.data() + w * 4096, 4096 * sizeof(float)) == 0);
    });
    return used;
  };
  {
    vx::rt::WorkerPool pool(2, 4);  // two workers, two cores left: an engine each
    REQUIRE(pool.engines() == 2);
    std::vector<vx::rt::CopyEngine*> used = engines(pool);
    CHECK(used[0] == &vx::rt::CopyEngine::instance());
    CHECK(used[1] == &pool.engineOf(1));
    CHECK(used[1] != used[0]);
  }
  {
    vx::rt::WorkerPool pool(3, 4);  // one core left: the three share it
    REQUIRE(pool.engines() == 1);
    CHECK(engines(pool) == std::vector<vx::rt::CopyEngine*>(3, &vx::rt::CopyEngine::instance()));
  }
  {
    vx::rt::WorkerPool pool(2, 2);  // every core a worker
    CHECK(pool.engines() == 0);
    CHECK(engines(pool) == std::vector<vx::rt::CopyEngine*>{nullptr, nullptr});
  }
  // Outside a grid, the process's engine.
  vx::rt::Arena arena;
  vx::rt::Token<float> t = vx::rt::transfer_async(arena, vx::rt::Hbm<float>{src.data(), 4096}, "t");
  CHECK(t.job->engine == &vx::rt::CopyEngine::instance());
  vx::rt::wait(t);
}

TEST_CASE("asynchronous copies land before wait returns") {
  vx::rt::Arena arena;
  std::vector<float> src = filled(6, 64 * 1024);
  std::vector<vx::rt::Token<float>> tokens;
  for (size_t i = 0; i < 64; ++i)
    tokens.push_back(vx::rt::transfer_async(arena, vx::rt::Hbm<float>{src.data() + i * 1024, 1024}, "t"));
  for (size_t i = 0; i < 64; ++i) {
    vx::rt::Buf<float> b = vx::rt::wait(tokens[i]);
    REQUIRE(std::memcmp(b.data, src.data() + i * 1024, 1024 * sizeof(float)) == 0);
  }
  vx::rt::Buf<float> ring = vx::rt::zeros<float>(arena, 2 * 1024, "t");
  vx::rt::VoidToken t = vx::rt::transfer_async_into(vx::rt::Hbm<float>{src.data(), 1024}, ring.slot(1, 2, "t"));
  vx::rt::wait(t);
  CHECK(ring.data[1024] == src[0]);
  CHECK(ring.data[0] == 0.0f);
  std::vector<float> back(1024);
  vx::rt::wait(vx::rt::store_async(ring.slot(1, 2, "t"), vx::rt::Hbm<float>{back.data(), 1024}));
  CHECK(std::memcmp(back.data(), src.data(), 1024 * sizeof(float)) == 0);
}

TEST_CASE("a copy of many chunks is shared between the engine and its waiter, and lands whole") {
  noNaps();
  // Runs and blocks of several chunks (kCopyChunkBytes), rows shorter and
  // longer than a chunk, the last chunk partial; each waited at once (the
  // waiter takes what the engine has not) and after other work (the engine
  // has moved it).
  REQUIRE(vx::rt::copyChunks(vx::rt::contiguous<float>(1)) == 1);
  REQUIRE(vx::rt::copyChunks(vx::rt::contiguous<float>(vx::rt::kCopyChunkBytes / 4 + 1)) == 2);
  vx::rt::Arena arena;
  const size_t cols = 1536;
  std::vector<float> src = filled(8, 300 * cols);
  vx::rt::Hbm<float> whole{src.data(), src.size()};
  whole.cols = cols;
  whole.stride = cols;
  for (int round = 0; round < 40; ++round) {
    CAPTURE(round);
    size_t n = 1000 + 4099 * static_cast<size_t>(round);
    vx::rt::Token<float> run = vx::rt::transfer_async(arena, vx::rt::Hbm<float>{src.data() + round, n}, "t");
    size_t rows = 1 + 7 * static_cast<size_t>(round), width = round % 2 ? 1536 : 24 + static_cast<size_t>(round);
    vx::rt::Token<float> blk =
        vx::rt::transfer_async(arena, vx::rt::block(whole, 2, 0, rows, width, 300, cols, false, "t"), "t");
    REQUIRE(blk.job != nullptr);
    if (round % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    vx::rt::Buf<float> b = vx::rt::wait(blk), r = vx::rt::wait(run);
    REQUIRE(std::memcmp(r.data, src.data() + round, n * sizeof(float)) == 0);
    for (size_t i = 0; i < rows; ++i)
      REQUIRE(std::memcmp(b.data + i * width, src.data() + (2 + i) * cols, width * sizeof(float)) == 0);
    CHECK(blk.job->done.load());
    CHECK(blk.job->keep == nullptr);  // the storage is released by whoever finished
    CHECK(blk.job->chunksDone.load() == blk.job->chunks);
  }
}

TEST_CASE("every chunk of a copy is moved once, the engine's from the front and the waiter's all that is left") {
  // Two threads on one job, as the engine (from the front, in batches,
  // demoting what it writes) and a waiter (all that is left when it comes,
  // in one claim): the destination is the source, every chunk is counted
  // once, exactly one of them finishes it.
  std::vector<float> src = filled(11, 37 * 1024 + 5);
  for (size_t batch : {size_t{1}, size_t{2}, size_t{3}, size_t{64}}) {
    CAPTURE(batch);
    for (int round = 0; round < 20; ++round) {
      std::vector<float> dst(src.size(), 0.0f);
      vx::rt::CopyJob job;
      setUpCopy(job, src.data(), dst.data(), src.size());
      REQUIRE(job.chunks > 3);
      bool byEngine = false, byWaiter = false;
      std::thread engine([&] { byEngine = job.work(true, batch); });
      byWaiter = job.help();
      engine.join();
      CHECK(byEngine != byWaiter);
      CHECK(job.done.load());
      CHECK(job.chunksDone.load() == job.chunks);
      REQUIRE(std::memcmp(dst.data(), src.data(), src.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("the engine demotes what it writes while waits find their copies done, and stops when they are late") {
  vx::rt::Arena arena;
  vx::rt::CopyEngine& engine = vx::rt::CopyEngine::instance();
  noNaps();
  engine.chooseMode(false, false);  // the engine moves the copies
  std::vector<float> big = filled(12, 1 << 20), small = filled(13, 256);
  // Late waits: a 4 MiB copy waited at once is never done yet.
  for (int i = 0; i < 40; ++i) {
    vx::rt::Token<float> t = vx::rt::transfer_async(arena, vx::rt::Hbm<float>{big.data(), big.size()}, "t");
    vx::rt::Buf<float> b = vx::rt::wait(t);
    REQUIRE(std::memcmp(b.data, big.data(), big.size() * sizeof(float)) == 0);
  }
  CHECK_FALSE(engine.demoting());
  // Waits that find their copies done: the engine is ahead again.
  for (int i = 0; i < 80; ++i) {
    vx::rt::Token<float> t = vx::rt::transfer_async(arena, vx::rt::Hbm<float>{small.data(), small.size()}, "t");
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!t.job->done.load() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    REQUIRE(t.job->done.load());
    vx::rt::Buf<float> b = vx::rt::wait(t);
    REQUIRE(std::memcmp(b.data, small.data(), small.size() * sizeof(float)) == 0);
  }
  CHECK(engine.demoting());
  engine.chooseMode(true);
}

TEST_CASE("an engine that warms leaves every copy to its waiter, which lands it whole") {
  // In the warming mode the engine reads sources and takes no chunk: a
  // copy left alone is not done, and its wait moves all of it (runs of one
  // chunk and of several, the last partial; a block of rows).
  vx::rt::Arena arena;
  vx::rt::CopyEngine& engine = vx::rt::CopyEngine::instance();
  noNaps();
  engine.chooseMode(false, true);
  REQUIRE(engine.warming());
  const size_t cols = 700;
  std::vector<float> src = filled(16, 90 * cols);
  vx::rt::Hbm<float> whole{src.data(), src.size()};
  whole.cols = cols;
  whole.stride = cols;
  for (size_t n : {size_t{3}, vx::rt::kCopyChunkBytes / 4, size_t{5 * 1024 + 7}, src.size()}) {
    CAPTURE(n);
    vx::rt::Token<float> run = vx::rt::transfer_async(arena, vx::rt::Hbm<float>{src.data(), n}, "t");
    vx::rt::Token<float> blk =
        vx::rt::transfer_async(arena, vx::rt::block(whole, 3, 1, 40, 500, 90, cols, false, "t"), "t");
    REQUIRE(run.job != nullptr);
    REQUIRE(blk.job != nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // time for the engine to have read them
    CHECK_FALSE(run.job->done.load());
    CHECK(run.job->chunksDone.load() == 0);
    CHECK_FALSE(blk.job->done.load());
    vx::rt::Buf<float> b = vx::rt::wait(blk), r = vx::rt::wait(run);
    REQUIRE(std::memcmp(r.data, src.data(), n * sizeof(float)) == 0);
    for (size_t i = 0; i < 40; ++i)
      REQUIRE(std::memcmp(b.data + i * 500, src.data() + (3 + i) * cols + 1, 500 * sizeof(float)) == 0);
    CHECK(run.job->done.load());
    CHECK(run.job->keep == nullptr);
    CHECK(blk.job->chunksDone.load() == blk.job->chunks);
  }
  engine.chooseMode(true);
}

namespace {
/* A mode chooser fed epochs by hand: `run` ends `epochs` epochs whose
 * length is `ns(warm)` and returns the modes chosen, one letter each (m:
 * move, W: warm); `nap` ends one in which the engine napped. */
struct Chooser {
  vx::rt::CopyModeChooser c;
  bool warm = false;
  uint64_t now = 1000;
  template <typename F>
  std::string run(int epochs, F ns) {
    std::string modes;
    for (int i = 0; i < epochs; ++i) {
      now += ns(warm);
      warm = c.epochEnded(now, warm);
      modes += warm ? 'W' : 'm';
    }
    return modes;
  }
  bool nap(uint64_t ns) {
    c.napped();
    warm = c.epochEnded(now += ns, warm);
    return warm;
  }
};
uint64_t warmFaster(bool warm) { return warm ? 80 : 100; }
uint64_t moveFaster(bool warm) { return warm ? 120 : 100; }
}  // namespace

TEST_CASE("the copy mode chooser keeps the faster way, and tries the other less often while it loses") {
  using vx::rt::CopyModeChooser;
  static_assert(CopyModeChooser::kExploreMin == 4 && CopyModeChooser::kBackOff == 8 &&
                    CopyModeChooser::kExploreMax == 256,
                "the sequences below");
  Chooser c;
  SUBCASE("warming is faster: kept from the first try, and moving, tried again, loses") {
    // The first epoch is not measured; four in move, the fourth ending in
    // a switch; warm settles and is measured: kept; four in warm; move
    // tried (settle, measure) and left; 32 in warm before the next try.
    CHECK(c.run(46, warmFaster) == "mmmmWWWWWWmm" + std::string(33, 'W') + "m");
  }
  SUBCASE("moving is faster: warming is tried after 4, 32 and then every 256 epochs") {
    std::string modes = c.run(600, moveFaster);
    std::vector<size_t> tries;
    for (size_t i = 0; i + 1 < modes.size(); ++i)
      if (modes[i] == 'm' && modes[i + 1] == 'W') tries.push_back(i + 1);
    // Each try: one epoch to settle, one measured, one to settle back.
    CHECK(tries == std::vector<size_t>{4, 4 + 3 + 32, 4 + 3 + 32 + 3 + 256, 4 + 3 + 32 + 3 + 256 + 3 + 256});
    for (size_t t : tries) CHECK(modes.substr(t, 2) == "WW");
  }
  SUBCASE("a difference within the margin does not switch") {
    CHECK(c.run(12, [](bool w) { return w ? 99 : 100; }) == "mmmmWWmmmmmm");
  }
  SUBCASE("an epoch in which the engine napped ends in moving, unmeasured") {
    REQUIRE(c.run(7, warmFaster) == "mmmmWWW");  // warming kept
    CHECK_FALSE(c.nap(80));
    // Moving settles, then four epochs before warming is tried again.
    CHECK(c.run(8, warmFaster) == "mmmmWWWW");
    // Long in warm, moving tried and lost until the tries are 256 epochs
    // apart: after a nap warming is still tried again four epochs later.
    REQUIRE(c.run(600, warmFaster).find("mm" + std::string(257, 'W') + "mm") != std::string::npos);
    while (!c.warm) c.run(1, warmFaster);
    CHECK_FALSE(c.nap(80));
    CHECK(c.run(7, warmFaster) == "mmmmWWW");
  }
  SUBCASE("a try during which the engine napped is not counted as lost") {
    REQUIRE(c.run(5, moveFaster) == "mmmmW");  // warming tried
    CHECK_FALSE(c.nap(120));
    // Tried again after four epochs, not 32 (a lost try backs off).
    CHECK(c.run(5, moveFaster) == "mmmmW");
  }
  SUBCASE("an epoch more than twice its mode's mean is not measured") {
    // The third epoch in move stands apart (the program did something
    // else): move's mean stays 100, and warm, slower at 110, is not kept
    // (counted, the 1000 would have made move's mean 325).
    int epoch = 0;
    CHECK(c.run(8, [&](bool w) -> uint64_t { return ++epoch == 3 ? 1000 : w ? 110 : 100; }) == "mmmmWWmm");
  }
}

TEST_CASE("a waiter alone moves a copy whole, in one claim") {
  // The waiter's claim (CopyJob::help) without the engine: one chunk, two,
  // and odd counts, the last chunk partial; every chunk once, and the call
  // completes the job.
  std::vector<float> src = filled(14, 21 * 1024 + 3);
  for (size_t n : {size_t{5}, vx::rt::kCopyChunkBytes / 4, vx::rt::kCopyChunkBytes / 4 + 1, size_t{5 * 1024 + 7}, src.size()}) {
    CAPTURE(n);
    std::vector<float> dst(n, 0.0f);
    vx::rt::CopyJob job;
    setUpCopy(job, src.data(), dst.data(), n);
    CHECK_FALSE(job.allTaken());
    CHECK(job.help());
    CHECK(job.allTaken());
    CHECK(job.done.load());
    CHECK(job.chunksDone.load() == job.chunks);
    CHECK_FALSE(job.work(false));  // nothing left for the engine
    REQUIRE(std::memcmp(dst.data(), src.data(), n * sizeof(float)) == 0);
  }
}

TEST_CASE("an engine that comes back to copies its waiters made naps, and copies start where they are made meanwhile") {
  // Backlogs of jobs their waiters moved whole, queued while the engine is
  // awake, are what a busy host looks like to it: it naps, copies are made
  // at their start (a complete token), and it comes back after the nap.
  vx::rt::Arena arena;
  vx::rt::CopyEngine& engine = vx::rt::CopyEngine::instance();
  engine.allowNaps(true);
  std::vector<float> src = filled(15, 4096), dst(src.size());
  auto doneJob = [&] {
    auto job = std::make_shared<vx::rt::CopyJob>();
    setUpCopy(*job, src.data(), dst.data(), src.size());
    job->help();  // its waiter moved it before the engine got there
    return job;
  };
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!engine.napping() && std::chrono::steady_clock::now() < until)
    for (int i = 0; i < 64; ++i) engine.submit(doneJob());
  REQUIRE(engine.napping());
  vx::rt::Token<float> t = vx::rt::transfer_async(arena, vx::rt::Hbm<float>{src.data(), src.size()}, "t");
  if (engine.napping()) CHECK(t.job == nullptr);  // unless the nap ended in between
  vx::rt::Buf<float> b = vx::rt::wait(t);
  REQUIRE(std::memcmp(b.data, src.data(), src.size() * sizeof(float)) == 0);
  // Back once no more such jobs come: a nap lasts at most 64 ms (about a
  // second where the host stays full: HostLoad), and the jobs queued during
  // it make at most one more.
  while (engine.napping() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK_FALSE(engine.napping());
  noNaps();
}

TEST_CASE("the host reads full when more threads can run than it has cores") {
  using vx::rt::HostLoad;
  CHECK(HostLoad::runnable("0.52 0.58 0.59 3/412 977\n") == 3);
  CHECK(HostLoad::runnable("12.00 9.50 7.25 130/2048 31337") == 130);
  CHECK(HostLoad::runnable("0.52 0.58 0.59") == 0);       // no fourth field
  CHECK(HostLoad::runnable("0.52 0.58 0.59 x/412 9") == 0);  // no count
  CHECK(HostLoad::runnable("0.52 0.58 0.59 3 9") == 0);      // no total
  CHECK(HostLoad::runnable("") == 0);
  auto loadFile = [](const char* name, const char* text) {
    std::string path = std::string("/tmp/vx_runtime_test_") + name + "_" + std::to_string(::getpid());
    FILE* f = std::fopen(path.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs(text, f);
    std::fclose(f);
    return path;
  };
  std::string busy = loadFile("busy", "4.00 4.00 4.00 1000000/1000001 5\n");
  HostLoad full(busy.c_str());
  REQUIRE(full.cores() > 0);
  CHECK(full.full());
  std::string quiet = loadFile("quiet", "0.00 0.00 0.00 1/100 5\n");
  HostLoad notFull(quiet.c_str());
  CHECK_FALSE(notFull.full());
  std::remove(busy.c_str());
  std::remove(quiet.c_str());
  HostLoad missing("/nonexistent/loadavg");  // unreadable: never full
  CHECK_FALSE(missing.full());
}

TEST_CASE("a grid's workers make their copies themselves, landed by the wait") {
  // With every core a worker (grid.h), copies are made where they start.
  vx::rt::Arena arena;
  std::vector<float> src = filled(7, 64 * 256);
  const bool was = vx::rt::copiesInline;
  vx::rt::copiesInline = true;
  vx::rt::Hbm<float> whole{src.data(), src.size()};
  whole.cols = 256;
  whole.stride = 256;
  vx::rt::Hbm<float> blk = vx::rt::block(whole, 8, 32, 16, 64, 64, 256, false, "t");
  vx::rt::Token<float> t = vx::rt::transfer_async(arena, blk, "t");
  CHECK(t.job == nullptr);
  vx::rt::Buf<float> b = vx::rt::wait(t);
  for (size_t r = 0; r < 16; ++r)
    REQUIRE(std::memcmp(b.data + r * 64, src.data() + (8 + r) * 256 + 32, 64 * sizeof(float)) == 0);
  std::vector<float> back(64 * 256, 0.0f);
  vx::rt::Hbm<float> out{back.data(), back.size()};
  out.cols = 256;
  out.stride = 256;
  vx::rt::wait(vx::rt::store_async(b, vx::rt::block(out, 8, 32, 16, 64, 64, 256, false, "t")));
  CHECK(back[8 * 256 + 32] == src[8 * 256 + 32]);
  CHECK(back[8 * 256 + 31] == 0.0f);
  vx::rt::copiesInline = was;
}

TEST_CASE("integer and float semantics are Rust's") {
  CHECK(vx::rt::div_s<int32_t>(-7, 2, "t") == -3);  // truncates toward zero
  CHECK(vx::rt::rem_s<int32_t>(-7, 2, "t") == -1);
  CHECK(vx::rt::div_u<int32_t>(-2, 2, "t") == 0x7fffffff);  // u32: 0xfffffffe / 2
  CHECK(vx::rt::add_u<uint64_t>(1, 2, "t") == 3);
  CHECK(vx::rt::fp_to_int<int32_t, int32_t>(1e20f) == std::numeric_limits<int32_t>::max());
  CHECK(vx::rt::fp_to_int<int32_t, int32_t>(-1e20f) == std::numeric_limits<int32_t>::min());
  CHECK(vx::rt::fp_to_int<int32_t, int32_t>(std::nanf("")) == 0);
  CHECK(vx::rt::fp_to_int<uint32_t, int32_t>(-5.0f) == 0);
  CHECK(vx::rt::fp_to_int<int32_t, int32_t>(-2.9f) == -2);
  CHECK(static_cast<float>(vx::rt::bf16(1.5f)) == 1.5f);
}
