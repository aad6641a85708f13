// The matrix and vector units: functional effect, race checks and timing of
// their instructions; the trace's records of what each unit did.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "sim/Machine.h"
#include "vx/data.h"
#include "vx/debug.h"
#include "vx/reduce.h"
#include "vx/vmath.h"

namespace vx::sim {

using tpu::Op;

namespace {
constexpr uint16_t kTrackScalar = 0, kTrackVector = 1, kTrackMatrix = 2;

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
}  // namespace

int64_t Machine::resolve(uint32_t pc, unsigned operand, const MemRef& m, int64_t len, bool tile) {
  const Memory& mm = mem(m.buf);
  // The register plus the displacement, exactly (no wrap: an offset past
  // 2^63 either way is out of bounds, never back inside the buffer).
  const __int128 exact = static_cast<__int128>(c_->vals[m.offVal]) + static_cast<__int128>(m.disp);
  const bool wraps = exact > INT64_MAX || exact < INT64_MIN;
  const int64_t off = wraps ? (exact < 0 ? INT64_MIN : INT64_MAX) : static_cast<int64_t>(exact);
  if (wraps || off < 0 || len > mm.size || off > mm.size - len)
    fault(FaultKind::OutOfBounds, pc,
          "operand " + std::to_string(operand + 1) + " addresses " + std::to_string(len) + " bytes at offset " +
              (wraps ? std::string(exact < 0 ? "below -2^63" : "past 2^63 - 1") : std::to_string(off)) + " of " +
              tpu::spaceName(mm.space) + " buffer `" + prog_.buffers[m.buf].name + "`, which has " +
              std::to_string(mm.size) + " bytes");
  if (tile && off % tpu::dtypeBytes(mm.dtype) != 0)
    fault(FaultKind::Misaligned, pc,
          "operand " + std::to_string(operand + 1) + " addresses offset " + std::to_string(off) + " of `" +
              prog_.buffers[m.buf].name + "`, not a multiple of its " + tpu::dtypeName(mm.dtype) + " element size");
  return off;
}

void Machine::record(const TraceEvent& e) {
  if (!opt_.trace) return;
  if (res_.trace.size() >= cfg_.traceMaxEvents) {
    res_.traceTruncated = true;
    return;
  }
  res_.trace.push_back(e);
}

void Machine::flushScalarRun() {
  Core& c = *c_;
  const uint64_t t = now();
  if (opt_.trace && t > c.runStart)
    record({EventKind::Scalar, static_cast<uint16_t>(c.track0 + kTrackScalar), c.runInstr, c.runStart, t - c.runStart,
            -1, 0});
  c.runStart = t;
}

void Machine::busyUnit(uint16_t track, EventKind kind, uint32_t pc, uint64_t cost) {
  Core& c = *c_;
  (track == kTrackVector ? c.vectorBusy : c.matrixBusy) += cost;
  if (!cfg_.unitOverlap) {
    opSpans_.clear();
    flushScalarRun();
    record({kind, static_cast<uint16_t>(c.track0 + track), pc, now(), cost, -1, 0});
    c.extra += cost;
    c.runStart = now();
    c.runInstr = pc + 1;
    return;
  }
  // The instruction starts when the unit is free and no earlier unit
  // instruction still uses memory its operands must wait for; until then it
  // waits in the unit's queue, and the core stalls only when that is full.
  uint64_t& free = track == kTrackVector ? c.vectorFree : c.matrixFree;
  std::vector<uint64_t>& queued = track == kTrackVector ? c.vectorQueued : c.matrixQueued;
  const auto started = [&] {
    size_t n = 0;  // in start order: the first n have started
    while (n < queued.size() && queued[n] <= now()) ++n;
    queued.erase(queued.begin(), queued.begin() + static_cast<std::ptrdiff_t>(n));
  };
  started();
  if (cfg_.unitQueue > 0 && queued.size() >= cfg_.unitQueue) {
    stallForUnit(pc, queued[queued.size() - cfg_.unitQueue], track);
    started();
  }
  uint64_t ready = free;
  for (const auto& [span, write] : opSpans_) ready = std::max(ready, unitsDoneWith(span, write));
  if (cfg_.unitQueue == 0) stallForUnit(pc, ready, track);
  const uint64_t start = std::max(ready, now()), done = start + cost;
  if (start > now()) queued.push_back(start);
  record({kind, static_cast<uint16_t>(c.track0 + track), pc, start, cost, -1, 0});
  free = done;
  for (const auto& [span, write] : opSpans_) c.unitUses.push_back({span, write, done});
  opSpans_.clear();
}

uint64_t Machine::unitsDoneWith(const Span& s, bool write) {
  Core& c = *c_;
  const uint64_t t = now();
  uint64_t done = t;
  size_t keep = 0;
  for (size_t i = 0; i < c.unitUses.size(); ++i) {
    const UnitUse& u = c.unitUses[i];
    if (u.done <= t) continue;  // finished: forget it
    c.unitUses[keep++] = u;
    // A read waits for writes; a write waits for reads and writes.
    if ((write || u.write) && u.span.buf == s.buf && touches(u.span, s)) done = std::max(done, u.done);
  }
  c.unitUses.resize(keep);
  return done;
}

void Machine::stallForUnit(uint32_t pc, uint64_t t, uint16_t track) {
  Core& c = *c_;
  const uint64_t from = now();
  if (t <= from) return;
  flushScalarRun();
  record({EventKind::UnitStall, static_cast<uint16_t>(c.track0 + kTrackScalar), pc, from, t - from, -1, track});
  res_.profile.unitStallCycles += t - from;
  c.extra += t - from;
  c.runStart = now();
  c.runInstr = pc + 1;
}

void Machine::awaitUnits(uint32_t pc, const Span& s, bool write) {
  if (!cfg_.unitOverlap) return;
  const uint64_t t = unitsDoneWith(s, write);
  // Name the unit that finishes last: the one the core waits for.
  stallForUnit(pc, t, c_->matrixFree >= t ? kTrackMatrix : kTrackVector);
}

void Machine::loadTile(uint32_t pc, unsigned operand, const MemRef& m, int64_t rows, int64_t cols,
                       std::vector<float>& out) {
  const Memory& mm = mem(m.buf);
  const int64_t eb = tpu::dtypeBytes(mm.dtype);
  const int64_t n = rows * cols;
  const int64_t off = resolve(pc, operand, m, n * eb, true);
  checkRead(pc, contiguous(m.buf, off, off + n * eb));
  opSpans_.push_back({contiguous(m.buf, off, off + n * eb), false});
  out.resize(static_cast<size_t>(n));
  const uint8_t* p = mm.data.get() + off;
  if (mm.dtype == tpu::DType::F32) {
    std::memcpy(out.data(), p, static_cast<size_t>(n) * 4);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      out[static_cast<size_t>(i)] = vx_f32_from_bf16(h);
    }
  }
}

