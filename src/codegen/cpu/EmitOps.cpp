// Non-structured ops to C++ statements: arith with Rust's integer semantics
// (vx/scalar.h), vx ops as runtime calls, func.call.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "codegen/cpu/EmitImpl.h"
#include "dialect/LowerHir.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace vx::cpu {

using namespace vx::dialect;
namespace arith = mlir::arith;

void unsupportedOp(mlir::Operation* op) {
  // Target legality runs first, so this is a compiler bug, not a user error.
  throw std::runtime_error("cpu codegen has no rule for `" + op->getName().getStringRef().str() + "`");
}

namespace {

std::string intLiteral(int64_t v, mlir::Type t) {
  std::string ty = cppType(t);
  if (t.isInteger(1)) return v ? "true" : "false";
  if (v == INT64_MIN) return "(" + ty + ")(-9223372036854775807LL - 1)";
  return "(" + ty + ")(" + std::to_string(v) + "LL)";
}

std::string floatLiteral(const llvm::APFloat& f, mlir::Type t) {
  char buf[64];
  double d = f.convertToDouble();
  if (std::isnan(d)) return "(" + cppType(t) + ")(__builtin_nan(\"\"))";
  if (std::isinf(d)) return std::string("(") + cppType(t) + ")(" + (d < 0 ? "-" : "") + "__builtin_inf())";
  std::snprintf(buf, sizeof buf, "%a", d);  // exact
  return "(" + cppType(t) + ")(" + buf + ")";
}

bool isUnsigned(mlir::Operation* op) {
  return op->hasAttr(dialect::kUnsignedAttr) || op->getOperand(0).getType().isIndex();
}

// `(uint32_t)x` for unsigned views of a signed-stored value.
std::string asUnsigned(const std::string& x, mlir::Type t) {
  if (t.isIndex()) return x;
  if (t.isInteger(1)) return x;
  return "(uint" + std::to_string(t.getIntOrFloatBitWidth()) + "_t)" + x;
}
std::string asSigned(const std::string& x, mlir::Type t) {
  if (t.isIndex()) return "(int64_t)" + x;
  return x;
}

std::string cmpi(arith::CmpIPredicate p, const std::string& a, const std::string& b, mlir::Type t) {
  using P = arith::CmpIPredicate;
  auto u = [&](const char* op) { return asUnsigned(a, t) + " " + op + " " + asUnsigned(b, t); };
  auto s = [&](const char* op) { return asSigned(a, t) + " " + op + " " + asSigned(b, t); };
  switch (p) {
    case P::eq: return a + " == " + b;
    case P::ne: return a + " != " + b;
    case P::slt: return s("<");
    case P::sle: return s("<=");
    case P::sgt: return s(">");
    case P::sge: return s(">=");
    case P::ult: return u("<");
    case P::ule: return u("<=");
    case P::ugt: return u(">");
    case P::uge: return u(">=");
  }
  return "false";
}

std::string cmpf(arith::CmpFPredicate p, const std::string& a, const std::string& b) {
  using P = arith::CmpFPredicate;
  switch (p) {
    case P::OEQ: return a + " == " + b;
    case P::UNE: return "!(" + a + " == " + b + ")";
    case P::OLT: return a + " < " + b;
    case P::OGT: return a + " > " + b;
    case P::OLE: return a + " <= " + b;
    case P::OGE: return a + " >= " + b;
    case P::ONE: return "(" + a + " < " + b + " || " + a + " > " + b + ")";
    case P::UEQ: return "!(" + a + " < " + b + " || " + a + " > " + b + ")";
    case P::ULT: return "!(" + a + " >= " + b + ")";
    case P::UGT: return "!(" + a + " <= " + b + ")";
    case P::ULE: return "!(" + a + " > " + b + ")";
    case P::UGE: return "!(" + a + " < " + b + ")";
    case P::ORD: return "(" + a + " == " + a + " && " + b + " == " + b + ")";
    case P::UNO: return "!(" + a + " == " + a + " && " + b + " == " + b + ")";
    case P::AlwaysFalse: return "false";
    case P::AlwaysTrue: return "true";
  }
  return "false";
}

// The C++ expression for an arith op's result; empty if `op` is not arith.
std::string arithExpr(Emitter& e, mlir::Operation* op) {
  auto x = [&](unsigned i) { return e.name(op->getOperand(i)); };
  mlir::Type rt = op->getNumResults() ? op->getResult(0).getType() : mlir::Type();
  std::string ty = rt ? cppType(rt) : "";
  std::string at = locLiteral(op->getLoc());
  auto checked = [&](const char* what) {
    return std::string("vx::rt::") + what + (isUnsigned(op) ? "_u<" : "_s<") + ty + ">(" + x(0) + ", " + x(1) +
           ", " + at + ")";
  };
  if (auto c = mlir::dyn_cast<arith::ConstantOp>(op)) {
    if (auto i = c.getValue().dyn_cast<mlir::IntegerAttr>()) return intLiteral(i.getValue().getSExtValue(), rt);
    if (auto f = c.getValue().dyn_cast<mlir::FloatAttr>()) return floatLiteral(f.getValue(), rt);
    unsupportedOp(op);
  }
  if (mlir::isa<arith::AddIOp>(op)) return checked("add");
  if (mlir::isa<arith::SubIOp>(op)) return checked("sub");
  if (mlir::isa<arith::MulIOp>(op)) return checked("mul");
  if (mlir::isa<arith::DivSIOp>(op)) return "vx::rt::div_s<" + ty + ">(" + x(0) + ", " + x(1) + ", " + at + ")";
  if (mlir::isa<arith::DivUIOp>(op)) return "vx::rt::div_u<" + ty + ">(" + x(0) + ", " + x(1) + ", " + at + ")";
  if (mlir::isa<arith::RemSIOp>(op)) return "vx::rt::rem_s<" + ty + ">(" + x(0) + ", " + x(1) + ", " + at + ")";
  if (mlir::isa<arith::RemUIOp>(op)) return "vx::rt::rem_u<" + ty + ">(" + x(0) + ", " + x(1) + ", " + at + ")";
  if (mlir::isa<arith::AddFOp>(op)) return "(" + ty + ")(" + x(0) + " + " + x(1) + ")";
  if (mlir::isa<arith::SubFOp>(op)) return "(" + ty + ")(" + x(0) + " - " + x(1) + ")";
  if (mlir::isa<arith::MulFOp>(op)) return "(" + ty + ")(" + x(0) + " * " + x(1) + ")";
  if (mlir::isa<arith::DivFOp>(op)) return "(" + ty + ")(" + x(0) + " / " + x(1) + ")";
  if (mlir::isa<arith::RemFOp>(op)) return "(" + ty + ")(std::fmod((double)" + x(0) + ", (double)" + x(1) + "))";
  if (mlir::isa<arith::NegFOp>(op)) return "(" + ty + ")(-" + x(0) + ")";
  if (mlir::isa<arith::XOrIOp>(op)) return rt.isInteger(1) ? "(" + x(0) + " != " + x(1) + ")" : "(" + ty + ")(" + x(0) + " ^ " + x(1) + ")";
  if (mlir::isa<arith::AndIOp>(op)) return "(" + ty + ")(" + x(0) + " & " + x(1) + ")";
  if (mlir::isa<arith::OrIOp>(op)) return "(" + ty + ")(" + x(0) + " | " + x(1) + ")";
  if (auto c = mlir::dyn_cast<arith::CmpIOp>(op))
    return "(" + cmpi(c.getPredicate(), x(0), x(1), op->getOperand(0).getType()) + ")";
  if (auto c = mlir::dyn_cast<arith::CmpFOp>(op)) return "(" + cmpf(c.getPredicate(), x(0), x(1)) + ")";
  mlir::Type st = op->getNumOperands() ? op->getOperand(0).getType() : mlir::Type();
  // Casts: `as` wraps between integers, saturates from floats.
  if (mlir::isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op))
    return "(" + ty + ")" + asSigned(x(0), st);
  if (mlir::isa<arith::ExtUIOp, arith::IndexCastUIOp>(op)) return "(" + ty + ")" + asUnsigned(x(0), st);
  if (mlir::isa<arith::SIToFPOp>(op)) return "(" + ty + ")" + x(0);
  if (mlir::isa<arith::UIToFPOp>(op)) return "(" + ty + ")" + asUnsigned(x(0), st);
  if (mlir::isa<arith::FPToSIOp>(op)) return "vx::rt::fp_to_int<" + ty + ", " + ty + ">(" + x(0) + ")";
  if (mlir::isa<arith::FPToUIOp>(op))
    return "vx::rt::fp_to_int<uint" + std::to_string(rt.getIntOrFloatBitWidth()) + "_t, " + ty + ">(" + x(0) + ")";
  if (mlir::isa<arith::ExtFOp, arith::TruncFOp>(op)) return "(" + ty + ")(" + x(0) + ")";
  return {};
}

