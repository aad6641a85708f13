// VIR -> C++: functions, structured control flow, the C entries and header.
// Each SSA value becomes a C++ local; an scf.for's iteration arguments and
// results share one variable, so the loop-carried token is a plain variable
// the loop reassigns.
#include <algorithm>
#include <set>
#include <stdexcept>

#include "codegen/cpu/EmitImpl.h"
#include "dialect/LowerHir.h"
#include "dialect/VirImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "target/Target.h"

namespace vx::cpu {

using namespace vx::dialect;

namespace {
thread_local std::string tRuntime = "vx::rt";

// Sets the namespace cppType uses for one unit's emission.
struct RuntimeScope {
  explicit RuntimeScope(const std::string& ns) { tRuntime = ns; }
  ~RuntimeScope() { tRuntime = "vx::rt"; }
};
}  // namespace

const std::string& runtimeNamespace() { return tRuntime; }

std::string Emitter::name(mlir::Value v) const {
  auto it = names.find(v);
  if (it == names.end()) throw std::runtime_error("cpu codegen: a value is used before it is emitted");
  return it->second;
}

std::string Emitter::fresh(mlir::Value v) {
  std::string n = "v" + std::to_string(next++);
  names[v] = n;
  ++bound[n];
  return n;
}

std::string elemType(mlir::Type t) {
  if (auto p = t.dyn_cast<PinnedType>()) t = p.getElementType();
  else if (auto p = t.dyn_cast<TensorType>()) t = p.getElementType();
  else if (auto p = t.dyn_cast<TokenType>()) t = p.getElementType();
  else if (auto p = t.dyn_cast<VecType>()) return elemType(p.getElementType());
  if (t.isF32()) return "float";
  if (t.isF64()) return "double";
  if (t.isBF16()) return "vx::rt::bf16";
  if (t.isF16()) return "vx::rt::f16";
  throw std::runtime_error("cpu codegen: no C++ element type for this tensor");
}

std::string cppType(mlir::Type t) {
  if (t.isIndex()) return "uint64_t";
  if (t.isInteger(1)) return "bool";
  if (auto i = t.dyn_cast<mlir::IntegerType>()) return "int" + std::to_string(i.getWidth()) + "_t";
  if (t.isF32()) return "float";
  if (t.isF64()) return "double";
  if (t.isBF16()) return "vx::rt::bf16";
  if (t.isF16()) return "vx::rt::f16";
  const std::string& rt = runtimeNamespace();
  if (t.isa<TensorType>()) return rt + "::Hbm<" + elemType(t) + ">";
  if (t.isa<VecType>()) return rt + "::Vec<" + elemType(t) + ">";
  if (t.isa<PinnedType>()) return rt + "::Buf<" + elemType(t) + ">";
  if (auto k = t.dyn_cast<TokenType>()) return k.isVoid() ? rt + "::VoidToken" : rt + "::Token<" + elemType(t) + ">";
  throw std::runtime_error("cpu codegen: no C++ type for a VIR type");
}

int64_t numElements(mlir::Type t) {
  if (auto p = t.dyn_cast<PinnedType>()) return p.getNumElements();
  if (auto p = t.dyn_cast<TensorType>()) return p.getNumElements();
  return 0;
}

std::string cLiteral(const std::string& text) {
  std::string s = "\"";
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '?') {
      s += '\\';
      s += c;
    } else if (u < 0x20 || u >= 0x7f) {
      // Octal escapes end after three digits (a hex one would swallow what follows).
      s += '\\';
      s += static_cast<char>('0' + (u >> 6));
      s += static_cast<char>('0' + ((u >> 3) & 7));
      s += static_cast<char>('0' + (u & 7));
    } else {
      s += c;
    }
  }
  return s + "\"";
}

