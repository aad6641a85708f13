// The machine IR between VIR and a .vxdma Program: .vxdma instructions over
// unbounded virtual registers, with on-chip buffers and semaphores named by
// allocation *sites* whose bases are chosen later, and *pseudo values* (one
// per on-chip buffer or token value) whose liveness decides what may share
// memory. No MLIR here: Analysis.cpp and Allocate.cpp work on this alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/Source.h"
#include "tpu/Isa.h"
#include "tpu/Program.h"

namespace vx::codegen::tpu {

namespace isa = ::vx::tpu;

// An operand. Its value is reg + base(site) + imm, as the kind allows:
// RegOrImm: vreg, or the immediate imm + base(site); Mem: buffer at byte
// vreg + base(site) + imm; Sem: semaphore vreg, or number imm + base(site).
struct MOp {
  isa::OperandKind kind = isa::OperandKind::Imm;
  int vreg = -1;
  int32_t buffer = -1;  // Mem: index into Mir::buffers
  int site = -1;
  int64_t imm = 0;      // also Dims rows, Label id, Param index
  int64_t cols = 0;     // Dims
  float f = 0;          // Float
};

struct MInstr {
  isa::Op op = isa::Op::Nop;
  bool marker = false;  // emits nothing: a label, or pseudo-value defs and uses
  int label = -1;       // marker: defines this label
  uint8_t n = 0;
  MOp ops[isa::kMaxOperands];
  std::vector<int> pdefs, puses;  // pseudo values defined and used here
  // Token values this instruction consumes (a wait): linear, so a copy of
  // one that a branch or a trip carries on is never waited again.
  std::vector<int> pkills;
  isa::Loc loc;
  int rotSite = -1;   // only rotates site rotSite's instances: dropped when it needs one
  int tripLoop = -1;  // only counts loop tripLoop's trips: dropped when no site rotates on it
  int hubLoop = -1;   // marker at the head of loop hubLoop: its slot numbers are computed here
};

// What a buffer operand names before the program's declarations exist.
struct MBuffer {
  std::string name;
  isa::Space space = isa::Space::Hbm;
  isa::DType dtype = isa::DType::F32;
  std::vector<isa::Dim> shape;  // empty for arenas: sized by allocation
  isa::Role role = isa::Role::Local;
  bool arena = false;
};

// Memory or a semaphore that one op allocates (a buffer per `zeros`, a
// semaphore per transfer). An op inside a loop makes one instance per trip;
// `k` instances rotate when several may be live at once.
struct Site {
  enum class Kind : uint8_t { Memory, Semaphore };
  Kind kind = Kind::Memory;
  int32_t buffer = -1;  // Memory: the arena
  int64_t bytes = 0;    // Memory: one instance
  int loop = -1;        // innermost loop when made; -1 outside loops
  int root = -1;        // the pseudo value an instance is born as
  int defInstr = -1;    // where instances are born
  int slotVreg = -1;    // instance number (trip % k, computed at the loop's head) in a loop
  int offVreg = -1;     // Memory: slot * bytes
  int semVreg = -1;     // Semaphore: base + slot
  isa::Loc loc;
  base::Span span;
  std::string what;     // for diagnostics: `transfer_async`, `zeros`, ...
  int k = 1;
  int64_t base = -1;    // bytes into the arena, or the first semaphore
  // Instances rotate by how many the site has made (a counter from the
  // program's start), not by loop trips: a copy started on some trips only,
  // or kept across trips that skip its refill (`continue`).
  bool counted = false;
};

// How one pseudo value derives from another, for the sites it may hold.
struct Edge {
  enum class Kind : uint8_t {
    Copy,     // the same buffer or token (merges, yields): memory and semaphores
    Payload,  // a buffer inside or of another (wait result, slot view): memory
    Pin,      // a token keeps a buffer its DMA reads or writes: memory
  };
  int from = -1, to = -1;
  Kind kind = Kind::Copy;
  int backLoop = -1;  // a yield into the next trip of this loop
  int at = -1;        // Copy: the marker of the parallel copy that makes `to` from `from`
};

struct Loop {
  int parent = -1;
  int tripVreg = -1;  // trips so far
  int slotBase = -1;  // what slots are computed from: the trip counter, or an induction
                      // variable that counts trips from a non-negative start
};

struct Mir {
  std::vector<MInstr> code;
  std::vector<MBuffer> buffers;
  std::vector<isa::Param> params;
  std::vector<isa::DbgText> dbgs;  // `dbg` texts, numbered as the program's
  std::vector<Site> sites;
  std::vector<Edge> edges;
  std::vector<Loop> loops;
  int numVregs = 0;
  int numPseudos = 0;
  int numLabels = 0;
  std::vector<int> fixedReg;  // per vreg: its physical register, or -1
  // Per vreg: the site whose rotation it computes (-1: none). When that site
  // ends up with k = 1 the vreg is the constant base(rotBase) (0 if -1), its
  // defining instructions go and its uses fold the constant in.
  std::vector<int> rotOwner, rotBase;
  std::vector<isa::Loc> vregLoc;  // where each vreg was made (for diagnostics)
  std::vector<base::Span> vregSpan;
  std::vector<bool> noSpill;  // per vreg: a spill's own load or store temporary
  int32_t spillBuffer = -1;   // the SMEM words spilled values live in
  int numSpills = 0;
};

// A new virtual register (with the per-register facts Mir keeps), made at
// `loc`/`span` for diagnostics.
int addVreg(Mir& m, isa::Loc loc = {}, base::Span span = {});

// ---- Analysis.cpp ----

// Live variables at each instruction: vregs [0, numVregs) then pseudos.
struct Liveness {
  size_t words = 0;                         // 64-bit words per set
  std::vector<std::vector<uint64_t>> in;    // per instruction: live before it
  std::vector<std::vector<uint64_t>> out;   // per instruction: live after it
  std::vector<int> labelAt;                 // label id -> instruction index
  bool test(const std::vector<uint64_t>& s, int v) const { return (s[v >> 6] >> (v & 63)) & 1; }
};
Liveness liveness(const Mir& m);
std::vector<int> regDefs(const MInstr& in);
std::vector<int> regUses(const MInstr& in);

// Sites each pseudo value may hold (propagated along edges to a fixpoint).
std::vector<std::vector<int>> siteSets(const Mir& m);

// Chooses each site's rotation count k; on failure returns the site that
// cannot rotate (a value of it outlives its loop iteration without bound).
int chooseRotations(Mir& m, const Liveness& live, const std::vector<std::vector<int>>& sites);

// Computes slot numbers at each loop's head (one `rem` per rotation count),
// drops rotation code for sites with k = 1 and trip counters nothing uses.
void dropUnusedRotation(Mir& m);

// ---- Allocate.cpp ----

struct AllocError {
  enum class Kind : uint8_t { None, Registers, Semaphores, Memory } kind = Kind::None;
  isa::Loc loc;
  base::Span span;
  std::string detail;
  int64_t bytes = 0;     // Memory: what the allocation needs
  int64_t capacity = 0;
  isa::Space space = isa::Space::Vmem;
  int vreg = -1;         // Registers: the value that found no register
};

// After a Registers error at `failing`: moves one value that interferes
// with it (the longest-lived) to an SMEM word, stored after each definition
// and loaded before each use. False when nothing is left to spill.
bool spillOne(Mir& m, const Liveness& live, int failing);

// Registers, then memory and semaphores; writes the finished program.
AllocError allocate(Mir& m, const Liveness& live, const std::vector<std::vector<int>>& sites, uint64_t vmemBytes,
                    uint64_t smemBytes, isa::Program& out);

}  // namespace vx::codegen::tpu