std::string shapeDim(mlir::Type t, unsigned i) {
  if (auto p = t.dyn_cast<PinnedType>()) return std::to_string(p.getShape()[i]);
  if (auto p = t.dyn_cast<TensorType>()) return std::to_string(p.getShape()[i]);
  return "0";
}

// The C++ expression for a vx op's result (or statement for ops without one).
// The CUDA layer's copies, waits, stores and matrix ops also take the source
// location, for the interpreter's reports.
std::string vxExpr(Emitter& e, mlir::Operation* op) {
  auto x = [&](unsigned i) { return e.name(op->getOperand(i)); };
  std::string at = locLiteral(op->getLoc());
  const std::string rt = e.rt + "::";
  const std::string atCu = e.cuda() ? ", " + at : "";
  // Default-constructed: an empty token or buffer that no path reads.
  if (mlir::isa<UndefOp>(op)) return cppType(op->getResult(0).getType()) + "{}";
  if (mlir::isa<VecLenOp>(op)) return x(0) + ".len";
  if (mlir::isa<VecGetOp>(op)) return x(0) + ".get(" + x(1) + ", " + at + ")";
  if (mlir::isa<SlotOp>(op)) return x(0) + ".slot(" + x(1) + ", " + shapeDim(op->getOperand(0).getType(), 0) + ", " + at + ")";
  if (auto b = mlir::dyn_cast<BlockOp>(op)) {
    auto shape = b.getResult().getType().cast<TensorType>().getShape();
    return rt + "block(" + x(0) + ", " + x(1) + ", " + x(2) + ", " + std::to_string(shape[0]) + "u, " +
           std::to_string(shape[1]) + "u, " + x(3) + ", " + x(4) + ", " + (b.getChecked() ? "true" : "false") + ", " + at + ")";
  }
  if (mlir::isa<LoadElemOp>(op)) return x(0) + ".load(" + x(1) + ", " + at + ")";
  if (mlir::isa<StoreElemOp>(op)) return x(1) + ".store(" + x(2) + ", " + x(0) + ", " + at + ")";
  if (mlir::isa<TransferOp>(op)) return rt + "transfer(vx_inv.arena, " + x(0) + ", " + at + ")";
  if (mlir::isa<TransferIntoOp>(op)) return rt + "transfer_into(" + x(0) + ", " + x(1) + atCu + ")";
  if (e.checkedTokens) {
    if (mlir::isa<TransferAsyncOp>(op)) return "vx::rt::checked::transfer_async(vx_inv.arena, " + x(0) + ", " + at + ")";
    if (mlir::isa<TransferAsyncIntoOp>(op))
      return "vx::rt::checked::transfer_async_into(" + x(0) + ", " + x(1) + ", " + at + ")";
    if (mlir::isa<StoreAsyncOp>(op)) return "vx::rt::checked::store_async(" + x(0) + ", " + x(1) + ", " + at + ")";
    if (mlir::isa<WaitOp>(op)) return "vx::rt::checked::wait(" + x(0) + ", " + at + ")";
  }
  if (mlir::isa<TransferAsyncOp>(op)) return rt + "transfer_async(vx_inv.arena, " + x(0) + ", " + at + ")";
  if (mlir::isa<TransferAsyncIntoOp>(op)) return rt + "transfer_async_into(" + x(0) + ", " + x(1) + atCu + ")";
  if (mlir::isa<WaitOp>(op)) return rt + "wait(" + x(0) + atCu + ")";
  if (auto r = mlir::dyn_cast<ReadyOp>(op)) return r.getValue() ? rt + "ready(" + x(0) + ")" : rt + "ready()";
  if (mlir::isa<StoreOp>(op)) return rt + "store(" + x(0) + ", " + x(1) + atCu + ")";
  if (mlir::isa<StoreAsyncOp>(op)) return rt + "store_async(" + x(0) + ", " + x(1) + atCu + ")";
  if (mlir::isa<ZerosOp>(op)) {
    mlir::Type t = op->getResult(0).getType();
    return rt + "zeros<" + elemType(t) + ">(vx_inv.arena, " + std::to_string(numElements(t)) + ", " + at + ")";
  }
  if (mlir::isa<MatmulAccOp>(op)) {
    mlir::Type t = op->getOperand(0).getType();
    return "vx_inv.mxu.matmul_acc(" + x(0) + ", " + shapeDim(t, 0) + ", " + shapeDim(t, 1) + ", " + at + ")";
  }
  if (mlir::isa<LoadWeightsOp>(op)) {
    mlir::Type t = op->getOperand(0).getType();
    return "vx_inv.mxu.load_weights(" + x(0) + ", " + shapeDim(t, 0) + ", " + shapeDim(t, 1) + atCu + ")";
  }
  if (mlir::isa<StoreAccOp>(op)) {
    mlir::Type t = op->getOperand(0).getType();
    return "vx_inv.mxu.store_acc(" + x(0) + ", " + shapeDim(t, 0) + ", " + shapeDim(t, 1) + ", " + at + ")";
  }
  if (mlir::isa<MmaOp>(op)) {
    mlir::Type acc = op->getOperand(0).getType(), a = op->getOperand(1).getType();
    // The CUDA layer's `mma` runs on the block's tensor cores (vx/cuda/mma.h).
    const std::string tensorCores = e.cuda() ? "vx_inv.tc, " : "";
    return rt + "mma(" + tensorCores + x(0) + ", " + x(1) + ", " + x(2) + ", " + shapeDim(acc, 0) + ", " +
           shapeDim(acc, 1) + ", " + shapeDim(a, 1) + atCu + ")";
  }
  if (mlir::isa<AddOp>(op)) return rt + "add(vx_inv.arena, " + x(0) + ", " + x(1) + ", " + at + ")";
  if (mlir::isa<SubOp>(op)) return rt + "sub(vx_inv.arena, " + x(0) + ", " + x(1) + ", " + at + ")";
  if (mlir::isa<MulOp>(op)) return rt + "mul(vx_inv.arena, " + x(0) + ", " + x(1) + ", " + at + ")";
  if (mlir::isa<ScaleOp>(op)) return rt + "scale(vx_inv.arena, " + x(0) + ", (float)" + x(1) + ", " + at + ")";
  if (mlir::isa<ScaleIntoOp>(op)) return rt + "scale_into(" + x(0) + ", " + x(1) + ", (float)" + x(2) + ", " + at + ")";
  if (auto b = mlir::dyn_cast<BroadcastOp>(op)) {
    mlir::Type r = b.getResult().getType();
    auto mode = [&](mlir::Type t) { return std::to_string(static_cast<int>(broadcastSide(t, r))); };
    return rt + "broadcast(vx_inv.arena, " + rt + "fn2::" + b.getOp().str() + "{}, " + x(0) + ", " +
           mode(b.getLhs().getType()) + ", " + x(1) + ", " + mode(b.getRhs().getType()) + ", " + shapeDim(r, 0) +
           ", " + shapeDim(r, 1) + ", " + at + ")";
  }
  if (mlir::isa<TransposeOp>(op)) {
    mlir::Type t = op->getOperand(0).getType();
    return rt + "transpose(vx_inv.arena, " + x(0) + ", " + shapeDim(t, 0) + ", " + shapeDim(t, 1) + ", " + at + ")";
  }
  if (mlir::isa<CastOp>(op))
    return rt + "cast<" + elemType(op->getResult(0).getType()) + ">(vx_inv.arena, " + x(0) + ", " + at + ")";
  // On-chip compute: the runtimes' functors are named after Unary.def's rows.
  if (auto u = mlir::dyn_cast<UnaryOp>(op))
    return rt + "unary<" + rt + "fn::" + u.getFn().str() + ">(vx_inv.arena, " + x(0) + ", " + at + ")";
  if (auto u = mlir::dyn_cast<UnaryIntoOp>(op))
    return rt + "unary_into<" + rt + "fn::" + u.getFn().str() + ">(" + x(0) + ", " + x(1) + ", " + at + ")";
  if (mlir::isa<FillOp>(op)) return rt + "fill(" + x(0) + ", (float)" + x(1) + ", " + at + ")";
  if (mlir::isa<CopyIntoOp>(op)) return rt + "copy_into(" + x(0) + ", " + x(1) + ", " + at + ")";
  if (auto d = mlir::dyn_cast<DbgOp>(op)) {
    std::string label = cLiteral(d.getLabel().str());
    llvm::StringRef k = d.getKind();
    if (k == "tensor")
      return rt + "dbg_tensor(" + label + ", " + cLiteral(dbgTypeText(d.getX().getType())) + ", " + x(0) + ", " + at + ")";
    if (k == "float") return rt + "dbg_float(" + label + ", static_cast<double>(" + x(0) + "))";
    if (k == "bool") return rt + "dbg_bool(" + label + ", " + x(0) + ")";
    mlir::Type xt = d.getX().getType();
    std::string w = xt.isIndex() ? "64" : std::to_string(xt.getIntOrFloatBitWidth());
    if (k == "uint") return rt + "dbg_uint(" + label + ", static_cast<uint" + w + "_t>(" + x(0) + "))";
    return rt + "dbg_int(" + label + ", static_cast<int" + w + "_t>(" + x(0) + "))";
  }
  if (auto r = mlir::dyn_cast<RowReduceOp>(op)) {
    mlir::Type t = op->getOperand(0).getType();
    return rt + "row_" + r.getKind().str() + "(vx_inv.arena, " + x(0) + ", " + shapeDim(t, 0) + ", " + shapeDim(t, 1) +
           ", " + at + ")";
  }
  return {};
}

}  // namespace

