// The race detector. Within a core, in program order: nothing touches bytes
// an in-flight DMA writes, nothing writes bytes it reads. Between grid
// instances (and between cores), whatever the timing: no instance touches
// HBM bytes another instance writes — the dynamic counterpart of the
// checker's E6010. Strided DMAs count their rows only, never the gaps.
#include <algorithm>
#include <vector>

#include "sim/Machine.h"

namespace vx::sim {

namespace {

// floor(a / b) for b > 0.
int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && (a < 0)); }

// The entry of `m` containing or following `lo`.
AccessMap::iterator firstFrom(AccessMap& m, int64_t lo) {
  auto it = m.upper_bound(lo);
  if (it != m.begin() && std::prev(it)->second.hi > lo) --it;
  return it;
}

bool sameOwner(const Access& a, const Access& b) {
  return a.tag == b.tag && (a.tag == kMany || (a.instr == b.instr && a.core == b.core));
}

// Replaces what `m` says of [lo, hi) with `pieces` (ordered, covering it),
// keeping what lies outside, and merges neighbours with the same owner.
void replace(AccessMap& m, int64_t lo, int64_t hi, const std::vector<std::pair<int64_t, Access>>& pieces) {
  std::vector<std::pair<int64_t, Access>> outside;
  for (auto it = firstFrom(m, lo); it != m.end() && it->first < hi;) {
    if (it->first < lo) outside.push_back({it->first, Access{lo, it->second.tag, it->second.instr, it->second.core}});
    if (it->second.hi > hi) outside.push_back({hi, it->second});
    it = m.erase(it);
  }
  for (const auto& p : outside) m.insert(p);
  for (const auto& p : pieces) m.insert(p);
  // Merge across the pieces and their neighbours.
  auto it = firstFrom(m, lo);
  if (it != m.begin()) --it;
  while (it != m.end() && it->first <= hi) {
    auto next = std::next(it);
    if (next != m.end() && it->second.hi == next->first && sameOwner(it->second, next->second)) {
      it->second.hi = next->second.hi;
      m.erase(next);
      continue;
    }
    it = next;
  }
}

}  // namespace

Span contiguous(uint32_t buf, int64_t lo, int64_t hi) { return Span{buf, lo, 1, hi - lo, hi - lo}; }

bool touches(const Span& s, int64_t lo, int64_t hi) {
  if (hi <= s.lo || lo >= s.hi()) return false;
  if (s.rows == 1) return true;
  // Rows i with s.lo + i * stride < hi and s.lo + i * stride + rowBytes > lo.
  const int64_t last = std::min(s.rows - 1, floorDiv(hi - 1 - s.lo, s.stride));
  const int64_t first = std::max<int64_t>(0, floorDiv(lo - s.lo - s.rowBytes, s.stride) + 1);
  return first <= last;
}

bool touches(const Span& a, const Span& b) {
  if (a.buf != b.buf || a.hi() <= b.lo || b.hi() <= a.lo) return false;
  const Span& few = a.rows <= b.rows ? a : b;
  const Span& other = a.rows <= b.rows ? b : a;
  for (int64_t i = 0; i < few.rows; ++i) {
    const int64_t lo = few.lo + i * few.stride;
    if (touches(other, lo, lo + few.rowBytes)) return true;
  }
  return false;
}

void Machine::spendChecks(uint32_t pc, uint64_t steps) {
  checkSteps_ += steps;
  if (checkSteps_ > cfg_.maxCheckSteps)
    fault(FaultKind::CheckLimit, pc,
          "the race checks reached max_check_steps = " + std::to_string(cfg_.maxCheckSteps) +
              " (rows of accesses compared with the DMAs in flight and recorded for grid instances): this run's "
              "strided accesses are too many to check; raise it with --set max_check_steps=N");
}

void Machine::checkRead(uint32_t pc, const Span& s) {
  for (const Inflight& f : c_->inflight) spendChecks(pc, stepsFor(f.dst, s));
  for (const Inflight& f : c_->inflight)
    if (f.dst.buf == s.buf && touches(f.dst, s))
      fault(FaultKind::ReadDuringDmaWrite, pc,
            "reads " + describeSpan(s) + " while DMA #" + std::to_string(f.id) +
                " is still writing them (no dma.wait on sem" + std::to_string(f.sem) + " retired it yet)",
            f.id);
}