void Machine::storeTile(uint32_t pc, unsigned operand, const MemRef& m, int64_t rows, int64_t cols, const float* in) {
  const Memory& mm = mem(m.buf);
  const int64_t eb = tpu::dtypeBytes(mm.dtype);
  const int64_t n = rows * cols;
  const int64_t off = resolve(pc, operand, m, n * eb, true);
  checkWrite(pc, contiguous(m.buf, off, off + n * eb));
  opSpans_.push_back({contiguous(m.buf, off, off + n * eb), true});
  uint8_t* p = mm.data.get() + off;
  if (mm.dtype == tpu::DType::F32) {
    std::memcpy(p, in, static_cast<size_t>(n) * 4);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      uint16_t h = vx_bf16_from_f32(in[i]);
      std::memcpy(p + 2 * i, &h, 2);
    }
  }
}

void Machine::matrix(uint32_t pc, const Dec& d) {
  Core& c = *c_;
  const auto dim = static_cast<int64_t>(cfg_.mxuDim);
  const int64_t rows = d.rows, cols = d.cols;
  const auto shape = [](int64_t r, int64_t c) { return "[" + std::to_string(r) + ", " + std::to_string(c) + "]"; };
  uint64_t cost = 0;
  if (d.op == Op::MxuLatch) {
    if (rows > dim || cols > dim)
      fault(FaultKind::MatrixShape, pc,
            "weights " + shape(rows, cols) + " do not fit the " + std::to_string(dim) + "x" + std::to_string(dim) +
                " matrix unit (mxu_dim)");
    loadTile(pc, 0, d.m[0], rows, cols, c.w);
    c.wK = rows;
    c.wN = cols;
    c.identity = false;
    c.wF32 = mem(d.m[0].buf).dtype == tpu::DType::F32;
    cost = static_cast<uint64_t>(rows) + cfg_.mxuLatency;
  } else if (d.op == Op::MxuMatmul) {
    if (cols != c.wK)
      fault(FaultKind::MatrixShape, pc,
            "X " + shape(rows, cols) + " has " + std::to_string(cols) + " columns but the latched weights " +
                shape(c.wK, c.wN) + " have " + std::to_string(c.wK) + " rows" + (c.identity ? " (the identity)" : ""));
    if (rows > static_cast<int64_t>(cfg_.accRows))
      fault(FaultKind::MatrixShape, pc,
            "X has " + std::to_string(rows) + " rows; the accumulator has " + std::to_string(cfg_.accRows) +
                " (acc_rows)");
    loadTile(pc, 0, d.m[0], rows, cols, c.scratchA);
    const bool xF32 = mem(d.m[0].buf).dtype == tpu::DType::F32;
    for (int64_t i = 0; i < rows; ++i) {
      float* acc = c.acc.data() + i * dim;
      const float* x = c.scratchA.data() + i * cols;
      if (c.identity) {
        for (int64_t j = 0; j < cols; ++j) acc[j] += x[j];
        continue;
      }
      for (int64_t k = 0; k < cols; ++k) {
        const float xk = x[k];
        const float* w = c.w.data() + k * c.wN;
        for (int64_t j = 0; j < c.wN; ++j) acc[j] += xk * w[j];
      }
    }
    c.accRowsUsed = std::max(c.accRowsUsed, rows);
    const uint64_t passes = (xF32 || (!c.identity && c.wF32)) ? cfg_.mxuF32Passes : 1;
    cost = ceilDiv(static_cast<uint64_t>(rows) * passes, cfg_.mxuCount) + cfg_.mxuLatency;
  } else if (d.op == Op::MxuReset) {
    std::fill(c.acc.begin(), c.acc.begin() + c.accRowsUsed * dim, 0.0f);
    c.accRowsUsed = 0;
    c.wK = c.wN = dim;
    c.identity = true;
    c.wF32 = false;
    cost = cfg_.mxuLatency;
  } else {  // Op::MxuPop
    if (cols != c.wN)
      fault(FaultKind::MatrixShape, pc,
            "pops " + shape(rows, cols) + " but the latched weights " + shape(c.wK, c.wN) + " produce " +
                std::to_string(c.wN) + " columns");
    if (rows > static_cast<int64_t>(cfg_.accRows))
      fault(FaultKind::MatrixShape, pc,
            "pops " + std::to_string(rows) + " rows; the accumulator has " + std::to_string(cfg_.accRows));
    c.scratchA.resize(static_cast<size_t>(rows * cols));
    for (int64_t i = 0; i < rows; ++i)
      std::memcpy(c.scratchA.data() + i * cols, c.acc.data() + i * dim, static_cast<size_t>(cols) * 4);
    storeTile(pc, 0, d.m[0], rows, cols, c.scratchA.data());
    std::fill(c.acc.begin(), c.acc.begin() + std::max(c.accRowsUsed, rows) * dim, 0.0f);
    c.accRowsUsed = 0;
    cost = ceilDiv(static_cast<uint64_t>(rows * cols), cfg_.vpuSublanes * cfg_.vpuLanes) + cfg_.mxuLatency;
  }
  busyUnit(kTrackMatrix, EventKind::Matrix, pc, cost);
}