// The buffers an op reads (false) and writes (true), for run-time checks.
std::vector<std::pair<unsigned, bool>> bufferAccesses(mlir::Operation* op) {
  if (mlir::isa<MmaOp>(op)) return {{0, true}, {1, false}, {2, false}};
  if (mlir::isa<MatmulAccOp, LoadWeightsOp, TransferOp, ScaleOp, LoadElemOp, UnaryOp, RowReduceOp, CastOp,
                TransposeOp>(op))
    return {{0, false}};
  if (mlir::isa<UnaryIntoOp, CopyIntoOp, ScaleIntoOp>(op)) return {{0, true}, {1, false}};
  if (mlir::isa<FillOp>(op)) return {{0, true}};
  if (mlir::isa<StoreAccOp>(op)) return {{0, true}};
  if (mlir::isa<StoreOp, TransferIntoOp>(op)) return {{0, false}, {1, true}};
  if (mlir::isa<AddOp, SubOp, MulOp, BroadcastOp>(op)) return {{0, false}, {1, false}};
  if (mlir::isa<StoreElemOp>(op)) return {{1, true}};
  if (auto d = mlir::dyn_cast<DbgOp>(op); d && d.getKind() == "tensor") return {{0, false}};
  return {};
}

void emitSimpleOp(Emitter& e, mlir::Operation* op) {
  if (e.checkAccesses)
    for (const auto& [i, write] : bufferAccesses(op)) {
      std::string b = e.name(op->getOperand(i));
      e.line("vx::rt::checked::access(" + b + ".data, vx::rt::checked::spanBytes(" + b + "), " +
             (write ? "true" : "false") + ", " + locLiteral(op->getLoc()) + ");");
    }
  // In a unit with run-time checks, every access of HBM is logged while an
  // unproved grid's instance runs (vx/checked.h, gridTouch): the function
  // with the grid and every function its instances call.
  if (e.checkedTokens) {
    std::string at = locLiteral(op->getLoc());
    if (mlir::isa<LoadElemOp>(op))
      e.line("vx::rt::checked::gridTouchElem(" + e.name(op->getOperand(0)) + ", " + e.name(op->getOperand(1)) +
             ", false, " + at + ");");
    else if (mlir::isa<StoreElemOp>(op))
      e.line("vx::rt::checked::gridTouchElem(" + e.name(op->getOperand(1)) + ", " + e.name(op->getOperand(2)) +
             ", true, " + at + ");");
    else
      for (const auto& [i, write] : bufferAccesses(op))
        e.line("vx::rt::checked::gridTouch(" + e.name(op->getOperand(i)) + ", " + (write ? "true" : "false") + ", " +
               at + ");");
  }
  if (auto call = mlir::dyn_cast<mlir::func::CallOp>(op)) {
    std::string args = "vx_inv";
    for (mlir::Value v : call.getOperands()) args += ", " + e.name(v);
    std::string callee = "vxf_" + call.getCallee().str() + "(" + args + ")";
    if (call.getNumResults() == 0) {
      e.line(callee + ";");
    } else if (call.getNumResults() == 1) {
      e.line(cppType(call.getResult(0).getType()) + " " + e.fresh(call.getResult(0)) + " = " + callee + ";");
    } else {
      std::string tie;
      for (mlir::Value r : call.getResults()) {
        e.line(cppType(r.getType()) + " " + e.fresh(r) + "{};");
        tie += (tie.empty() ? "" : ", ") + e.name(r);
      }
      e.line("std::tie(" + tie + ") = " + callee + ";");
    }
    return;
  }
  std::string expr = op->getDialect() && op->getDialect()->getNamespace() == "arith" ? arithExpr(e, op) : vxExpr(e, op);
  if (expr.empty()) unsupportedOp(op);
  if (op->getNumResults() == 0) {
    e.line(expr + ";");
    return;
  }
  mlir::Value r = op->getResult(0);
  e.line("[[maybe_unused]] " + cppType(r.getType()) + " " + e.fresh(r) + " = " + expr + ";");
}

}  // namespace vx::cpu
