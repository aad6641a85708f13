// arith -> scalar instructions with Rust's integer rules, as the cpu target
// has them (include/vx/scalar.h): `+ - *` overflow and division by zero trap,
// `as` wraps. Registers hold 64 bits: i32 values sign-extended, bools 0/1.
// Unsigned 64-bit values must stay below 2^63 on this target (the scalar
// unit compares signed): an unsigned operation on or to a larger value traps
// rather than compute something else. Floats compute only as constants.
#include "codegen/tpu/LowerImpl.h"
#include "dialect/LowerHir.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APSInt.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

namespace vx::codegen::tpu {

using isa::Op;
namespace arith = mlir::arith;

namespace {

unsigned width(mlir::Type t) { return t.isIndex() ? 64 : t.getIntOrFloatBitWidth(); }

Val intConst(int64_t c) {
  Val v;
  v.kind = Val::Kind::Int;
  v.isConst = true;
  v.c = c;
  v.nonneg = c >= 0;
  return v;
}

Val intReg(int r, bool nonneg = false) {
  Val v;
  v.kind = Val::Kind::Int;
  v.vreg = r;
  v.nonneg = nonneg;
  return v;
}

Val floatConst(double f) {
  Val v;
  v.kind = Val::Kind::Float;
  v.isConst = true;
  v.f = f;
  return v;
}

int64_t canon32(int64_t c) { return static_cast<int32_t>(static_cast<uint32_t>(c)); }

struct Ctx {
  Lowering& l;
  int trapL() { return l.trap(TrapKind::IntegerOverflow); }
  void trapIf(Op br, int r, MOp b) { l.emit(br, {R(r), b, Lbl(trapL())}); }
  // Traps unless `v` is >= 0 (an unsigned 64-bit value in this target's range).
  void needNonneg(const Val& v) {
    if (v.nonneg) return;
    if (v.isConst) {
      l.emit(Op::Jmp, {Lbl(trapL())});
      return;
    }
    trapIf(Op::Blt, l.reg(v), XI(0));
  }
  // sign-extends the low 32 bits of r in place
  void canon(int r) {
    l.emit(Op::Shl, {R(r), R(r), XI(32)});
    l.emit(Op::Shr, {R(r), R(r), XI(32)});
  }
  Val zext32(const Val& v) {
    if (v.isConst) return intConst(static_cast<uint32_t>(v.c));
    int r = l.fresh();
    l.emit(Op::And, {R(r), R(l.reg(v)), XI(0xffffffff)});
    return intReg(r, true);
  }
  int op3(Op o, const Val& a, const Val& b) {
    int r = l.fresh();
    l.emit(o, {R(r), R(l.reg(a)), l.x(b)});
    return r;
  }
};

enum class Bin { Add, Sub, Mul, Div, Rem };

// Folds a constant operation the way the cpu target computes it; false when
// it would trap (the run-time code then traps).
bool fold(Bin k, int64_t a, int64_t b, unsigned w, bool uns, int64_t& r) {
  if (w == 64 && uns) {
    uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b), z = 0;
    bool bad = false;
    switch (k) {
      case Bin::Add: bad = __builtin_add_overflow(x, y, &z); break;
      case Bin::Sub: bad = __builtin_sub_overflow(x, y, &z); break;
      case Bin::Mul: bad = __builtin_mul_overflow(x, y, &z); break;
      case Bin::Div: bad = y == 0; z = bad ? 0 : x / y; break;
      case Bin::Rem: bad = y == 0; z = bad ? 0 : x % y; break;
    }
    r = static_cast<int64_t>(z);
    return !bad && r >= 0 && a >= 0 && b >= 0;
  }
  if (w == 64) {
    bool bad = false;
    switch (k) {
      case Bin::Add: bad = __builtin_add_overflow(a, b, &r); break;
      case Bin::Sub: bad = __builtin_sub_overflow(a, b, &r); break;
      case Bin::Mul: bad = __builtin_mul_overflow(a, b, &r); break;
      case Bin::Div: bad = b == 0 || (a == INT64_MIN && b == -1); r = bad ? 0 : a / b; break;
      case Bin::Rem: bad = b == 0 || (a == INT64_MIN && b == -1); r = bad ? 0 : a % b; break;
    }
    return !bad;
  }
  if (uns) {
    uint32_t x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b), z = 0;
    bool bad = false;
    switch (k) {
      case Bin::Add: bad = __builtin_add_overflow(x, y, &z); break;
      case Bin::Sub: bad = __builtin_sub_overflow(x, y, &z); break;
      case Bin::Mul: bad = __builtin_mul_overflow(x, y, &z); break;
      case Bin::Div: bad = y == 0; z = bad ? 0 : x / y; break;
      case Bin::Rem: bad = y == 0; z = bad ? 0 : x % y; break;
    }
    r = canon32(z);
    return !bad;
  }
  int32_t x = static_cast<int32_t>(a), y = static_cast<int32_t>(b), z = 0;
  bool bad = false;
  switch (k) {
    case Bin::Add: bad = __builtin_add_overflow(x, y, &z); break;
    case Bin::Sub: bad = __builtin_sub_overflow(x, y, &z); break;
    case Bin::Mul: bad = __builtin_mul_overflow(x, y, &z); break;
    case Bin::Div: bad = y == 0 || (x == INT32_MIN && y == -1); z = bad ? 0 : x / y; break;
    case Bin::Rem: bad = y == 0 || (x == INT32_MIN && y == -1); z = bad ? 0 : x % y; break;
  }
  r = z;
  return !bad;
}