std::string locLiteral(mlir::Location loc) {
  mlir::FileLineColLoc file;
  if (auto f = loc.dyn_cast<mlir::FusedLoc>()) {
    for (mlir::Location l : f.getLocations())
      if ((file = l.dyn_cast<mlir::FileLineColLoc>())) break;
  } else {
    file = loc.dyn_cast<mlir::FileLineColLoc>();
  }
  if (!file) return "\"?\"";
  std::string s = "\"";
  for (char c : file.getFilename().strref()) {
    if (c == '"' || c == '\\') s += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) s += c;
  }
  return s + ":" + std::to_string(file.getLine()) + ":" + std::to_string(file.getColumn()) + "\"";
}

namespace {

// Assigns `values` to `targets` as one parallel assignment: a yield may read
// a variable another target of the same yield writes.
void parallelAssign(Emitter& e, const std::vector<std::string>& targets, mlir::ValueRange values) {
  if (targets.empty()) return;
  std::vector<std::string> temps;
  for (size_t i = 0; i < targets.size(); ++i) {
    temps.push_back("y" + std::to_string(e.next++));
    e.line("auto " + temps.back() + " = " + e.name(values[i]) + ";");
  }
  for (size_t i = 0; i < targets.size(); ++i) e.line(targets[i] + " = std::move(" + temps[i] + ");");
}

std::vector<std::string> declareVars(Emitter& e, mlir::TypeRange types) {
  std::vector<std::string> vars;
  for (mlir::Type t : types) {
    vars.push_back("c" + std::to_string(e.next++));
    e.line("[[maybe_unused]] " + cppType(t) + " " + vars.back() + "{};");
  }
  return vars;
}

void emitFor(Emitter& e, mlir::scf::ForOp f) {
  std::vector<std::string> vars;
  for (auto [arg, init, result] : llvm::zip(f.getRegionIterArgs(), f.getInitArgs(), f.getResults())) {
    std::string v = "c" + std::to_string(e.next++);
    e.line("[[maybe_unused]] " + cppType(arg.getType()) + " " + v + " = " + e.name(init) + ";");
    e.alias(arg, v);
    e.alias(result, v);
    vars.push_back(v);
  }
  std::string iv = e.fresh(f.getInductionVar());
  // A signed range compares signed (`-2..3`); `index` is unsigned otherwise.
  if (f->hasAttr(dialect::kSignedRangeAttr))
    e.line("for (int64_t " + iv + " = (int64_t)" + e.name(f.getLowerBound()) + "; " + iv + " < (int64_t)" +
           e.name(f.getUpperBound()) + "; " + iv + " += (int64_t)" + e.name(f.getStep()) + ") {");
  else
    e.line("for (uint64_t " + iv + " = " + e.name(f.getLowerBound()) + "; " + iv + " < " + e.name(f.getUpperBound()) +
           "; " + iv + " += " + e.name(f.getStep()) + ") {");
  ++e.indent;
  emitBlock(e, *f.getBody());
  parallelAssign(e, vars, f.getBody()->getTerminator()->getOperands());
  --e.indent;
  e.line("}");
}

void emitIf(Emitter& e, mlir::scf::IfOp op) {
  std::vector<std::string> vars = declareVars(e, op.getResultTypes());
  for (auto [r, v] : llvm::zip(op.getResults(), vars)) e.alias(r, v);
  e.line("if (" + e.name(op.getCondition()) + ") {");
  ++e.indent;
  emitBlock(e, *op.thenBlock());
  parallelAssign(e, vars, op.thenBlock()->getTerminator()->getOperands());
  --e.indent;
  if (op.elseBlock() && (!op.elseBlock()->without_terminator().empty() || !vars.empty())) {
    e.line("} else {");
    ++e.indent;
    emitBlock(e, *op.elseBlock());
    parallelAssign(e, vars, op.elseBlock()->getTerminator()->getOperands());
    --e.indent;
  }
  e.line("}");
}

void emitWhile(Emitter& e, mlir::scf::WhileOp w) {
  // before-args: carried state; after-args and results: what the condition forwards.
  std::vector<std::string> state;
  for (auto [arg, init] : llvm::zip(w.getBeforeArguments(), w.getInits())) {
    std::string v = "c" + std::to_string(e.next++);
    e.line("[[maybe_unused]] " + cppType(arg.getType()) + " " + v + " = " + e.name(init) + ";");
    e.alias(arg, v);
    state.push_back(v);
  }
  std::vector<std::string> fwd = declareVars(e, w.getResultTypes());
  for (auto [r, v] : llvm::zip(w.getResults(), fwd)) e.alias(r, v);
  for (auto [a, v] : llvm::zip(w.getAfterArguments(), fwd)) e.alias(a, v);
  e.line("for (;;) {");
  ++e.indent;
  emitBlock(e, w.getBefore().front());
  auto cond = mlir::cast<mlir::scf::ConditionOp>(w.getBefore().front().getTerminator());
  parallelAssign(e, fwd, cond.getArgs());
  e.line("if (!" + e.name(cond.getCondition()) + ") break;");
  emitBlock(e, w.getAfter().front());
  parallelAssign(e, state, w.getAfter().front().getTerminator()->getOperands());
  --e.indent;
  e.line("}");
}

// The grid: the body as a lambda that the runtime runs once per instance
// (vx/grid.h on the cpu, vx/cuda/ on b200/h100), with its own invocation
// shadowing the caller's `vx_inv`.
void emitParallel(Emitter& e, ParallelOp p) {
  unsigned n = static_cast<unsigned>(p.getExtents().size());
  std::string ext;
  for (mlir::Value v : p.getExtents()) ext += (ext.empty() ? "" : ", ") + e.name(v);
  e.line("{");
  ++e.indent;
  e.line("const uint64_t vx_ext[" + std::to_string(n) + "] = {" + ext + "};");
  // A grid the checker could not prove apart (E6010 allowed unproved) logs
  // its instances' accesses of HBM and traps on a race (vx/checked.h).
  std::string run = e.checkAccesses ? std::string("vx::rt::checked::parallel_for") : e.rt + "::parallel_for";
  e.line(run + "(vx_inv, vx_ext, " + std::to_string(n) + "u, [&](" + e.rt +
         "::Invocation& vx_inv, const uint64_t* vx_idx) {");
  ++e.indent;
  mlir::Block& body = p.getBody().front();
  for (unsigned i = 0; i < n; ++i) {
    std::string v = e.fresh(body.getArgument(i));
    e.line("[[maybe_unused]] const uint64_t " + v + " = vx_idx[" + std::to_string(i) + "];");
  }
  emitBlock(e, body);
  --e.indent;
  e.line("}, " + locLiteral(p.getLoc()) + ");");
  --e.indent;
  e.line("}");
}

std::string returnType(mlir::func::FuncOp f) {
  auto results = f.getFunctionType().getResults();
  if (results.empty()) return "void";
  if (results.size() == 1) return cppType(results[0]);
  std::string s = "std::tuple<";
  for (size_t i = 0; i < results.size(); ++i) s += (i ? ", " : "") + cppType(results[i]);
  return s + ">";
}

// `p<i>_<name>`: the index keeps names apart that sanitising would merge
// (a tuple parameter's `t.0` and a parameter called `t_0`).
std::string argName(mlir::func::FuncOp f, unsigned i) {
  std::string n = "p" + std::to_string(i) + "_";
  if (auto s = f.getArgAttrOfType<mlir::StringAttr>(i, "vx.name"))
    for (char c : s.getValue()) n += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return n;
}

std::string signature(const Emitter& e, mlir::func::FuncOp f, bool names) {
  // Unused: a function only other targets' entries reach.
  std::string s = std::string("[[maybe_unused]] ") + (e.cuda() ? "VX_DEV " : "") + "static " + returnType(f) + " vxf_" +
                  f.getName().str() + "(";
  s += names ? "[[maybe_unused]] " + e.rt + "::Invocation& vx_inv" : e.rt + "::Invocation&";
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    s += std::string(", ") + (names ? "[[maybe_unused]] " : "") + cppType(f.getArgument(i).getType());
    if (names) s += " " + argName(f, i);
  }
  return s + ")";
}