void Machine::vector(uint32_t pc, const Dec& d) {
  Core& k = *c_;
  const int64_t rows = d.rows, cols = d.cols;
  const auto n = static_cast<size_t>(rows * cols);
  if (d.op == Op::VecZero || d.op == Op::VecFill) {
    // Check the destination before sizing the scratch from the dims.
    resolve(pc, 0, d.m[0], rows * cols * tpu::dtypeBytes(mem(d.m[0].buf).dtype), true);
    k.scratchA.assign(n, d.op == Op::VecFill ? d.f : 0.0f);
  } else {
    loadTile(pc, 1, d.m[1], rows, cols, k.scratchA);
  }
  float* a = k.scratchA.data();
  if (d.op == Op::VecAdd || d.op == Op::VecSub || d.op == Op::VecMul || d.op == Op::VecMax || d.op == Op::VecMin ||
      d.op == Op::VecDiv) {
    loadTile(pc, 2, d.m[2], rows, cols, k.scratchB);
    const float* b = k.scratchB.data();
    if (d.op == Op::VecAdd) for (size_t i = 0; i < n; ++i) a[i] += b[i];
    else if (d.op == Op::VecSub) for (size_t i = 0; i < n; ++i) a[i] -= b[i];
    else if (d.op == Op::VecMul) for (size_t i = 0; i < n; ++i) a[i] *= b[i];
    else if (d.op == Op::VecDiv) for (size_t i = 0; i < n; ++i) a[i] /= b[i];
    else if (d.op == Op::VecMin) for (size_t i = 0; i < n; ++i) a[i] = (a[i] < b[i] || a[i] != a[i]) ? a[i] : b[i];
    else for (size_t i = 0; i < n; ++i) a[i] = (a[i] > b[i] || a[i] != a[i]) ? a[i] : b[i];
  } else if (d.op == Op::VecAddCol || d.op == Op::VecSubCol || d.op == Op::VecMulCol || d.op == Op::VecRsubCol ||
             d.op == Op::VecAddRow || d.op == Op::VecSubRow || d.op == Op::VecMulRow || d.op == Op::VecRsubRow ||
             d.op == Op::VecDivCol || d.op == Op::VecRdivCol || d.op == Op::VecDivRow || d.op == Op::VecRdivRow ||
             d.op == Op::VecMaxCol || d.op == Op::VecRmaxCol || d.op == Op::VecMinCol || d.op == Op::VecRminCol ||
             d.op == Op::VecMaxRow || d.op == Op::VecRmaxRow || d.op == Op::VecMinRow || d.op == Op::VecRminRow) {
    const bool col = d.op == Op::VecAddCol || d.op == Op::VecSubCol || d.op == Op::VecMulCol || d.op == Op::VecRsubCol ||
                     d.op == Op::VecDivCol || d.op == Op::VecRdivCol || d.op == Op::VecMaxCol ||
                     d.op == Op::VecRmaxCol || d.op == Op::VecMinCol || d.op == Op::VecRminCol;
    // max/min: NaN where either is; otherwise the first operand unless the
    // second is larger (smaller), as every target computes it.
    auto mx = [](float x, float y) { return (x > y || x != x) ? x : y; };
    auto mn = [](float x, float y) { return (x < y || x != x) ? x : y; };
    loadTile(pc, 2, d.m[2], col ? rows : 1, col ? 1 : cols, k.scratchB);
    const float* b = k.scratchB.data();
    for (size_t i = 0; i < n; ++i) {
      const float y = b[col ? i / static_cast<size_t>(cols) : i % static_cast<size_t>(cols)];
      if (d.op == Op::VecAddCol || d.op == Op::VecAddRow) a[i] += y;
      else if (d.op == Op::VecSubCol || d.op == Op::VecSubRow) a[i] -= y;
      else if (d.op == Op::VecMulCol || d.op == Op::VecMulRow) a[i] *= y;
      else if (d.op == Op::VecDivCol || d.op == Op::VecDivRow) a[i] /= y;
      else if (d.op == Op::VecRdivCol || d.op == Op::VecRdivRow) a[i] = y / a[i];
      else if (d.op == Op::VecMaxCol || d.op == Op::VecMaxRow) a[i] = mx(a[i], y);
      else if (d.op == Op::VecRmaxCol || d.op == Op::VecRmaxRow) a[i] = mx(y, a[i]);
      else if (d.op == Op::VecMinCol || d.op == Op::VecMinRow) a[i] = mn(a[i], y);
      else if (d.op == Op::VecRminCol || d.op == Op::VecRminRow) a[i] = mn(y, a[i]);
      else a[i] = y - a[i];  // rsub
    }
  } else if (d.op == Op::VecRelu) {
    for (size_t i = 0; i < n; ++i) a[i] = a[i] > 0.0f ? a[i] : 0.0f;
  } else if (d.op == Op::VecScale) {
    for (size_t i = 0; i < n; ++i) a[i] *= d.f;
  } else if (d.op == Op::VecAbs) {
    for (size_t i = 0; i < n; ++i) a[i] = std::fabs(a[i]);
  } else if (d.op == Op::VecNeg) {
    for (size_t i = 0; i < n; ++i) a[i] = -a[i];
  } else if (d.op == Op::VecExp) {
    for (size_t i = 0; i < n; ++i) a[i] = vx::vmath::exp(a[i]);
  } else if (d.op == Op::VecLog) {
    for (size_t i = 0; i < n; ++i) a[i] = vx::vmath::log(a[i]);
  } else if (d.op == Op::VecSqrt) {
    for (size_t i = 0; i < n; ++i) a[i] = std::sqrt(a[i]);
  } else if (d.op == Op::VecRsqrt) {
    for (size_t i = 0; i < n; ++i) a[i] = 1.0f / std::sqrt(a[i]);
  } else if (d.op == Op::VecTanh) {
    for (size_t i = 0; i < n; ++i) a[i] = vx::vmath::tanh(a[i]);
  }  // VecCopy, VecZero and VecFill store the loaded or filled tile as is.
  if (d.op == Op::VecTranspose) {
    k.scratchB.resize(n);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) k.scratchB[static_cast<size_t>(c * rows + r)] = a[r * cols + c];
    std::copy(k.scratchB.begin(), k.scratchB.end(), k.scratchA.begin());
  }
  const bool reduce = d.op == Op::VecRowMax || d.op == Op::VecRowSum;
  if (reduce) {
    // One column: the row's max (NaN if any element is) or its sum in f32,
    // in the order of every target (vx/reduce.h).
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = a + r * cols;
      auto at = [row](uint64_t c) { return row[c]; };
      a[r] = d.op == Op::VecRowMax ? vx::reduce::row<float>(static_cast<uint64_t>(cols), at, vx::reduce::Max{})
                                   : vx::reduce::row<float>(static_cast<uint64_t>(cols), at, vx::reduce::Sum{});
    }
  }
  if (d.op == Op::VecTranspose)
    storeTile(pc, 0, d.m[0], cols, rows, k.scratchA.data());
  else
    storeTile(pc, 0, d.m[0], rows, reduce ? 1 : cols, k.scratchA.data());
  // A vector register holds sublanes x lanes 32-bit elements, twice as many bf16.
  const uint64_t perReg = cfg_.vpuSublanes * cfg_.vpuLanes * (4 / tpu::dtypeBytes(mem(d.m[0].buf).dtype));
  const bool transcendental = d.op == Op::VecExp || d.op == Op::VecLog || d.op == Op::VecSqrt ||
                              d.op == Op::VecRsqrt || d.op == Op::VecTanh || d.op == Op::VecDiv ||
                              d.op == Op::VecDivCol || d.op == Op::VecRdivCol || d.op == Op::VecDivRow ||
                              d.op == Op::VecRdivRow || d.op == Op::VecTranspose;
  busyUnit(kTrackVector, EventKind::Vector, pc,
           (transcendental ? 2 : 1) * ceilDiv(n, perReg) + (reduce ? 2 : 1) * cfg_.vpuLatency);
}

void Machine::debug(uint32_t pc, const Dec& d) {
  const int64_t* V = c_->vals.data();
  const tpu::DbgText& t = prog_.dbgs[static_cast<size_t>(V[d.v[0]])];
  if (d.op == Op::DbgTile) {
    const int64_t rows = d.rows, cols = d.cols;
    loadTile(pc, 1, d.m[0], rows, cols, c_->scratchA);
    const float* a = c_->scratchA.data();
    vx::dbg::print_tensor(t.text.c_str(), t.type.c_str(), static_cast<uint64_t>(rows * cols),
                          [a](uint64_t i) { return static_cast<double>(a[i]); });
    busyUnit(kTrackVector, EventKind::Vector, pc, cfg_.vpuLatency);
    return;
  }
  const int64_t v = V[d.v[1]];
  if (d.op == Op::DbgInt) vx::dbg::print_int(t.text.c_str(), v);
  else if (d.op == Op::DbgUint) vx::dbg::print_uint(t.text.c_str(), static_cast<unsigned long long>(v));
  else if (d.op == Op::DbgBool) vx::dbg::print_bool(t.text.c_str(), v != 0);
  else vx::dbg::print_float(t.text.c_str(), static_cast<double>(d.f));
}

}  // namespace vx::sim