Val unsigned64(Ctx& c, Bin k, Val a, Val b) {
  Lowering& l = c.l;
  c.needNonneg(a);
  c.needNonneg(b);
  if (k == Bin::Div || k == Bin::Rem) {
    Val r = intReg(c.op3(k == Bin::Div ? Op::Div : Op::Rem, a, b), true);  // b = 0 faults in vxsim
    if (k == Bin::Rem && b.isConst && b.c > 0) r.ub = b.c;
    return r;
  }
  if (k != Bin::Sub && a.isConst) std::swap(a, b);
  if (k == Bin::Mul && b.isConst) {
    if (b.c == 0) return intConst(0);
    if (b.c == 1) return a;
    c.trapIf(Op::Bge, l.reg(a), XI(INT64_MAX / b.c + 1));
    return intReg(c.op3(Op::Mul, a, b), true);
  }
  if (k == Bin::Mul) {
    // Fast path: both below 2^31, so the product fits. Else, out of line:
    // overflow unless r / a == b.
    int ra = l.reg(a), rb = l.reg(b), r = l.fresh(), t = l.fresh();
    l.emit(Op::Mul, {R(r), R(ra), XR(rb)});
    l.emit(Op::Or, {R(t), R(ra), XR(rb)});
    int slow = l.newLabel(), back = l.newLabel();
    l.emit(Op::Bge, {R(t), XI(int64_t{1} << 31), Lbl(slow)});
    l.bind(back);
    l.outOfLine([&] {
      l.bind(slow);
      c.trapIf(Op::Blt, r, XI(0));
      l.emit(Op::Beq, {R(ra), XI(0), Lbl(back)});
      int q = l.fresh();
      l.emit(Op::Div, {R(q), R(r), XR(ra)});
      c.trapIf(Op::Bne, q, XR(rb));
      l.emit(Op::Jmp, {Lbl(back)});
    });
    return intReg(r, true);
  }
  int r = c.op3(k == Bin::Add ? Op::Add : Op::Sub, a, b);
  if (!(k == Bin::Add && b.isConst && b.c == 1 && a.belowMax))  // `i + 1` in a loop cannot overflow
    c.trapIf(Op::Blt, r, XI(0));                                  // past 2^63, or below 0
  return intReg(r, true);
}