void Machine::checkWrite(uint32_t pc, const Span& s) {
  for (const Inflight& f : c_->inflight) spendChecks(pc, stepsFor(f.dst, s) + stepsFor(f.src, s));
  for (const Inflight& f : c_->inflight) {
    if (f.dst.buf == s.buf && touches(f.dst, s))
      fault(FaultKind::WriteDuringDma, pc,
            "writes " + describeSpan(s) + " while DMA #" + std::to_string(f.id) +
                " is still writing them (no dma.wait on sem" + std::to_string(f.sem) + " retired it yet)",
            f.id);
    if (f.src.buf == s.buf && touches(f.src, s))
      fault(FaultKind::WriteDuringDma, pc,
            "writes " + describeSpan(s) + " while DMA #" + std::to_string(f.id) +
                " is still reading them (no dma.wait on sem" + std::to_string(f.sem) + " retired it yet)",
            f.id);
  }
}

// Cores do not synchronise and instances run in no order, so an instance's
// access races with every other instance's access of the same bytes when
// one of them writes, however the run was timed; it faults when the second
// of the two happens.
void Machine::instanceAccess(uint32_t pc, const Span& s, bool write) {
  if (mem(s.buf).space != tpu::Space::Hbm) return;
  const Core& c = *c_;
  spendChecks(pc, 64 * static_cast<uint64_t>(s.rows));
  const Access me{0, c.tag, pc, c.id};
  // Another owner: another instance, or the same instance number on another
  // core (a grid loop that does not start at `core.id` runs an instance on
  // every core: those race as two instances do).
  auto otherOwner = [&](const Access& a) { return a.tag != c.tag || (a.tag >= 0 && a.core != c.id); };
  auto clash = [&](const Access& other, int64_t lo, int64_t hi, bool otherWrote) {
    const std::string them = describeTag(other.tag, other.core);
    fault(write ? FaultKind::WriteDuringDma : FaultKind::ReadDuringDmaWrite, pc,
          describeTag(c.tag, c.id) + (write ? " writes " : " reads ") + describeRange(s.buf, lo, hi) + ", which " +
              them + (otherWrote ? " writes" : " read") +
              ": grid instances and cores run in no order, so they race (the dynamic counterpart of the checker's "
              "E6010)\n  " +
              (other.tag == kMany ? "one of those reads" : them + (otherWrote ? " wrote" : " read") + " them") +
              " at " + describeInstr(other.instr));
  };
  for (int64_t i = 0; i < s.rows; ++i) {
    const int64_t lo = s.lo + i * s.stride, hi = lo + s.rowBytes;
    for (auto it = firstFrom(written_[s.buf], lo); it != written_[s.buf].end() && it->first < hi; ++it)
      if (otherOwner(it->second)) clash(it->second, std::max(lo, it->first), std::min(hi, it->second.hi), true);
    if (!write) continue;
    for (auto it = firstFrom(read_[s.buf], lo); it != read_[s.buf].end() && it->first < hi; ++it)
      if (otherOwner(it->second)) clash(it->second, std::max(lo, it->first), std::min(hi, it->second.hi), false);
  }
  for (int64_t i = 0; i < s.rows; ++i) {
    const int64_t lo = s.lo + i * s.stride, hi = lo + s.rowBytes;
    std::vector<std::pair<int64_t, Access>> pieces;
    if (write) {
      pieces.push_back({lo, Access{hi, me.tag, me.instr, me.core}});
      replace(written_[s.buf], lo, hi, pieces);
      continue;
    }
    // Reads: ranges another tag read already are read by several.
    AccessMap& m = read_[s.buf];
    int64_t at = lo;
    for (auto it = firstFrom(m, lo); it != m.end() && it->first < hi; ++it) {
      const int64_t a = std::max(lo, it->first), b = std::min(hi, it->second.hi);
      if (a > at) pieces.push_back({at, Access{a, me.tag, me.instr, me.core}});
      Access piece = it->second;
      piece.hi = b;
      if (otherOwner(piece)) piece.tag = kMany;
      pieces.push_back({a, piece});
      at = b;
    }
    if (at < hi) pieces.push_back({at, Access{hi, me.tag, me.instr, me.core}});
    replace(m, lo, hi, pieces);
  }
}

}  // namespace vx::sim