void emitFunction(Emitter& e, mlir::func::FuncOp f) {
  e.names.clear();
  e.bound.clear();
  e.next = 0;
  e.checkAccesses = e.checkedTokens && f->hasAttr("vx.runtime_checks");
  e.line(signature(e, f, true) + " {");
  ++e.indent;
  for (unsigned i = 0; i < f.getNumArguments(); ++i) e.alias(f.getArgument(i), argName(f, i));
  emitBlock(e, f.front());
  auto ret = mlir::cast<mlir::func::ReturnOp>(f.front().getTerminator());
  if (ret.getNumOperands() == 1) {
    e.line("return " + e.name(ret.getOperand(0)) + ";");
  } else if (ret.getNumOperands() > 1) {
    std::string vals;
    for (mlir::Value v : ret.getOperands()) vals += (vals.empty() ? "" : ", ") + e.name(v);
    e.line("return " + returnType(f) + "(" + vals + ");");
  }
  --e.indent;
  e.line("}");
  e.line("");
}

}  // namespace

namespace {

// The on-chip buffers and the tokens (which hold the buffer of their copy)
// defined by ops of `block` that no later op of the block, its terminator
// included, uses: by the op of the block after which each is dead. VIR has no scopes (an inner `{ }` of the source is flat), so
// a buffer returns to its arena here, after its last use, and never later
// than the end of the source block that E6007 counted it in. A token keeps
// the buffer its copy reads or writes (vx/copy.h, vx/cuda/runtime.h), so a
// buffer released while its copy is in flight stays allocated until the wait.
llvm::DenseMap<mlir::Operation*, llvm::SmallVector<mlir::Value, 2>> deadAfter(mlir::Block& block) {
  llvm::DenseMap<mlir::Operation*, llvm::SmallVector<mlir::Value, 2>> dead;
  for (mlir::Operation& op : block.without_terminator())
    for (mlir::Value r : op.getResults()) {
      if (!r.getType().isa<PinnedType, TokenType>()) continue;
      mlir::Operation* last = &op;
      bool escapes = false;
      for (mlir::Operation* user : r.getUsers()) {
        mlir::Operation* at = block.findAncestorOpInBlock(*user);
        if (!at || at == block.getTerminator()) {
          escapes = true;
          break;
        }
        if (last->isBeforeInBlock(at)) last = at;
      }
      if (!escapes) dead[last].push_back(r);
    }
  return dead;
}

}  // namespace