Val signed64(Ctx& c, Bin k, Val a, Val b) {
  Lowering& l = c.l;
  if (k == Bin::Div || k == Bin::Rem) {  // vxsim faults on b = 0 and MIN / -1, as Rust traps
    Val r = intReg(c.op3(k == Bin::Div ? Op::Div : Op::Rem, a, b));
    if (k == Bin::Rem && a.nonneg && b.isConst && b.c > 0) r.nonneg = true, r.ub = b.c;
    return r;
  }
  if (k != Bin::Sub && a.isConst) std::swap(a, b);
  if (b.isConst && k != Bin::Mul) {
    if (b.c == 0) return a;
    int r = c.op3(k == Bin::Add ? Op::Add : Op::Sub, a, b);
    bool up = (k == Bin::Add) == (b.c > 0);  // the result must move this way
    if (up) c.trapIf(Op::Blt, r, XR(l.reg(a)));
    else c.trapIf(Op::Blt, l.reg(a), XR(r));
    return intReg(r);
  }
  if (k == Bin::Mul && b.isConst && (b.c == 0 || b.c == 1)) return b.c ? a : intConst(0);
  int r = c.op3(k == Bin::Add ? Op::Add : k == Bin::Sub ? Op::Sub : Op::Mul, a, b);
  int ra = l.reg(a), rb = l.reg(b), t1 = l.fresh(), t2 = l.fresh();
  if (k == Bin::Mul) {
    int ok = l.newLabel();
    l.emit(Op::Beq, {R(ra), XI(0), Lbl(ok)});
    l.emit(Op::Div, {R(t1), R(r), XR(ra)});
    c.trapIf(Op::Bne, t1, XR(rb));
    l.bind(ok);
    return intReg(r);
  }
  // add: (a ^ r) & (b ^ r) < 0; sub: (a ^ b) & (a ^ r) < 0
  l.emit(Op::Xor, {R(t1), R(ra), XR(r)});
  l.emit(Op::Xor, {R(t2), R(k == Bin::Add ? rb : ra), XR(k == Bin::Add ? r : rb)});
  l.emit(Op::And, {R(t1), R(t1), XR(t2)});
  c.trapIf(Op::Blt, t1, XI(0));
  return intReg(r);
}

Val thirtyTwo(Ctx& c, Bin k, Val a, Val b, bool uns) {
  Lowering& l = c.l;
  if (uns) {
    a = c.zext32(a);
    b = c.zext32(b);
  }
  if (k == Bin::Div || k == Bin::Rem) {
    int r = c.op3(k == Bin::Div ? Op::Div : Op::Rem, a, b);
    if (uns) {
      c.canon(r);
    } else if (!(b.isConst && b.c != -1) && !(a.isConst && a.c != INT32_MIN)) {
      if (k == Bin::Div) {
        c.trapIf(Op::Bge, r, XI(int64_t{1} << 31));  // i32::MIN / -1
      } else {
        int ok = l.newLabel();
        l.emit(Op::Bne, {R(l.reg(b)), XI(-1), Lbl(ok)});
        c.trapIf(Op::Beq, l.reg(a), XI(INT32_MIN));
        l.bind(ok);
      }
    }
    return intReg(r);
  }
  if (k != Bin::Sub && a.isConst) std::swap(a, b);
  int r = c.op3(k == Bin::Add ? Op::Add : k == Bin::Sub ? Op::Sub : Op::Mul, a, b);  // exact in 64 bits
  if (uns) {
    c.trapIf(Op::Blt, r, XI(0));
    c.trapIf(Op::Bge, r, XI(int64_t{1} << 32));
    c.canon(r);
  } else {
    c.trapIf(Op::Blt, r, XI(INT32_MIN));
    c.trapIf(Op::Bge, r, XI(int64_t{1} << 31));
  }
  return intReg(r);
}

