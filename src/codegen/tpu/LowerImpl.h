// Shared state of the VIR -> machine IR lowering (Lower*.cpp). One Lowering
// per kernel; calls are inlined, so every MLIR value of a callee gets a Val
// per call in that call's frame.
#pragma once

#include <map>
#include <set>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "codegen/tpu/Mir.h"
#include "codegen/tpu/Tpu.h"
#include "diag/Sink.h"
#include "dialect/VxDialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Operation.h"

namespace vx::codegen::tpu {

// What a VIR value is at run time.
struct Val {
  enum class Kind : uint8_t { None, Int, Float, Vec, Place, Token };
  Kind kind = Kind::None;
  // `vx.undef`: no value on this path. A merge takes its shape from the
  // other sources and only defines its registers (zero) on this path.
  bool undef = false;
  // Int (also i1): a constant, a register, or a `.param` loaded where used.
  bool isConst = false;
  int64_t c = 0;
  int vreg = -1;
  int param = -1;
  bool nonneg = false;  // known to be >= 0 as a 64-bit value
  int64_t ub = -1;      // when >= 0: known to be below it (`i % 2`)
  bool belowMax = false;  // known to be below INT64_MAX (a loop index), so `+ 1` cannot overflow
  // Float: only constants compute (no scalar float unit).
  double f = 0;
  // Vec: its HBM buffer, length parameter (or `vreg`, once loaded) and bytes
  // per element.
  int lenParam = -1;
  int64_t elemBytes = 0;
  // Place (a buffer; a token's payload): byte offset offVreg + base(site) + off.
  int32_t buffer = -1;
  int site = -1;
  int64_t off = 0;
  int offVreg = -1;
  // A strided view of an HBM tensor (vx.block) when viewRows > 0: viewRows
  // rows of viewRowBytes, a stride apart (bytes: strideC, or strideVreg).
  int64_t viewRows = 0, viewRowBytes = 0, strideC = 0;
  int strideVreg = -1;
  int pseudo = -1;  // on-chip buffers and tokens: the liveness variable
  // Token: its semaphore (semVreg, or semImm + base(semSite)); `ready` tokens
  // (--sync-baseline) have none.
  bool hasPayload = false;
  bool ready = false;
  int semSite = -1;
  int64_t semImm = 0;
  int semVreg = -1;
};

enum class TrapKind : uint8_t {
#define TRAP(Kind, Word, Message) Kind,
#include "codegen/tpu/Traps.def"
#undef TRAP
};
const char* trapWord(TrapKind k);     // the SMEM word its stub reads past
const char* trapMessage(TrapKind k);  // what `vxc run` reports

// Operand builders.
inline MOp R(int v) { MOp o; o.kind = isa::OperandKind::Reg; o.vreg = v; return o; }
inline MOp XR(int v) { MOp o; o.kind = isa::OperandKind::RegOrImm; o.vreg = v; return o; }
inline MOp XI(int64_t c, int site = -1) { MOp o; o.kind = isa::OperandKind::RegOrImm; o.imm = c; o.site = site; return o; }
inline MOp I(int64_t c, int site = -1) { MOp o; o.kind = isa::OperandKind::Imm; o.imm = c; o.site = site; return o; }
inline MOp Lbl(int l) { MOp o; o.kind = isa::OperandKind::Label; o.imm = l; return o; }
inline MOp Prm(int p) { MOp o; o.kind = isa::OperandKind::Param; o.imm = p; return o; }
inline MOp Dims(int64_t r, int64_t c) { MOp o; o.kind = isa::OperandKind::Dims; o.imm = r; o.cols = c; return o; }
inline MOp Flt(float f) { MOp o; o.kind = isa::OperandKind::Float; o.f = f; return o; }
inline MOp Word(int32_t buffer, int64_t off = 0) { MOp o; o.kind = isa::OperandKind::Word; o.buffer = buffer; o.imm = off; return o; }

struct Lowering {
  Mir m;
  mlir::ModuleOp module;
  base::FileId file;
  diag::Sink& sink;
  bool failed = false;
  std::string entryName;

  llvm::DenseMap<mlir::Value, Val>* vals = nullptr;  // the current call's frame
  std::vector<int> loopStack;
  std::vector<std::string> callStack;
  isa::Loc loc;     // of the op being lowered
  base::Span span;

  // Arenas: [space: vmem, smem][dtype: f32, bf16]; -1 until used.
  int32_t arenas[2][2] = {{-1, -1}, {-1, -1}};
  int32_t accFlag = -1;  // SMEM word set by matmul_acc when `acc` is an output
  bool hasOutputs = false;
  bool spmd = false;     // the kernel has a grid: every core runs the program
  bool inGrid = false;   // lowering a grid instance's body
  std::map<TrapKind, int32_t> trapBuffers;
  // (kind, line, col) -> label of a stub that faults there.
  std::map<std::tuple<TrapKind, uint32_t, uint32_t>, int> trapLabels;

  // The matrix unit: shapes that must agree across the kernel.
  std::optional<std::pair<int64_t, int64_t>> latched;  // load_weights [K, N]
  int64_t accRows = -1;                                 // matmul_acc's M
  std::optional<mlir::Location> firstMma, firstImplicit;
  // Each matmul_acc: its tile's columns, where, and whether load_weights
  // ran before it on every path (weightsSure then), else the weights may
  // be the identity there.
  struct MatmulUse {
    int64_t k;
    mlir::Location at;
    bool latchedOnEveryPath;
  };
  std::vector<MatmulUse> matmulKs;
  // Whether load_weights has run on every path to the op being lowered:
  // set by it, joined (and) over an `if`'s branches, kept from before a
  // loop whose body may not run.
  bool weightsSure = false;
  std::vector<MatmulUse> storeNs;  // each store_acc: its columns, where, latched on every path

