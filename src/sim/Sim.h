// vxsim as a library: run a .vxdma Program functionally and in time on a
// modelled TensorCore. `vxsim` (main.cpp) and `vxc run --target tpu` both
// call run(); it never throws and never crashes, whatever the program.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tpu/Program.h"

namespace vx::sim {

struct Config {
#define CFG(Key, Member, Type, Default, Min, Max, Doc, Source) CFG_##Type Member = Default;
#define CFG_U64 uint64_t
#define CFG_F64 double
#include "sim/Config.def"
#undef CFG_U64
#undef CFG_F64
#undef CFG
  double hbmBytesPerCycle() const { return hbmGbps / clockGhz; }
};

// Sets `key` from `value`; false and a message when the key is unknown or
// the value is not a number in the key's range.
bool setConfig(Config& c, std::string_view key, std::string_view value, std::string& error);
// `key = value` lines, `#` comments. Returns `file:line: message` errors.
std::vector<std::string> parseConfig(std::string_view text, std::string_view file, Config& c);
// Keys whose value is outside its range (a Config filled in by code skips
// setConfig's checks); run() refuses to simulate such a machine.
std::vector<std::string> checkConfig(const Config& c);
// Every key with its value, in config-file syntax (re-readable).
std::string printConfig(const Config& c);
// The parameter table of docs/tpu/sim.md, generated from Config.def.
std::string configTableMarkdown();

struct Options {
  uint64_t seed = 0;
  std::vector<std::pair<std::string, int64_t>> args;  // parameter values; later wins
  Config config;
  bool trace = false;        // record events for chromeTraceJson / timelineSvg
  bool keepOutputs = false;  // copy output buffers into Result::outputs[i].values
  // Input buffers given by value (by buffer name) instead of vx_fill; each
  // must name an input or inout HBM buffer and hold exactly its elements.
  std::vector<std::pair<std::string, std::vector<float>>> inputs;
  std::string programName = "program.vxdma";  // names the program in fault messages
};

enum class Status : uint8_t { Ok, LoadError, Fault };

enum class FaultKind : uint8_t {
  ReadDuringDmaWrite,   // reads bytes an in-flight DMA is writing
  WriteDuringDma,       // writes bytes an in-flight DMA reads or writes
  DmaOverlapsItself,    // a DMA whose source and destination overlap
  Deadlock,             // dma.wait on a semaphore no in-flight DMA signals
  HaltWithDmaInFlight,  // halt before every started DMA was waited for
  TooManyDmas,          // more than dma_max_inflight started, not waited for
  OutOfBounds,          // an address outside its buffer, or a bad DMA size
  Misaligned,           // a tile address not a multiple of its element size
  Arithmetic,           // division by zero, i64::MIN / -1, shift out of range
  MatrixShape,          // operand shapes the matrix unit cannot take
  InstructionLimit,     // max_instructions executed
  CheckLimit,           // max_check_steps of race checking done
};
const char* faultKindName(FaultKind k);

struct Fault {
  FaultKind kind{};
  uint32_t instr = 0;   // index of the faulting instruction
  unsigned core = 0;    // the core that ran it
  int64_t dma = -1;     // the DMA involved, if any (numbered from 0 in start order)
  std::string message;  // complete, multi-line, names instruction, DMA and source lines
};

struct Output {
  std::string name;
  uint64_t checksum = 0;
  std::vector<float> values;  // only with Options::keepOutputs
};

struct UnitUsage {
  std::string name;  // scalar, vector, matrix, dma0, dma1, ...; core0.scalar, ... with several cores
  uint64_t busyCycles = 0;
  unsigned core = 0;
};

// Stall: the core waits at a dma.wait; UnitStall: it waits for the vector
// or matrix unit (busy, or still reading or writing memory the next
// instruction touches; unit_overlap = 1).
enum class EventKind : uint8_t { Scalar, Stall, UnitStall, Vector, Matrix, Dma };
struct TraceEvent {
  EventKind kind{};
  uint16_t track = 0;  // index into Result::units
  uint32_t instr = 0;  // issuing instruction (first of a scalar run)
  uint64_t start = 0;  // cycles
  uint64_t dur = 0;
  int64_t dma = -1;
  uint32_t detail = 0;  // Stall: the semaphore; UnitStall: the unit's track (1 vector, 2 matrix); Dma: its latency, the last cycles of `dur`
};

struct DmaRecord {  // one per started DMA, for the trace
  uint32_t instr;
  int32_t src, dst;  // buffers
  int64_t srcOff, dstOff, bytes;
  uint8_t sem;
  int64_t rows = 1;  // dma.strided: rows of bytes / rows
  unsigned core = 0;
};

// Where the time went, always recorded: the profile `vxc run --target tpu`
// and `vxsim --profile` print (profileText).
struct Profile {
  std::vector<uint64_t> stallByInstr;  // cycles the core stalled at each dma.wait
  std::vector<uint64_t> waitsByInstr;  // dma.wait executions per instruction
  uint64_t unitStallCycles = 0;        // the cores waited for their vector and matrix units (summed)
  uint64_t dmas = 0, dmaBytes = 0;
  uint64_t queueCycles = 0;     // issue to data start: waiting for an engine or the link
  uint64_t transferCycles = 0;  // the data crossing its link
  uint64_t latencyCycles = 0;   // dma_latency after the data
  uint64_t hbmBusy = 0;         // cycles the HBM link carried data (summed over the cores' ports)
  uint64_t hbmBytes = 0;        // bytes moved to or from HBM (whole bursts)
  double chipBytesPerCycle = 0; // what the chip's HBM delivers to all cores together
};

struct Result {
  Status status = Status::Ok;
  std::vector<std::string> errors;  // LoadError: why the program cannot run
  std::optional<Fault> fault;       // Fault
  std::vector<Output> outputs;      // Ok: output and inout buffers, declaration order
  uint64_t cycles = 0;
  uint64_t instructions = 0;        // executed
  double clockGhz = 1.5;
  std::vector<UnitUsage> units;
  unsigned cores = 1;               // cores that ran the program (`.spmd`: the machine's, else 1)
  std::vector<uint64_t> coreCycles; // per core: when it halted (or stopped)
  std::vector<int64_t> registers;   // r0..r31 when the run ended: core 0's at halt, the faulting core's
  std::vector<TraceEvent> trace;    // Options::trace
  std::vector<DmaRecord> dmas;      // Options::trace
  bool traceTruncated = false;
  Profile profile;
  // vxsim's exit status: 0 ok, 2 the program cannot run, 3 runtime fault.
  int exitCode() const { return status == Status::Ok ? 0 : status == Status::Fault ? 3 : 2; }
};

Result run(const tpu::Program& program, const Options& options);

// What vxsim prints on success: checksum lines, cycles, instructions, busy
// fractions. On failure: the errors or the fault message.
std::string report(const Result& r);

// The profile of a successful run, as text: the stall cycles per Vx source
// line (the program's `.loc`s), a copy's time split into queueing, transfer
// and latency, the HBM link's and the units' utilisation, and a hint where
// the cause is clear (latency-, bandwidth-, copy- or compute-bound).
std::string profileText(const tpu::Program& p, const Result& r);

// Chrome/Perfetto trace-event JSON; an SVG picture of the same timeline.
std::string chromeTraceJson(const tpu::Program& p, const Result& r);
std::string timelineSvg(const tpu::Program& p, const Result& r);

}  // namespace vx::sim