Val compare(Ctx& c, arith::CmpIPredicate p, Val a, Val b, unsigned w) {
  using P = arith::CmpIPredicate;
  Lowering& l = c.l;
  bool uns = p == P::ult || p == P::ule || p == P::ugt || p == P::uge;
  if (uns && w == 32) {
    a = c.zext32(a);
    b = c.zext32(b);
  } else if (uns && !(a.nonneg && b.nonneg)) {
    // Unsigned order is signed order with the top bit flipped.
    auto flip = [&](const Val& v) {
      if (v.isConst) return intConst(v.c ^ INT64_MIN);
      int r = l.fresh();
      l.emit(Op::Xor, {R(r), R(l.reg(v)), XI(INT64_MIN)});
      return intReg(r);
    };
    a = flip(a);
    b = flip(b);
  }
  enum { Eq, Ne, Lt, Le, Gt, Ge } rel = Eq;
  switch (p) {
    case P::eq: rel = Eq; break;
    case P::ne: rel = Ne; break;
    case P::slt: case P::ult: rel = Lt; break;
    case P::sle: case P::ule: rel = Le; break;
    case P::sgt: case P::ugt: rel = Gt; break;
    case P::sge: case P::uge: rel = Ge; break;
  }
  if (a.isConst && b.isConst) {
    bool r = rel == Eq ? a.c == b.c : rel == Ne ? a.c != b.c : rel == Lt ? a.c < b.c : rel == Le ? a.c <= b.c
           : rel == Gt ? a.c > b.c : a.c >= b.c;
    return intConst(r);
  }
  if (a.isConst) {  // the register goes first: mirror the relation
    std::swap(a, b);
    rel = rel == Lt ? Gt : rel == Gt ? Lt : rel == Le ? Ge : rel == Ge ? Le : rel;
  }
  Op o = rel == Eq ? Op::Seq : rel == Ne ? Op::Sne : rel == Lt ? Op::Slt : rel == Le ? Op::Sle : rel == Gt ? Op::Sgt : Op::Sge;
  Val r = intReg(c.op3(o, a, b), true);
  r.ub = 2;
  return r;
}

// ---- floats: constants only ----

const llvm::fltSemantics& semantics(mlir::Type t) { return t.cast<mlir::FloatType>().getFloatSemantics(); }

llvm::APFloat toAP(double f, mlir::Type t) {
  llvm::APFloat a(f);
  bool lost = false;
  a.convert(semantics(t), llvm::APFloat::rmNearestTiesToEven, &lost);
  return a;
}

double fromAP(llvm::APFloat a) {
  bool lost = false;
  a.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return a.convertToDouble();
}

bool cmpf(arith::CmpFPredicate p, double a, double b) {
  using P = arith::CmpFPredicate;
  bool un = std::isnan(a) || std::isnan(b);
  switch (p) {
    case P::AlwaysFalse: return false;
    case P::OEQ: return !un && a == b;
    case P::OGT: return !un && a > b;
    case P::OGE: return !un && a >= b;
    case P::OLT: return !un && a < b;
    case P::OLE: return !un && a <= b;
    case P::ONE: return !un && a != b;
    case P::ORD: return !un;
    case P::UEQ: return un || a == b;
    case P::UGT: return un || a > b;
    case P::UGE: return un || a >= b;
    case P::ULT: return un || a < b;
    case P::ULE: return un || a <= b;
    case P::UNE: return un || a != b;
    case P::UNO: return un;
    case P::AlwaysTrue: return true;
  }
  return false;
}

// Rust's float -> int `as`: saturating, NaN -> 0.
int64_t saturate(double d, unsigned w, bool uns) {
  if (std::isnan(d)) return 0;
  double lo = uns ? 0.0 : w == 32 ? -2147483648.0 : -9223372036854775808.0;
  double hi = uns ? (w == 32 ? 4294967295.0 : 18446744073709551615.0) : (w == 32 ? 2147483647.0 : 9223372036854775807.0);
  if (d <= lo) return uns ? 0 : w == 32 ? INT32_MIN : INT64_MIN;
  if (d >= hi) return uns ? (w == 32 ? canon32(0xffffffffu) : -1) : w == 32 ? INT32_MAX : INT64_MAX;
  if (uns) return w == 32 ? canon32(static_cast<uint32_t>(d)) : static_cast<int64_t>(static_cast<uint64_t>(d));
  return static_cast<int64_t>(d);
}

