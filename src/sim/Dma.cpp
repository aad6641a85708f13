// The DMA engines: dma.start and dma.strided (functional copy, race checks,
// timing), dma.wait, halt; and the chip's HBM, whose bandwidth the cores'
// DMAs share.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "sim/Machine.h"

namespace vx::sim {

namespace {
constexpr uint16_t kTrackScalar = 0, kTrackVector = 1, kTrackMatrix = 2, kTrackDma0 = 3;
// Granularity of the chip's HBM bandwidth accounting, in cycles.
constexpr uint64_t kChipWindow = 8;

// A side whose rows follow each other is one run.
Span coalesced(Span s) {
  if (s.rows > 1 && s.stride == s.rowBytes) {
    s.rowBytes *= s.rows;
    s.stride = s.rowBytes;
    s.rows = 1;
  }
  return s;
}
}  // namespace

uint8_t Machine::semaphore(uint32_t pc, const Dec& d) {
  const int64_t s = c_->vals[d.sem];
  if (s < 0 || s >= static_cast<int64_t>(tpu::kNumSems))
    fault(FaultKind::OutOfBounds, pc, "semaphore number " + std::to_string(s) + " is outside sem0..sem31");
  return static_cast<uint8_t>(s);
}

DmaOperands Machine::dmaOperands(uint32_t pc, const Dec& d) {
  const uint8_t sem = semaphore(pc, d);
  const int64_t* V = c_->vals.data();
  if (d.op == tpu::Op::DmaStart) {
    const int64_t bytes = V[d.v[2]];
    if (bytes <= 0) fault(FaultKind::OutOfBounds, pc, "DMA size must be positive, not " + std::to_string(bytes));
    const int64_t so = resolve(pc, 0, d.m[0], bytes, false);
    const int64_t to = resolve(pc, 1, d.m[1], bytes, false);
    return {sem, contiguous(d.m[0].buf, so, so + bytes), contiguous(d.m[1].buf, to, to + bytes)};
  }
  const int64_t rows = V[d.v[2]], rowBytes = V[d.v[3]], ss = V[d.v[4]], ds = V[d.v[5]];
  if (rows <= 0 || rowBytes <= 0)
    fault(FaultKind::OutOfBounds, pc,
          "a strided DMA moves at least one row of at least one byte, not " + std::to_string(rows) + " rows of " +
              std::to_string(rowBytes) + " bytes");
  if (ss < rowBytes || ds < rowBytes)
    fault(FaultKind::OutOfBounds, pc,
          "a strided DMA's strides (" + std::to_string(ss) + " and " + std::to_string(ds) +
              " bytes) must be at least its rows' " + std::to_string(rowBytes) + " bytes, so that rows do not overlap");
  // Bytes from the first row's start to the last row's end, on each side.
  auto extent = [&](int64_t stride, unsigned operand) {
    int64_t e = 0;
    if (__builtin_mul_overflow(rows - 1, stride, &e) || __builtin_add_overflow(e, rowBytes, &e))
      fault(FaultKind::OutOfBounds, pc,
            "operand " + std::to_string(operand + 1) + ": " + std::to_string(rows) + " rows " + std::to_string(stride) +
                " bytes apart span more than 2^63 bytes");
    return e;
  };
  const int64_t so = resolve(pc, 0, d.m[0], extent(ss, 0), false);
  const int64_t to = resolve(pc, 1, d.m[1], extent(ds, 1), false);
  return {sem, Span{d.m[0].buf, so, rows, rowBytes, ss}, Span{d.m[1].buf, to, rows, rowBytes, ds}};
}

void Machine::dmaAwaitUnits(uint32_t pc, const Dec& d) {
  if (!cfg_.unitOverlap) return;
  const DmaOperands o = dmaOperands(pc, d);
  awaitUnits(pc, coalesced(o.src), false);
  awaitUnits(pc, coalesced(o.dst), true);
}

void Machine::dma(uint32_t pc, const Dec& d) {
  const DmaOperands o = dmaOperands(pc, d);
  startDma(pc, o.sem, o.src, o.dst);
}

uint64_t Machine::hbmBursts(const Span& s) const {
  const auto b = static_cast<int64_t>(cfg_.hbmBurstBytes);
  auto row = [&](int64_t lo) { return static_cast<uint64_t>((lo + s.rowBytes - 1) / b - lo / b + 1); };
  if (s.rows == 1 || s.stride % b == 0) return static_cast<uint64_t>(s.rows) * row(s.lo);
  uint64_t n = 0;
  for (int64_t i = 0; i < s.rows; ++i) n += row(s.lo + i * s.stride);
  return n;
}

// A transfer of `bytes` over the chip's HBM from `start`, which alone would
// take `alone` cycles: it moves at that rate where a window has room left,
// and at what the window has left where other cores' transfers fill it.
// Transfers are granted in the order they start, so earlier ones keep
// their rate. Returns its duration.
uint64_t Machine::chipTransfer(uint64_t start, double bytes, uint64_t alone) {
  const double cap = cfg_.hbmChipGbps / cfg_.clockGhz * static_cast<double>(kChipWindow);
  const double rate = bytes / static_cast<double>(alone);
  double t = static_cast<double>(start), rem = bytes;
  bool slowed = false;
  for (;;) {
    const auto w = static_cast<uint64_t>(t / static_cast<double>(kChipWindow));
    while (chipBase_ + chipUsed_.size() <= w) chipUsed_.push_back(0.0);
    double& used = chipUsed_[w - chipBase_];
    const double span = static_cast<double>((w + 1) * kChipWindow) - t;
    const double room = std::max(0.0, cap - used);
    const double can = std::min(rate * span, room);
    if (can < rate * span * (1 - 1e-12)) slowed = true;
    if (can > 0 && rem <= can) {
      t += rem * span / can;
      used += rem;
      break;
    }
    used += can;
    rem -= can;
    t = static_cast<double>((w + 1) * kChipWindow);
  }
  if (!slowed) return alone;
  return std::max(alone, static_cast<uint64_t>(std::ceil(t - static_cast<double>(start) - 1e-9)));
}

void Machine::startDma(uint32_t pc, uint8_t sem, Span s, Span t) {
  Core& c = *c_;
  s = coalesced(s);
  t = coalesced(t);
  spendChecks(pc, stepsFor(s, t));
  if (s.buf == t.buf && touches(s, t))
    fault(FaultKind::DmaOverlapsItself, pc,
          "the DMA's source " + describeSpan(s) + " and destination " + describeSpan(t) + " overlap");
  checkRead(pc, s);
  checkWrite(pc, t);
  if (c.inflight.size() >= cfg_.dmaMaxInflight)
    fault(FaultKind::TooManyDmas, pc,
          "starts a DMA while " + std::to_string(c.inflight.size()) +
              " are in flight (dma_max_inflight); wait for some first");
  if (trackInstances_) {
    instanceAccess(pc, s, false);
    instanceAccess(pc, t, true);
  }
  // Functionally the copy happens now: the race checks above and below make
  // any program whose result could depend on when it happens a fault.
  uint8_t* dst = mem(t.buf).data.get();
  const uint8_t* src = mem(s.buf).data.get();
  if (s.rows == 1 && t.rows == 1) {
    std::memmove(dst + t.lo, src + s.lo, static_cast<size_t>(s.rowBytes));
  } else {
    // One side may be a single run: then it moves in pieces of the other's rows.
    const int64_t rows = std::max(s.rows, t.rows), rb = s.bytes() / rows;
    const int64_t ss = s.rows == 1 ? rb : s.stride, ts = t.rows == 1 ? rb : t.stride;
    for (int64_t i = 0; i < rows; ++i)
      std::memmove(dst + t.lo + i * ts, src + s.lo + i * ss, static_cast<size_t>(rb));
  }

  // Timing: an engine, then the link (the core's HBM port and the chip's
  // HBM, or its on-chip link), one row request per dma_row_cycles.
  const uint64_t issue = now();
  size_t e = 0;
  for (size_t i = 1; i < c.engineFree.size(); ++i)
    if (c.engineFree[i] < c.engineFree[e]) e = i;
  const uint64_t start = std::max(issue, c.engineFree[e]);
  const bool srcHbm = mem(s.buf).space == tpu::Space::Hbm, dstHbm = mem(t.buf).space == tpu::Space::Hbm;
  const uint64_t requests = static_cast<uint64_t>(std::max(s.rows, t.rows)) * cfg_.dmaRowCycles;
  Profile& prof = res_.profile;
  uint64_t data = 0, dataStart = 0;
  if (srcHbm || dstHbm) {
    // Whole bursts on each HBM side; HBM to HBM crosses it twice.
    const uint64_t moved = (srcHbm ? hbmBursts(s) : 0) * cfg_.hbmBurstBytes + (dstHbm ? hbmBursts(t) : 0) * cfg_.hbmBurstBytes;
    data = std::max(static_cast<uint64_t>(std::ceil(static_cast<double>(moved) / cfg_.hbmBytesPerCycle())), requests);
    dataStart = std::max(start, c.portFree);
    if (chipShared_) {
      // No later transfer starts before this one's issue: forget the past.
      while (!chipUsed_.empty() && (chipBase_ + 1) * kChipWindow <= issue) {
        chipUsed_.pop_front();
        ++chipBase_;
      }
      if (chipUsed_.empty()) chipBase_ = issue / kChipWindow;
      data = chipTransfer(dataStart, static_cast<double>(moved), data);
    }
    c.portFree = dataStart + data;
    prof.hbmBusy += data;
    prof.hbmBytes += moved;
  } else {
    data = std::max(static_cast<uint64_t>(std::ceil(static_cast<double>(s.bytes()) / cfg_.onchipBytesPerCycle)), requests);
    dataStart = std::max(start, c.onchipFree);
    c.onchipFree = dataStart + data;
  }
  const uint64_t complete = dataStart + data + cfg_.dmaLatency;
  ++prof.dmas;
  prof.dmaBytes += static_cast<uint64_t>(s.bytes());
  prof.queueCycles += dataStart - issue;
  prof.transferCycles += data;
  prof.latencyCycles += cfg_.dmaLatency;
  // The engine takes its next DMA once this one's data has moved (its
  // requests are out; the latency overlaps the next), or, without
  // dma_pipelined, once it has completed.
  c.engineFree[e] = cfg_.dmaPipelined ? dataStart + data : complete;
  c.engineBusy[e] += c.engineFree[e] - start;

  const int64_t id = nextDma_++;
  c.inflight.push_back({id, pc, sem, s, t, complete});
  // Records stop with the events (the trace only grows), so dmas[id] is DMA #id.
  if (opt_.trace && res_.trace.size() < cfg_.traceMaxEvents) {
    res_.dmas.push_back({pc, static_cast<int32_t>(s.buf), static_cast<int32_t>(t.buf), s.lo, t.lo, s.bytes(), sem,
                         std::max(s.rows, t.rows), c.id});
    record({EventKind::Dma, static_cast<uint16_t>(c.track0 + kTrackDma0 + e), pc, start, complete - start, id,
            static_cast<uint32_t>(std::min<uint64_t>(cfg_.dmaLatency, complete - start))});
  } else if (opt_.trace) {
    res_.traceTruncated = true;
  }
}

void Machine::dmaWait(uint32_t pc, const Dec& d) {
  Core& c = *c_;
  const uint8_t sem = semaphore(pc, d);
  // Completion-counting semaphore. A wait counts one completion of the DMAs
  // in flight on it. With one in flight, that one retires. With several,
  // which completed is a matter of timing, so none is retired (their bytes
  // stay unusable) until the waits have counted every one of them; each
  // wait lasts until as many of them have completed as it counts.
  std::vector<size_t> on;
  for (size_t i = 0; i < c.inflight.size(); ++i)
    if (c.inflight[i].sem == sem) on.push_back(i);
  uint32_t& credits = c.semCredits[sem % c.semCredits.size()];
  if (on.size() <= credits) {
    std::string others;
    for (const Inflight& f : c.inflight) others += " #" + std::to_string(f.id) + " (sem" + std::to_string(f.sem) + ")";
    fault(FaultKind::Deadlock, pc,
          "waits on sem" + std::to_string(sem) + ", but no DMA in flight signals it" +
              (credits ? " (the waits before it counted the " + std::to_string(credits) + " in flight)" : "") +
              ": this wait would never end" +
              (others.empty() ? std::string(" (no DMA is in flight)") : "; in flight:" + others));
  }
  ++credits;
  // The time the credits-th completion among them happens.
  std::vector<uint64_t> times;
  for (size_t i : on) times.push_back(c.inflight[i].complete);
  std::nth_element(times.begin(), times.begin() + (credits - 1), times.end());
  const uint64_t complete = times[credits - 1];
  size_t first = on[0];
  for (size_t i : on)
    if (c.inflight[i].complete < c.inflight[first].complete ||
        (c.inflight[i].complete == c.inflight[first].complete && c.inflight[i].id < c.inflight[first].id))
      first = i;
  const uint64_t t = now();
  if (pc < res_.profile.waitsByInstr.size()) {
    ++res_.profile.waitsByInstr[pc];
    if (complete > t) res_.profile.stallByInstr[pc] += complete - t;
  }
  if (complete > t) {
    flushScalarRun();
    record({EventKind::Stall, static_cast<uint16_t>(c.track0 + kTrackScalar), pc, t, complete - t,
            c.inflight[first].id, sem});
    c.extra += complete - t;
    c.runStart = now();
    c.runInstr = pc + 1;
  }
  if (credits < on.size()) return;  // not all counted: none retires
  credits = 0;
  std::vector<Inflight> kept;
  for (const Inflight& f : c.inflight)
    if (f.sem != sem) kept.push_back(f);
  c.inflight = std::move(kept);
}

void Machine::halt(uint32_t pc) {
  Core& c = *c_;
  if (!c.inflight.empty()) {
    const Inflight* first = &c.inflight[0];
    for (const Inflight& f : c.inflight)
      if (f.id < first->id) first = &f;
    fault(FaultKind::HaltWithDmaInFlight, pc,
          "reaches halt with " + std::to_string(c.inflight.size()) + " DMA(s) not waited for; the first is DMA #" +
              std::to_string(first->id) + " (wait on sem" + std::to_string(first->sem) + ")",
          first->id);
  }
  // The run ends when the units have finished too.
  if (cfg_.unitOverlap) {
    const bool matrixLast = c.matrixFree >= c.vectorFree;
    stallForUnit(pc, std::max(c.matrixFree, c.vectorFree), matrixLast ? kTrackMatrix : kTrackVector);
  }
  flushScalarRun();
}

}  // namespace vx::sim
