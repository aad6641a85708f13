// DMA engines, matrix unit, vector unit: functional effect, race checks and
// timing of each instruction that leaves the scalar unit.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "sim/Machine.h"
#include "vx/data.h"

namespace vx::sim {

using tpu::Op;

namespace {
constexpr uint16_t kTrackScalar = 0, kTrackVector = 1, kTrackMatrix = 2, kTrackDma0 = 3;

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

bool overlaps(int64_t lo, int64_t hi, int64_t lo2, int64_t hi2) { return lo < hi2 && lo2 < hi; }
}  // namespace

int64_t Machine::resolve(uint32_t pc, unsigned operand, const MemRef& m, int64_t len, bool tile) {
  const Memory& mm = mem_[m.buf];
  const int64_t off = static_cast<int64_t>(static_cast<uint64_t>(vals_[m.offVal]) + static_cast<uint64_t>(m.disp));
  if (off < 0 || len > mm.size || off > mm.size - len)
    fault(FaultKind::OutOfBounds, pc,
          "operand " + std::to_string(operand + 1) + " addresses " + std::to_string(len) + " bytes at offset " +
              std::to_string(off) + " of " + tpu::spaceName(mm.space) + " buffer `" + prog_.buffers[m.buf].name +
              "`, which has " + std::to_string(mm.size) + " bytes");
  if (tile && off % tpu::dtypeBytes(mm.dtype) != 0)
    fault(FaultKind::Misaligned, pc,
          "operand " + std::to_string(operand + 1) + " addresses offset " + std::to_string(off) + " of `" +
              prog_.buffers[m.buf].name + "`, not a multiple of its " + tpu::dtypeName(mm.dtype) + " element size");
  return off;
}

void Machine::checkRead(uint32_t pc, uint32_t buf, int64_t lo, int64_t hi) {
  for (const Inflight& f : inflight_)
    if (f.dstBuf == buf && overlaps(lo, hi, f.dstLo, f.dstHi))
      fault(FaultKind::ReadDuringDmaWrite, pc,
            "reads " + describeRange(buf, lo, hi) + " while DMA #" + std::to_string(f.id) +
                " is still writing them (no dma.wait on sem" + std::to_string(f.sem) + " retired it yet)",
            f.id);
}

void Machine::checkWrite(uint32_t pc, uint32_t buf, int64_t lo, int64_t hi) {
  for (const Inflight& f : inflight_) {
    if (f.dstBuf == buf && overlaps(lo, hi, f.dstLo, f.dstHi))
      fault(FaultKind::WriteDuringDma, pc,
            "writes " + describeRange(buf, lo, hi) + " while DMA #" + std::to_string(f.id) +
                " is still writing them (no dma.wait on sem" + std::to_string(f.sem) + " retired it yet)",
            f.id);
    if (f.srcBuf == buf && overlaps(lo, hi, f.srcLo, f.srcHi))
      fault(FaultKind::WriteDuringDma, pc,
            "writes " + describeRange(buf, lo, hi) + " while DMA #" + std::to_string(f.id) +
                " is still reading them (no dma.wait on sem" + std::to_string(f.sem) + " retired it yet)",
            f.id);
  }
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
  const uint64_t t = now();
  if (opt_.trace && t > runStart_) record({EventKind::Scalar, kTrackScalar, runInstr_, runStart_, t - runStart_, -1, 0});
  runStart_ = t;
}

void Machine::busyUnit(uint16_t track, EventKind kind, uint32_t pc, uint64_t cost) {
  flushScalarRun();
  record({kind, track, pc, now(), cost, -1, 0});
  extra_ += cost;
  (track == kTrackVector ? vectorBusy_ : matrixBusy_) += cost;
  runStart_ = now();
  runInstr_ = pc + 1;
}

uint8_t Machine::semaphore(uint32_t pc, const Dec& d) {
  const int64_t s = vals_[d.sem];
  if (s < 0 || s >= static_cast<int64_t>(tpu::kNumSems))
    fault(FaultKind::OutOfBounds, pc, "semaphore number " + std::to_string(s) + " is outside sem0..sem31");
  return static_cast<uint8_t>(s);
}

void Machine::dmaStart(uint32_t pc, const Dec& d) {
  const uint8_t sem = semaphore(pc, d);
  const int64_t bytes = vals_[d.v[2]];
  if (bytes <= 0) fault(FaultKind::OutOfBounds, pc, "DMA size must be positive, not " + std::to_string(bytes));
  const MemRef& s = d.m[0];
  const MemRef& t = d.m[1];
  const int64_t so = resolve(pc, 0, s, bytes, false);
  const int64_t to = resolve(pc, 1, t, bytes, false);
  if (s.buf == t.buf && overlaps(so, so + bytes, to, to + bytes))
    fault(FaultKind::DmaOverlapsItself, pc,
          "the DMA's source " + describeRange(s.buf, so, so + bytes) + " and destination " +
              describeRange(t.buf, to, to + bytes) + " overlap");
  checkRead(pc, s.buf, so, so + bytes);
  checkWrite(pc, t.buf, to, to + bytes);
  if (inflight_.size() >= cfg_.dmaMaxInflight)
    fault(FaultKind::TooManyDmas, pc,
          "starts a DMA while " + std::to_string(inflight_.size()) +
              " are in flight (dma_max_inflight); wait for some first");
  // Functionally the copy happens now: the race checks above and below make
  // any program whose result could depend on when it happens a fault.
  std::memmove(mem_[t.buf].data.get() + to, mem_[s.buf].data.get() + so, static_cast<size_t>(bytes));

  const uint64_t issue = now();
  size_t e = 0;
  for (size_t i = 1; i < engineFree_.size(); ++i)
    if (engineFree_[i] < engineFree_[e]) e = i;
  const uint64_t start = std::max(issue, engineFree_[e]);
  const bool srcHbm = mem_[s.buf].space == tpu::Space::Hbm, dstHbm = mem_[t.buf].space == tpu::Space::Hbm;
  const int link = (srcHbm || dstHbm) ? 0 : 1;
  const double bpc = link == 0 ? cfg_.hbmBytesPerCycle() : cfg_.onchipBytesPerCycle;
  // HBM to HBM crosses the HBM interface twice (read and write).
  const double moved = static_cast<double>(bytes) * (srcHbm && dstHbm ? 2.0 : 1.0);
  const auto data = static_cast<uint64_t>(std::ceil(moved / bpc));
  const uint64_t dataStart = std::max(start, linkFree_[link]);
  linkFree_[link] = dataStart + data;
  const uint64_t complete = dataStart + data + cfg_.dmaLatency;
  Profile& prof = res_.profile;
  ++prof.dmas;
  prof.dmaBytes += static_cast<uint64_t>(bytes);
  prof.queueCycles += dataStart - issue;
  prof.transferCycles += data;
  prof.latencyCycles += cfg_.dmaLatency;
  if (link == 0) prof.hbmBusy += data;
  engineFree_[e] = complete;
  engineBusy_[e] += complete - start;

  const int64_t id = nextDma_++;
  inflight_.push_back({id, pc, sem, s.buf, t.buf, so, so + bytes, to, to + bytes, complete});
  // Records stop with the events (the trace only grows), so dmas[id] is DMA #id.
  if (opt_.trace && res_.trace.size() < cfg_.traceMaxEvents) {
    res_.dmas.push_back({pc, static_cast<int32_t>(s.buf), static_cast<int32_t>(t.buf), so, to, bytes, sem});
    record({EventKind::Dma, static_cast<uint16_t>(kTrackDma0 + e), pc, start, complete - start, id,
            static_cast<uint32_t>(std::min<uint64_t>(cfg_.dmaLatency, complete - start))});
  } else if (opt_.trace) {
    res_.traceTruncated = true;
  }
}

void Machine::dmaWait(uint32_t pc, const Dec& d) {
  const uint8_t sem = semaphore(pc, d);
  // Completion-counting semaphore: retire the in-flight DMA on this
  // semaphore that completes first.
  size_t best = inflight_.size();
  for (size_t i = 0; i < inflight_.size(); ++i) {
    const Inflight& f = inflight_[i];
    if (f.sem != sem) continue;
    if (best == inflight_.size() || f.complete < inflight_[best].complete ||
        (f.complete == inflight_[best].complete && f.id < inflight_[best].id))
      best = i;
  }
  if (best == inflight_.size()) {
    std::string others;
    for (const Inflight& f : inflight_) others += " #" + std::to_string(f.id) + " (sem" + std::to_string(f.sem) + ")";
    fault(FaultKind::Deadlock, pc,
          "waits on sem" + std::to_string(sem) + ", but no DMA in flight signals it: this wait would never end" +
              (others.empty() ? std::string(" (no DMA is in flight)") : "; in flight:" + others));
  }
  const uint64_t t = now();
  const uint64_t complete = inflight_[best].complete;
  if (pc < res_.profile.waitsByInstr.size()) {
    ++res_.profile.waitsByInstr[pc];
    if (complete > t) res_.profile.stallByInstr[pc] += complete - t;
  }
  if (complete > t) {
    flushScalarRun();
    record({EventKind::Stall, kTrackScalar, pc, t, complete - t, inflight_[best].id, sem});
    extra_ += complete - t;
    runStart_ = now();
    runInstr_ = pc + 1;
  }
  inflight_[best] = inflight_.back();
  inflight_.pop_back();
}

void Machine::halt(uint32_t pc) {
  if (!inflight_.empty()) {
    const Inflight* first = &inflight_[0];
    for (const Inflight& f : inflight_)
      if (f.id < first->id) first = &f;
    fault(FaultKind::HaltWithDmaInFlight, pc,
          "reaches halt with " + std::to_string(inflight_.size()) + " DMA(s) not waited for; the first is DMA #" +
              std::to_string(first->id) + " (wait on sem" + std::to_string(first->sem) + ")",
          first->id);
  }
  flushScalarRun();
}

void Machine::loadTile(uint32_t pc, unsigned operand, const MemRef& m, int64_t rows, int64_t cols,
                       std::vector<float>& out) {
  const Memory& mm = mem_[m.buf];
  const int64_t eb = tpu::dtypeBytes(mm.dtype);
  const int64_t n = rows * cols;
  const int64_t off = resolve(pc, operand, m, n * eb, true);
  checkRead(pc, m.buf, off, off + n * eb);
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
  const Memory& mm = mem_[m.buf];
  const int64_t eb = tpu::dtypeBytes(mm.dtype);
  const int64_t n = rows * cols;
  const int64_t off = resolve(pc, operand, m, n * eb, true);
  checkWrite(pc, m.buf, off, off + n * eb);
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
  const auto dim = static_cast<int64_t>(cfg_.mxuDim);
  const int64_t rows = d.rows, cols = d.cols;
  const auto shape = [](int64_t r, int64_t c) { return "[" + std::to_string(r) + ", " + std::to_string(c) + "]"; };
  uint64_t cost = 0;
  if (d.op == Op::MxuLatch) {
    if (rows > dim || cols > dim)
      fault(FaultKind::MatrixShape, pc,
            "weights " + shape(rows, cols) + " do not fit the " + std::to_string(dim) + "x" + std::to_string(dim) +
                " matrix unit (mxu_dim)");
    loadTile(pc, 0, d.m[0], rows, cols, w_);
    wK_ = rows;
    wN_ = cols;
    identity_ = false;
    wF32_ = mem_[d.m[0].buf].dtype == tpu::DType::F32;
    cost = static_cast<uint64_t>(rows) + cfg_.mxuLatency;
  } else if (d.op == Op::MxuMatmul) {
    if (cols != wK_)
      fault(FaultKind::MatrixShape, pc,
            "X " + shape(rows, cols) + " has " + std::to_string(cols) + " columns but the latched weights " +
                shape(wK_, wN_) + " have " + std::to_string(wK_) + " rows" + (identity_ ? " (the identity)" : ""));
    if (rows > static_cast<int64_t>(cfg_.accRows))
      fault(FaultKind::MatrixShape, pc,
            "X has " + std::to_string(rows) + " rows; the accumulator has " + std::to_string(cfg_.accRows) +
                " (acc_rows)");
    loadTile(pc, 0, d.m[0], rows, cols, scratchA_);
    const bool xF32 = mem_[d.m[0].buf].dtype == tpu::DType::F32;
    for (int64_t i = 0; i < rows; ++i) {
      float* acc = acc_.data() + i * dim;
      const float* x = scratchA_.data() + i * cols;
      if (identity_) {
        for (int64_t j = 0; j < cols; ++j) acc[j] += x[j];
        continue;
      }
      for (int64_t k = 0; k < cols; ++k) {
        const float xk = x[k];
        const float* w = w_.data() + k * wN_;
        for (int64_t j = 0; j < wN_; ++j) acc[j] += xk * w[j];
      }
    }
    accRowsUsed_ = std::max(accRowsUsed_, rows);
    const uint64_t passes = (xF32 || (!identity_ && wF32_)) ? cfg_.mxuF32Passes : 1;
    cost = ceilDiv(static_cast<uint64_t>(rows) * passes, cfg_.mxuCount) + cfg_.mxuLatency;
  } else {  // Op::MxuPop
    if (cols != wN_)
      fault(FaultKind::MatrixShape, pc,
            "pops " + shape(rows, cols) + " but the latched weights " + shape(wK_, wN_) + " produce " +
                std::to_string(wN_) + " columns");
    if (rows > static_cast<int64_t>(cfg_.accRows))
      fault(FaultKind::MatrixShape, pc,
            "pops " + std::to_string(rows) + " rows; the accumulator has " + std::to_string(cfg_.accRows));
    scratchA_.resize(static_cast<size_t>(rows * cols));
    for (int64_t i = 0; i < rows; ++i)
      std::memcpy(scratchA_.data() + i * cols, acc_.data() + i * dim, static_cast<size_t>(cols) * 4);
    storeTile(pc, 0, d.m[0], rows, cols, scratchA_.data());
    std::fill(acc_.begin(), acc_.begin() + std::max(accRowsUsed_, rows) * dim, 0.0f);
    accRowsUsed_ = 0;
    cost = ceilDiv(static_cast<uint64_t>(rows * cols), cfg_.vpuSublanes * cfg_.vpuLanes) + cfg_.mxuLatency;
  }
  busyUnit(kTrackMatrix, EventKind::Matrix, pc, cost);
}

void Machine::vector(uint32_t pc, const Dec& d) {
  const int64_t rows = d.rows, cols = d.cols;
  const auto n = static_cast<size_t>(rows * cols);
  if (d.op == Op::VecZero || d.op == Op::VecFill) {
    // Check the destination before sizing the scratch from the dims.
    resolve(pc, 0, d.m[0], rows * cols * tpu::dtypeBytes(mem_[d.m[0].buf].dtype), true);
    scratchA_.assign(n, d.op == Op::VecFill ? d.f : 0.0f);
  } else {
    loadTile(pc, 1, d.m[1], rows, cols, scratchA_);
  }
  float* a = scratchA_.data();
  if (d.op == Op::VecAdd || d.op == Op::VecSub || d.op == Op::VecMul || d.op == Op::VecMax || d.op == Op::VecMin ||
      d.op == Op::VecDiv) {
    loadTile(pc, 2, d.m[2], rows, cols, scratchB_);
    const float* b = scratchB_.data();
    if (d.op == Op::VecAdd) for (size_t i = 0; i < n; ++i) a[i] += b[i];
    else if (d.op == Op::VecSub) for (size_t i = 0; i < n; ++i) a[i] -= b[i];
    else if (d.op == Op::VecMul) for (size_t i = 0; i < n; ++i) a[i] *= b[i];
    else if (d.op == Op::VecDiv) for (size_t i = 0; i < n; ++i) a[i] /= b[i];
    else if (d.op == Op::VecMin) for (size_t i = 0; i < n; ++i) a[i] = (a[i] < b[i] || a[i] != a[i]) ? a[i] : b[i];
    else for (size_t i = 0; i < n; ++i) a[i] = (a[i] > b[i] || a[i] != a[i]) ? a[i] : b[i];
  } else if (d.op == Op::VecAddCol || d.op == Op::VecSubCol || d.op == Op::VecMulCol || d.op == Op::VecRsubCol ||
             d.op == Op::VecAddRow || d.op == Op::VecSubRow || d.op == Op::VecMulRow || d.op == Op::VecRsubRow ||
             d.op == Op::VecDivCol || d.op == Op::VecRdivCol || d.op == Op::VecDivRow || d.op == Op::VecRdivRow) {
    const bool col = d.op == Op::VecAddCol || d.op == Op::VecSubCol || d.op == Op::VecMulCol || d.op == Op::VecRsubCol ||
                     d.op == Op::VecDivCol || d.op == Op::VecRdivCol;
    loadTile(pc, 2, d.m[2], col ? rows : 1, col ? 1 : cols, scratchB_);
    const float* b = scratchB_.data();
    for (size_t i = 0; i < n; ++i) {
      const float y = b[col ? i / static_cast<size_t>(cols) : i % static_cast<size_t>(cols)];
      if (d.op == Op::VecAddCol || d.op == Op::VecAddRow) a[i] += y;
      else if (d.op == Op::VecSubCol || d.op == Op::VecSubRow) a[i] -= y;
      else if (d.op == Op::VecMulCol || d.op == Op::VecMulRow) a[i] *= y;
      else if (d.op == Op::VecDivCol || d.op == Op::VecDivRow) a[i] /= y;
      else if (d.op == Op::VecRdivCol || d.op == Op::VecRdivRow) a[i] = y / a[i];
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
    for (size_t i = 0; i < n; ++i) a[i] = std::exp(a[i]);
  } else if (d.op == Op::VecLog) {
    for (size_t i = 0; i < n; ++i) a[i] = std::log(a[i]);
  } else if (d.op == Op::VecSqrt) {
    for (size_t i = 0; i < n; ++i) a[i] = std::sqrt(a[i]);
  } else if (d.op == Op::VecRsqrt) {
    for (size_t i = 0; i < n; ++i) a[i] = 1.0f / std::sqrt(a[i]);
  } else if (d.op == Op::VecTanh) {
    for (size_t i = 0; i < n; ++i) a[i] = std::tanh(a[i]);
  }  // VecCopy, VecZero and VecFill store the loaded or filled tile as is.
  if (d.op == Op::VecTranspose) {
    scratchB_.resize(n);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) scratchB_[static_cast<size_t>(c * rows + r)] = a[r * cols + c];
    std::copy(scratchB_.begin(), scratchB_.end(), scratchA_.begin());
  }
  const bool reduce = d.op == Op::VecRowMax || d.op == Op::VecRowSum;
  if (reduce) {
    // One column: the row's max (NaN if any element is) or its sum in f32.
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = a + r * cols;
      float v = d.op == Op::VecRowMax ? -INFINITY : 0.0f;
      for (int64_t c = 0; c < cols; ++c)
        v = d.op == Op::VecRowSum ? v + row[c] : (std::isnan(row[c]) || row[c] > v) ? row[c] : v;
      a[r] = v;
    }
  }
  if (d.op == Op::VecTranspose)
    storeTile(pc, 0, d.m[0], cols, rows, scratchA_.data());
  else
    storeTile(pc, 0, d.m[0], rows, reduce ? 1 : cols, scratchA_.data());
  // A vector register holds sublanes x lanes 32-bit elements, twice as many bf16.
  const uint64_t perReg = cfg_.vpuSublanes * cfg_.vpuLanes * (4 / tpu::dtypeBytes(mem_[d.m[0].buf].dtype));
  const bool transcendental = d.op == Op::VecExp || d.op == Op::VecLog || d.op == Op::VecSqrt ||
                              d.op == Op::VecRsqrt || d.op == Op::VecTanh || d.op == Op::VecDiv ||
                              d.op == Op::VecDivCol || d.op == Op::VecRdivCol || d.op == Op::VecDivRow ||
                              d.op == Op::VecRdivRow || d.op == Op::VecTranspose;
  busyUnit(kTrackVector, EventKind::Vector, pc,
           (transcendental ? 2 : 1) * ceilDiv(n, perReg) + (reduce ? 2 : 1) * cfg_.vpuLatency);
}

}  // namespace vx::sim