bool lowerFloat(Lowering& l, mlir::Operation* op) {
  mlir::Location at = op->getLoc();
  bool floaty = false;
  for (mlir::Type t : op->getOperandTypes()) floaty |= t.isa<mlir::FloatType>();
  for (mlir::Type t : op->getResultTypes()) floaty |= t.isa<mlir::FloatType>();
  if (!floaty) return false;
  std::vector<Val> in;
  for (mlir::Value v : op->getOperands()) {
    in.push_back(l.lookup(v));
    if (l.failed) return true;
    if (!in.back().isConst) {
      l.fail(at, "float arithmetic on run-time values",
             "the tpu target has no scalar floating-point unit: only constants compute");
      return true;
    }
  }
  mlir::Type rt = op->getResult(0).getType();
  auto ap = [&](unsigned i) { return toAP(in[i].f, op->getOperand(i).getType()); };
  llvm::APFloat::roundingMode rm = llvm::APFloat::rmNearestTiesToEven;
  Val r;
  if (mlir::isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::RemFOp>(op)) {
    llvm::APFloat a = ap(0), b = ap(1);
    if (mlir::isa<arith::AddFOp>(op)) a.add(b, rm);
    else if (mlir::isa<arith::SubFOp>(op)) a.subtract(b, rm);
    else if (mlir::isa<arith::MulFOp>(op)) a.multiply(b, rm);
    else if (mlir::isa<arith::DivFOp>(op)) a.divide(b, rm);
    else a.mod(b);
    r = floatConst(fromAP(a));
  } else if (mlir::isa<arith::NegFOp>(op)) {
    r = floatConst(-in[0].f);
  } else if (mlir::isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    r = floatConst(fromAP(toAP(in[0].f, rt)));
  } else if (mlir::isa<arith::SIToFPOp, arith::UIToFPOp>(op)) {
    unsigned w = width(op->getOperand(0).getType());
    bool uns = mlir::isa<arith::UIToFPOp>(op);
    llvm::APSInt v(llvm::APInt(w == 1 ? 64 : w, static_cast<uint64_t>(in[0].c), !uns && w != 1), uns || w == 1);
    llvm::APFloat f(semantics(rt));
    f.convertFromAPInt(v, !uns && w != 1, rm);
    r = floatConst(fromAP(f));
  } else if (mlir::isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    r = intConst(saturate(in[0].f, width(rt), mlir::isa<arith::FPToUIOp>(op)));
  } else if (auto c = mlir::dyn_cast<arith::CmpFOp>(op)) {
    r = intConst(cmpf(c.getPredicate(), in[0].f, in[1].f));
  } else {
    l.fail(at, op->getName().getStringRef().str(), "the tpu lowering has no rule for this operation");
    return true;
  }
  l.define(op->getResult(0), r);
  return true;
}

}  // namespace

