// The simulated chip (internal to src/sim): pre-decoded code, HBM shared by
// the TensorCores, and per core its registers, VMEM/SMEM, unit timing state
// and in-flight DMAs. Sim.cpp loads and drives it; Exec.cpp is the
// interpreter loop, Dma.cpp the DMA engines and the chip's HBM, Units.cpp the
// matrix and vector units, Races.cpp the race checks, Faults.cpp the fault
// messages.
//
// Timing model: every instruction takes scalar_cycles to issue. A matrix or
// vector instruction then occupies its unit; with unit_overlap (the
// default, a VLIW core's bundles) the core issues on meanwhile and stalls
// only when the unit's queue of issued, not yet started instructions is
// full (unit_queue), or when an instruction reads memory a unit is still
// writing or writes memory a unit is still reading or writing (a
// scoreboard over the units' operands); a queued instruction starts when
// its unit is free and its operands are ready;
// without it the core waits for every unit instruction. DMAs run in the
// background on DMA engines and links, and dma.wait stalls the core until
// the DMA it retires has completed; halt waits for the units to finish. So
// time advances with each core, and a DMA overlaps whatever its core does
// meanwhile. Functionally every instruction takes effect when it issues:
// the scoreboard and the race checks make that indistinguishable. Cores meet
// only in HBM: their DMAs are started in the order of their issue times, so
// that the chip's HBM bandwidth is shared in time order.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/Sim.h"

namespace vx::sim {

// A memory operand, decoded: byte offset = vals[offVal] + disp.
struct MemRef {
  uint32_t buf = 0;
  uint32_t offVal = 0;
  int64_t disp = 0;
};

// One instruction, decoded so that the interpreter does no lookups: value
// operands index `vals` (registers 0..31, then constants and parameters),
// memory operands appear in `m` in operand order.
struct Dec {
  tpu::Op op{};
  uint32_t sem = 0;                    // semaphore operand: index into vals
  uint32_t v[tpu::kMaxOperands] = {};  // by operand position (r, x, i, p kinds)
  uint32_t target = 0;                 // label operand
  MemRef m[3];
  int64_t rows = 0, cols = 0;          // dims operand
  float f = 0;                         // float operand
};

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};

struct Memory {
  std::unique_ptr<uint8_t[], FreeDeleter> data;
  int64_t size = 0;  // bytes
  tpu::Space space{};
  tpu::DType dtype{};
};

// The bytes of one buffer that one side of a DMA (or a unit) touches: `rows`
// runs of `rowBytes`, `stride` bytes apart; rows == 1 is one contiguous run.
struct Span {
  uint32_t buf = 0;
  int64_t lo = 0, rows = 1, rowBytes = 0, stride = 0;
  int64_t hi() const { return lo + (rows - 1) * stride + rowBytes; }
  int64_t bytes() const { return rows * rowBytes; }
};
Span contiguous(uint32_t buf, int64_t lo, int64_t hi);
// Whether the span touches [lo, hi), or another span of the same buffer:
// exactly, rows only, never the gaps between them.
bool touches(const Span& s, int64_t lo, int64_t hi);
bool touches(const Span& a, const Span& b);

// Memory a vector or matrix instruction reads or writes until `done`.
struct UnitUse {
  Span span;
  bool write = false;
  uint64_t done = 0;
};

// What a DMA instruction moves, decoded from its operands and registers.
struct DmaOperands {
  uint8_t sem = 0;
  Span src, dst;
};

struct Inflight {
  int64_t id;
  uint32_t instr;
  uint8_t sem;
  Span src, dst;
  uint64_t complete;
};

// Who touched a range of HBM, for the race check between grid instances
// (Races.cpp): an instance (>= 0), a core's own code (-1 - core), or, for
// reads, several of them (kMany).
inline constexpr int64_t kMany = INT64_MIN;
struct Access {
  int64_t hi = 0;
  int64_t tag = 0;
  uint32_t instr = 0;  // an instruction that made the access
  unsigned core = 0;
};
using AccessMap = std::map<int64_t, Access>;  // non-overlapping [lo, hi) by lo

