// The simulated TensorCore (internal to src/sim): pre-decoded code, memory,
// unit timing state, in-flight DMAs. Sim.cpp drives it; Exec.cpp is the
// interpreter loop, Units.cpp the DMA/matrix/vector instructions, Faults.cpp
// the fault messages.
//
// Timing model: every instruction takes scalar_cycles to issue; matrix and
// vector instructions then occupy their unit and the core waits for them;
// DMAs run in the background on DMA engines and a shared link, and dma.wait
// stalls the core until the DMA it retires has completed. So time advances
// with the core, and a DMA overlaps whatever the core does meanwhile.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
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

struct Inflight {
  int64_t id;
  uint32_t instr;
  uint8_t sem;
  uint32_t srcBuf, dstBuf;
  int64_t srcLo, srcHi, dstLo, dstHi;
  uint64_t complete;
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
  // Runs to halt or a fault and fills the result.
  void execute();

 private:
  friend struct Exec;
  // Exec.cpp
  void interpret();
  // Units.cpp
  uint8_t semaphore(uint32_t pc, const Dec& d);
  void dmaStart(uint32_t pc, const Dec& d);
  void dmaWait(uint32_t pc, const Dec& d);
  void halt(uint32_t pc);
  void matrix(uint32_t pc, const Dec& d);
  void vector(uint32_t pc, const Dec& d);
  void loadTile(uint32_t pc, unsigned operand, const MemRef& m, int64_t rows, int64_t cols, std::vector<float>& out);
  void storeTile(uint32_t pc, unsigned operand, const MemRef& m, int64_t rows, int64_t cols, const float* in);
  int64_t resolve(uint32_t pc, unsigned operand, const MemRef& m, int64_t len, bool tile);
  void checkRead(uint32_t pc, uint32_t buf, int64_t lo, int64_t hi);
  void checkWrite(uint32_t pc, uint32_t buf, int64_t lo, int64_t hi);
  void busyUnit(uint16_t track, EventKind kind, uint32_t pc, uint64_t cost);
  void flushScalarRun();
  void record(const TraceEvent& e);
  uint64_t now() const { return executed_ * cfg_.scalarCycles + extra_; }
  // Faults.cpp
  [[noreturn]] void fault(FaultKind k, uint32_t pc, std::string what, int64_t dma = -1);
  std::string describeInstr(uint32_t pc) const;
  std::string describeDma(const Inflight& f) const;
  std::string describeRange(uint32_t buf, int64_t lo, int64_t hi) const;
  // Sim.cpp
  bool decode();
  void finish();

  const tpu::Program& prog_;
  const Options& opt_;
  const Config& cfg_;
  Result& res_;

  std::vector<Dec> code_;
  std::vector<int64_t> vals_;  // 32 registers, then a 0, then constants
  std::vector<int64_t> paramValues_;
  std::vector<Memory> mem_;

  uint64_t executed_ = 0;  // instructions issued
  uint64_t extra_ = 0;     // cycles the core spent beyond issuing: units and stalls
  uint64_t vectorBusy_ = 0, matrixBusy_ = 0;
  std::vector<uint64_t> engineFree_, engineBusy_;
  uint64_t linkFree_[2] = {0, 0};  // 0: HBM, 1: on-chip
  std::vector<Inflight> inflight_;
  int64_t nextDma_ = 0;

  // Matrix unit. W is wK_ x wN_ row-major; identity until the first latch.
  std::vector<float> w_;
  int64_t wK_ = 0, wN_ = 0;
  bool identity_ = true, wF32_ = false;
  std::vector<float> acc_;  // acc_rows x mxu_dim
  int64_t accRowsUsed_ = 0;
  std::vector<float> scratchA_, scratchB_;

  // Trace: the scalar unit's current run of issue cycles starts here.
  uint64_t runStart_ = 0;
  uint32_t runInstr_ = 0;
};

}  // namespace vx::sim