  Lowering(mlir::ModuleOp mod, base::FileId f, diag::Sink& s) : module(mod), file(f), sink(s) {}

  // ---- emission (Lower.cpp) ----
  int fresh();
  int newLabel() { return m.numLabels++; }
  int newPseudo() { return m.numPseudos++; }
  MInstr& emit(isa::Op op, std::initializer_list<MOp> ops);
  MInstr& marker();
  void bind(int label);
  void edge(int from, int to, Edge::Kind k, int backLoop = -1);
  int currentLoop() const { return loopStack.empty() ? -1 : loopStack.back(); }

  // Reports E0206 (`what` is not available on target tpu; `why` labels the
  // span) once and stops the lowering.
  void fail(mlir::Location at, const std::string& what, const std::string& why);
  void setLoc(mlir::Location at);

  // A register holding an Int value (constants and parameters are loaded).
  int reg(const Val& v);
  // `rN or IMM` for an Int value.
  MOp x(const Val& v);
  // A Mem or Tile operand addressing `place`.
  MOp memOp(const Val& place, isa::OperandKind kind = isa::OperandKind::Mem) const;
  MOp semOp(const Val& token) const;
  int32_t arena(isa::Space space, isa::DType dtype);
  // A new site made by the current op; in a loop, with the code computing
  // its instance (`rotating`: temporaries never need one).
  int newSite(Site::Kind kind, int32_t buffer, int64_t bytes, const std::string& what, bool rotating);
  // An i64 word in SMEM (flags, trap targets), its name made unique.
  int32_t smemWord(const std::string& name);
  // A name for a declaration: unique among parameters and buffers, never a
  // register or semaphore name.
  std::string takeName(std::string want);
  std::set<std::string> usedNames;
  // The label of a stub that faults with a `kind` trap at the current op.
  int trap(TrapKind kind);

  Val lookup(mlir::Value v);
  void define(mlir::Value v, const Val& val) { (*vals)[v] = val; }

  void lowerBlock(mlir::Block& block);
  void lowerOp(mlir::Operation* op);
  // The values a callee returns; empty on failure.
  std::vector<Val> inlineCall(mlir::func::FuncOp callee, const std::vector<Val>& args, mlir::Location at);
  llvm::DenseSet<mlir::Operation*> hoisted;  // lowered in a loop's preheader already
  // Out-of-line code (slow paths), placed after the kernel's `halt`.
  std::vector<MInstr> cold;
  template <typename F>
  void outOfLine(F&& f) {
    std::swap(m.code, cold);
    f();
    std::swap(m.code, cold);
  }

  // A merge point's value (iteration argument, if result): fresh registers
  // shaped like `proto`, and the moves that fill them.
  Val mergedLike(const Val& proto, mlir::Type t, mlir::Location at);
  Val mergedOfType(mlir::Type t, mlir::Location at);
  Val failedMerge(mlir::Type t, mlir::Location at);
  // What a yield, condition or return at `at` passes on for `v`: its value,
  // or `undef` for a token already waited on every path to `at`.
  Val incoming(mlir::Value v, mlir::Operation* at);
  mlir::DominanceInfo dominance;
  bool tokensReady();
  int tokensReady_ = -1;
  void moves(const std::vector<Val>& dst, const std::vector<Val>& src, mlir::Location at, int backLoop);
};

// ---- Lower.cpp: loops, for the grid too ----
// A loop's trip counter (its sites rotate on it, or on `iv`).
int startLoop(Lowering& l, int iv = -1);
// Binds the loop's head label; slot numbers are computed there.
void head(Lowering& l, int id, int label);
void countTrip(Lowering& l, int id);
// Loop-invariant code of `body` to the preheader; returns the values to
// restore after the loop.
std::vector<std::pair<mlir::Value, Val>> hoist(Lowering& l, mlir::Operation* loop, mlir::Block& body);

// ---- LowerGrid.cpp: vx.block, vx.parallel (grid.md) ----
void lowerBlockView(Lowering& l, dialect::BlockOp op);
void lowerParallel(Lowering& l, dialect::ParallelOp op);
// Row `idx` of a strided view (a slot of a block): a contiguous place.
Val stridedRow(Lowering& l, const Val& view, const Val& idx, int64_t rows);
// dma.start, or dma.strided when either end is a strided view.
MInstr& startCopy(Lowering& l, const Val& src, const Val& dst, int64_t bytes, const Val& token);
// An `x` operand for a view's stride.
MOp strideOp(const Val& v);

// ---- LowerOps.cpp: vx ops ----
void lowerVxOp(Lowering& l, mlir::Operation* op);
// Element type, bytes per element and [rows, cols] of a shaped VIR type;
// false (reported) for what the target cannot hold.
bool tensorInfo(Lowering& l, mlir::Type t, mlir::Location at, isa::DType& dtype, int64_t& bytes);
std::pair<int64_t, int64_t> tileDims(mlir::Type t);
// A new on-chip buffer of type `t` (pinned) made by the current op.
Val newBuffer(Lowering& l, mlir::Type t, mlir::Location at, const std::string& what);

// ---- LowerArith.cpp: arith ops with Rust's integer rules ----
void lowerArithOp(Lowering& l, mlir::Operation* op);

// ---- Lower.cpp: the entry, prologue and epilogue ----
std::optional<Kernel> lowerEntry(Lowering& l, mlir::func::FuncOp f, const LowerOptions& options);

}  // namespace vx::codegen::tpu