// One TensorCore: what it has of its own.
struct Core {
  unsigned id = 0;
  uint16_t track0 = 0;         // its first unit (scalar) in Result::units
  std::vector<int64_t> vals;   // 32 registers, then a 0, then constants
  std::vector<Memory> local;   // its VMEM and SMEM buffers (HBM entries unused)
  std::vector<Memory*> mem;    // per buffer: its own, or the chip's HBM buffer
  uint32_t pc = 0;
  bool halted = false;
  bool atDma = false;          // stopped before a DMA start, which runs first when resumed
  uint64_t executed = 0;       // instructions issued
  uint64_t extra = 0;          // cycles spent beyond issuing: stalls (and, without unit_overlap, units)
  uint64_t vectorBusy = 0, matrixBusy = 0;
  uint64_t vectorFree = 0, matrixFree = 0;  // when each unit finishes its last instruction
  std::vector<uint64_t> vectorQueued, matrixQueued;  // start times of issued, not yet started ones (unit_queue)
  std::vector<UnitUse> unitUses;            // operands of unit instructions, some still in use
  std::vector<uint64_t> engineFree, engineBusy;
  uint64_t portFree = 0;       // its HBM port carries one transfer at a time
  uint64_t onchipFree = 0;     // likewise its on-chip link
  std::vector<Inflight> inflight;
  // Per semaphore: completions waited for but not yet attributed to a DMA.
  // With several in flight on one semaphore, a wait says one of them is done,
  // not which: none is retired until the waits count them all.
  std::vector<uint32_t> semCredits = std::vector<uint32_t>(32, 0);
  int64_t tag = 0;             // whose HBM accesses these are (grid.instance)
  // Matrix unit. W is wK x wN row-major; identity until the first latch.
  std::vector<float> w;
  int64_t wK = 0, wN = 0;
  bool identity = true, wF32 = false;
  std::vector<float> acc;  // acc_rows x mxu_dim
  int64_t accRowsUsed = 0;
  std::vector<float> scratchA, scratchB;
  // Trace: the scalar unit's current run of issue cycles starts here.
  uint64_t runStart = 0;
  uint32_t runInstr = 0;
};

// Thrown by unit code on a fault; caught once in Machine::execute.
struct FaultSignal {
  Fault fault;
};

class Machine {
 public:
  Machine(const tpu::Program& p, const Options& o, Result& r) : prog_(p), opt_(o), cfg_(o.config), res_(r) {}
  // Loads; on failure fills res_.errors and returns false.
  bool load();
  // Runs every core to halt, or until one faults, and fills the result.
  void execute();