void emitBlock(Emitter& e, mlir::Block& block) {
  auto dead = deadAfter(block);
  for (mlir::Operation& op : block.without_terminator()) {
    if (auto f = mlir::dyn_cast<mlir::scf::ForOp>(op)) emitFor(e, f);
    else if (auto i = mlir::dyn_cast<mlir::scf::IfOp>(op)) emitIf(e, i);
    else if (auto w = mlir::dyn_cast<mlir::scf::WhileOp>(op)) emitWhile(e, w);
    else if (auto p = mlir::dyn_cast<ParallelOp>(op)) emitParallel(e, p);
    else emitSimpleOp(e, &op);
    auto it = dead.find(&op);
    if (it == dead.end()) continue;
    for (mlir::Value r : it->second) {
      auto n = e.names.find(r);
      if (n == e.names.end() || e.bound.lookup(n->second) != 1) continue;
      e.line(n->second + " = {};  // last use: its buffer goes back to the arena");
    }
  }
}

// ---- entries (EmitEntry.cpp) ----
Entry describeEntry(mlir::func::FuncOp f, const std::string& symbolPrefix);
void emitEntry(Emitter& e, std::string& header, mlir::func::FuncOp f, const Entry& entry);

CppUnit emitCpp(const dialect::Vir& vir, const std::string& headerName, const std::string& origin, Flavor flavor,
                const std::string& symbolPrefix) {
  CppUnit unit;
  Emitter e;
  e.flavor = flavor;
  e.rt = e.cuda() ? "vx::cu" : "vx::rt";
  RuntimeScope scope(e.rt);
  mlir::ModuleOp module = *vir.impl().module;
  const std::string what = e.cuda() ? "target b200/h100: CUDA, or the host interpreter" : "target cpu";
  e.line("// Generated by vxc from " + origin + " (" + what + "). Do not edit.");
  e.line("#include <cstdint>");
  e.line("#include <tuple>");
  if (e.cuda()) {
    // The matrix unit's scratch (weights, accumulator: global memory per
    // CTA) sized for this program's static shapes, and never below the
    // layer's 65,536 cells: the weights' K x N, and the accumulator's rows
    // times the widest weights (a product's N is the weights loaded before it).
    uint64_t weights = 0, widest = 0, rows = 0;
    module.walk([&](mlir::Operation* op) {
      auto dims = [&](unsigned i) {
        mlir::Type t = op->getOperand(0).getType();
        if (auto p = t.dyn_cast<PinnedType>()) return static_cast<uint64_t>(p.getShape()[i]);
        return uint64_t{0};
      };
      if (mlir::isa<LoadWeightsOp>(op)) {
        weights = std::max(weights, dims(0) * dims(1));
        widest = std::max(widest, dims(1));
      }
      if (mlir::isa<MatmulAccOp>(op)) rows = std::max(rows, dims(0));
    });
    uint64_t cells = std::max<uint64_t>({65536, weights, rows * widest});
    e.line("#define VX_MXU_FLOATS " + std::to_string(cells) + "u");
  }
  e.line(e.cuda() ? "#include \"vx/cuda/runtime.h\"" : "#include \"vx/runtime.h\"");
  for (mlir::func::FuncOp f : module.getOps<mlir::func::FuncOp>()) unit.runtimeChecks = unit.runtimeChecks || f->hasAttr("vx.runtime_checks");
  // The CUDA layer has no run-time token checks; the driver refuses such a
  // unit for a device and the interpreter checks every access anyway.
  e.checkedTokens = unit.runtimeChecks && !e.cuda();
  if (e.checkedTokens) e.line("#include \"vx/checked.h\"");
  if (e.cuda()) {
    // The layer's arena is what E6007 counted (src/target/MemSpaces.def).
    uint64_t vmem = target::memory(target::TargetKind::B200, target::MemSpace::VMEM).capacity;
    e.line("static_assert(vx::cu::kSmemBytes == " + std::to_string(vmem) +
           "u, \"the shared-memory arena is the capacity the checker counted\");");
  }
  e.line("#include \"" + headerName + "\"");
  e.line("");
  e.line("namespace vxgen {");
  e.line("");
  auto funcs = module.getOps<mlir::func::FuncOp>();
  for (mlir::func::FuncOp f : funcs) e.line(signature(e, f, false) + ";");
  e.line("");
  for (mlir::func::FuncOp f : funcs) emitFunction(e, f);
  e.line("}  // namespace vxgen");
  e.line("");
  // The guard names the prefix too: two kernels' headers of one file name
  // (in two folders) are told apart by their prefixes.
  std::string guard = "VXGEN_";
  if (symbolPrefix != "vx_")
    for (char c : symbolPrefix) guard += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(c)) : '_';
  for (char c : headerName) guard += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(c)) : '_';
  unit.header = "/* Generated by vxc from " + origin + " (" + what + "): one C entry per fn. */\n#ifndef " + guard +
                "\n#define " + guard + "\n\n#include <stdbool.h>\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (mlir::func::FuncOp f : funcs) {
    Entry entry = describeEntry(f, symbolPrefix);
    emitEntry(e, unit.header, f, entry);
    unit.entries.push_back(std::move(entry));
  }
  unit.header += "#ifdef __cplusplus\n}  /* extern \"C\" */\n#endif\n\n#endif\n";
  unit.source = std::move(e.out);
  return unit;
}

}  // namespace vx::cpu