void lowerArithOp(Lowering& l, mlir::Operation* op) {
  mlir::Location at = op->getLoc();
  if (auto c = mlir::dyn_cast<arith::ConstantOp>(op)) {
    if (auto i = c.getValue().dyn_cast<mlir::IntegerAttr>()) {
      mlir::Type t = c.getType();
      int64_t v = t.isInteger(1) ? (i.getValue().getBoolValue() ? 1 : 0) : i.getValue().getSExtValue();
      l.define(c.getResult(), intConst(v));
    } else if (auto f = c.getValue().dyn_cast<mlir::FloatAttr>()) {
      l.define(c.getResult(), floatConst(f.getValueAsDouble()));
    } else {
      l.fail(at, "this constant", "the tpu lowering has no rule for it");
    }
    return;
  }
  if (lowerFloat(l, op)) return;
  Ctx c{l};
  std::vector<Val> in;
  for (mlir::Value v : op->getOperands()) in.push_back(l.lookup(v));
  if (l.failed) return;
  mlir::Type st = op->getOperand(0).getType(), rt = op->getResult(0).getType();
  unsigned w = width(st);
  if (w != 1 && w != 32 && w != 64) return l.fail(at, "integers of " + std::to_string(w) + " bits", "registers hold i32, i64 and bool");
  Val r;
  auto bin = [&](Bin k) {
    bool uns = op->hasAttr(dialect::kUnsignedAttr) || st.isIndex() || mlir::isa<arith::DivUIOp, arith::RemUIOp>(op);
    if (k == Bin::Div || k == Bin::Rem) uns = mlir::isa<arith::DivUIOp, arith::RemUIOp>(op);
    if (w == 1) {
      l.fail(at, "arithmetic on bool", "no rule for it");
      return;
    }
    int64_t folded = 0;
    if (in[0].isConst && in[1].isConst && fold(k, in[0].c, in[1].c, w, uns, folded)) {
      r = intConst(folded);
      return;
    }
    if (w == 64) r = uns ? unsigned64(c, k, in[0], in[1]) : signed64(c, k, in[0], in[1]);
    else r = thirtyTwo(c, k, in[0], in[1], uns);
  };
  if (mlir::isa<arith::AddIOp>(op)) bin(Bin::Add);
  else if (mlir::isa<arith::SubIOp>(op)) bin(Bin::Sub);
  else if (mlir::isa<arith::MulIOp>(op)) bin(Bin::Mul);
  else if (mlir::isa<arith::DivSIOp, arith::DivUIOp>(op)) bin(Bin::Div);
  else if (mlir::isa<arith::RemSIOp, arith::RemUIOp>(op)) bin(Bin::Rem);
  else if (auto cmp = mlir::dyn_cast<arith::CmpIOp>(op)) r = compare(c, cmp.getPredicate(), in[0], in[1], w);
  else if (mlir::isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op)) {
    Val a = in[0], b = in[1];
    Op o = mlir::isa<arith::AndIOp>(op) ? Op::And : mlir::isa<arith::OrIOp>(op) ? Op::Or : Op::Xor;
    if (a.isConst && b.isConst) {
      r = intConst(o == Op::And ? a.c & b.c : o == Op::Or ? a.c | b.c : a.c ^ b.c);
    } else {
      if (a.isConst) std::swap(a, b);
      r = intReg(c.op3(o, a, b), w == 1);
      if (w == 1) r.ub = 2;
    }
  } else if (mlir::isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(op)) {
    unsigned to = width(rt);
    bool zext = mlir::isa<arith::IndexCastUIOp, arith::ExtUIOp>(op);
    Val a = in[0];
    if (to == 32 && w == 64) {  // truncation keeps the low 32 bits, sign-extended
      if (a.isConst) r = intConst(canon32(a.c));
      else if (a.nonneg && a.ub >= 0 && a.ub <= (int64_t{1} << 31)) r = a;
      else {
        int t = l.fresh();
        l.emit(Op::Mov, {R(t), XR(l.reg(a))});
        c.canon(t);
        r = intReg(t);
      }
    } else if (to == 1) {
      r = a.isConst ? intConst(a.c & 1) : intReg(c.op3(Op::And, a, intConst(1)), true);
    } else if (w == 32 && to == 64 && zext) {
      r = c.zext32(a);
    } else if (w == 1 && to > 1 && !zext && mlir::isa<arith::ExtSIOp>(op)) {
      r = a.isConst ? intConst(-a.c) : intReg(c.op3(Op::Mul, a, intConst(-1)));  // true -> -1
    } else {
      r = a;  // same bits in a 64-bit register
    }
  } else {
    return l.fail(at, op->getName().getStringRef().str(), "the tpu lowering has no rule for this operation");
  }
  if (!l.failed) l.define(op->getResult(0), r);
}

}  // namespace vx::codegen::tpu