 private:
  // Exec.cpp: runs the current core until it halts or, with `yieldAtDma`,
  // reaches a DMA start (which it starts when next resumed).
  void interpret(bool yieldAtDma);
  // Dma.cpp
  uint8_t semaphore(uint32_t pc, const Dec& d);
  // dma.start and dma.strided: their operands (faults where they are bad);
  // the wait for units still using their memory (before the start is
  // ordered among the cores); the start.
  DmaOperands dmaOperands(uint32_t pc, const Dec& d);
  void dmaAwaitUnits(uint32_t pc, const Dec& d);
  void dma(uint32_t pc, const Dec& d);
  void startDma(uint32_t pc, uint8_t sem, Span src, Span dst);
  uint64_t hbmBursts(const Span& s) const;
  uint64_t chipTransfer(uint64_t start, double bytes, uint64_t alone);
  void dmaWait(uint32_t pc, const Dec& d);
  void halt(uint32_t pc);
  // Units.cpp
  void matrix(uint32_t pc, const Dec& d);
  // `dbg.*`: prints the line (vx/debug.h) on standard error.
  void debug(uint32_t pc, const Dec& d);
  void vector(uint32_t pc, const Dec& d);
  void loadTile(uint32_t pc, unsigned operand, const MemRef& m, int64_t rows, int64_t cols, std::vector<float>& out);
  void storeTile(uint32_t pc, unsigned operand, const MemRef& m, int64_t rows, int64_t cols, const float* in);
  int64_t resolve(uint32_t pc, unsigned operand, const MemRef& m, int64_t len, bool tile);
  // Runs the instruction on its unit for `cost` cycles, with the operands
  // loadTile and storeTile noted (opSpans_); see the timing model above.
  void busyUnit(uint16_t track, EventKind kind, uint32_t pc, uint64_t cost);
  // When the units stop using memory that touches `s` in a way that orders
  // against a read (or, with `write`, a write) of it; now() if they do not.
  uint64_t unitsDoneWith(const Span& s, bool write);
  // Stalls the core until `t` (if later than now), waiting for unit `track`.
  void stallForUnit(uint32_t pc, uint64_t t, uint16_t track);
  // Stalls until the units no longer use `s` as a read (write) of it must wait for.
  void awaitUnits(uint32_t pc, const Span& s, bool write);
  void flushScalarRun();
  void record(const TraceEvent& e);
  // Races.cpp: against this core's in-flight DMAs; between grid instances.
  void checkRead(uint32_t pc, const Span& s);
  void checkWrite(uint32_t pc, const Span& s);
  void instanceAccess(uint32_t pc, const Span& s, bool write);
  // Counts `steps` of race checking against max_check_steps (a fault past it).
  void spendChecks(uint32_t pc, uint64_t steps);
  // The steps comparing two spans row by row take (the rows of the fewer).
  static uint64_t stepsFor(const Span& a, const Span& b) {
    return a.buf != b.buf ? 0 : static_cast<uint64_t>(std::min(a.rows, b.rows));
  }
  // Faults.cpp
  [[noreturn]] void fault(FaultKind k, uint32_t pc, std::string what, int64_t dma = -1);
  std::string describeInstr(uint32_t pc) const;
  std::string describeDma(const Inflight& f) const;
  std::string describeRange(uint32_t buf, int64_t lo, int64_t hi) const;
  std::string describeSpan(const Span& s) const;
  std::string describeTag(int64_t tag, unsigned core) const;
  // Sim.cpp
  bool decode();
  void finish();
  Memory& mem(uint32_t buf) const { return *c_->mem[buf]; }
  uint64_t timeOf(const Core& c) const { return c.executed * cfg_.scalarCycles + c.extra; }
  uint64_t now() const { return timeOf(*c_); }
  bool multicore() const { return cores_.size() > 1; }

  const tpu::Program& prog_;
  const Options& opt_;
  const Config& cfg_;
  Result& res_;

  std::vector<Dec> code_;
  std::vector<std::pair<Span, bool>> opSpans_;  // the unit instruction being issued: its operands, written?
  std::vector<int64_t> vals0_;  // every core's vals at the start
  std::vector<int64_t> paramValues_;
  std::vector<Memory> hbm_;     // per buffer; only HBM buffers hold memory here
  std::vector<Core> cores_;
  Core* c_ = nullptr;           // the core running now
  uint64_t othersExecuted_ = 0; // instructions of the other cores (max_instructions counts all)
  uint64_t checkSteps_ = 0;     // race checking done, every core's (max_check_steps)
  int64_t nextDma_ = 0;

  // The race check between grid instances: per HBM buffer, who wrote and
  // who read each byte range (only when instances or cores can differ).
  bool trackInstances_ = false;
  std::vector<AccessMap> written_, read_;

  // The chip's HBM: bytes granted per window of kChipWindow cycles, from
  // window chipBase_ on (earlier ones are past every core's issue time).
  bool chipShared_ = false;
  std::deque<double> chipUsed_;
  uint64_t chipBase_ = 0;
};

}  // namespace vx::sim
