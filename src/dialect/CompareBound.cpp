// The tolerance `vxc run --compare` derives when no `--tolerance` is given
// (docs/compute.md "Precision"): the documented error bound of each
// operation of the entry that two targets do not compute bit for bit, summed
// to first order, relative to the output's largest magnitude.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>

#include "dialect/VirImpl.h"
#include "dialect/VxDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace vx::dialect {

namespace {

constexpr double kF32Roundoff = 0x1p-24;  // f32's unit roundoff
constexpr double kTf32 = 0x1p-11;         // per unit of K: tf32 operands (docs/b200.md "Precision")
constexpr double kGpuUlps = 0x1p-21;      // 4 ulp: CUDA's expf, logf, tanhf, rsqrtf (2) against vx/vmath.h (2)

struct Walker {
  const std::map<std::string, int64_t>& args;
  const ComparePair& pair;
  CompareBound out;
  // Each mma site once: its operand types and total reduction length.
  std::map<mlir::Operation*, int64_t> seen;
  int depth = 0;

  // An index or integer value in terms of the entry's arguments, if it can be.
  std::optional<int64_t> eval(mlir::Value v, int budget = 64) {
    if (budget <= 0) return std::nullopt;
    if (auto arg = v.dyn_cast<mlir::BlockArgument>()) {
      auto fn = mlir::dyn_cast<mlir::func::FuncOp>(arg.getOwner()->getParentOp());
      if (!fn || depth != 0 || arg.getOwner() != &fn.getBody().front()) return std::nullopt;
      auto name = fn.getArgAttrOfType<mlir::StringAttr>(arg.getArgNumber(), "vx.name");
      if (!name) return std::nullopt;
      auto it = args.find(name.str());
      if (it == args.end()) return std::nullopt;
      return it->second;
    }
    mlir::Operation* d = v.getDefiningOp();
    if (!d) return std::nullopt;
    if (auto c = mlir::dyn_cast<mlir::arith::ConstantOp>(d))
      if (auto i = c.getValue().dyn_cast<mlir::IntegerAttr>()) return i.getValue().getSExtValue();
    if (mlir::isa<mlir::arith::IndexCastOp, mlir::arith::IndexCastUIOp, mlir::arith::ExtUIOp, mlir::arith::ExtSIOp,
                  mlir::arith::TruncIOp>(d))
      return eval(d->getOperand(0), budget - 1);
    if (d->getNumOperands() != 2) return std::nullopt;
    std::optional<int64_t> a = eval(d->getOperand(0), budget - 1), b = eval(d->getOperand(1), budget - 1);
    if (!a || !b) return std::nullopt;
    if (auto c = mlir::dyn_cast<mlir::arith::CmpIOp>(d)) {
      using P = mlir::arith::CmpIPredicate;
      P p = c.getPredicate();
      bool unsignedCmp = p == P::ult || p == P::ule || p == P::ugt || p == P::uge;
      if (unsignedCmp && (*a < 0 || *b < 0)) return std::nullopt;
      switch (p) {
        case P::eq: return *a == *b;
        case P::ne: return *a != *b;
        case P::slt:
        case P::ult: return *a < *b;
        case P::sle:
        case P::ule: return *a <= *b;
        case P::sgt:
        case P::ugt: return *a > *b;
        case P::sge:
        case P::uge: return *a >= *b;
      }
      return std::nullopt;
    }
    int64_t r = 0;  // an overflowing trip count is no trip count
    if (mlir::isa<mlir::arith::AddIOp>(d)) return __builtin_add_overflow(*a, *b, &r) ? std::nullopt : std::optional(r);
    if (mlir::isa<mlir::arith::SubIOp>(d)) return __builtin_sub_overflow(*a, *b, &r) ? std::nullopt : std::optional(r);
    if (mlir::isa<mlir::arith::MulIOp>(d)) return __builtin_mul_overflow(*a, *b, &r) ? std::nullopt : std::optional(r);
    if (*a == INT64_MIN && *b == -1) return std::nullopt;
    if (mlir::isa<mlir::arith::DivUIOp, mlir::arith::DivSIOp>(d) && *b != 0) return *a / *b;
    if (mlir::isa<mlir::arith::RemUIOp, mlir::arith::RemSIOp>(d) && *b != 0) return *a % *b;
    if (mlir::isa<mlir::arith::MinUIOp, mlir::arith::MinSIOp>(d)) return std::min(*a, *b);
    if (mlir::isa<mlir::arith::MaxUIOp, mlir::arith::MaxSIOp>(d)) return std::max(*a, *b);
    return std::nullopt;
  }

  void unknown(const std::string& why) {
    if (out.known) out.why = why;
    out.known = false;
  }

  // `k` products per trip, `trips` times, summed in f32.
  void reduction(mlir::Operation* op, int64_t k, int64_t trips) {
    seen[op] = std::min<int64_t>(int64_t{1} << 50, seen[op] + std::min<int64_t>(int64_t{1} << 50, k * trips));
  }

  void walk(mlir::Region& region, int64_t trips) {
    for (mlir::Block& block : region)
      for (mlir::Operation& op : block) walkOp(&op, trips);
  }

  void walkOp(mlir::Operation* op, int64_t trips) {
    if (auto f = mlir::dyn_cast<mlir::scf::ForOp>(op)) {
      std::optional<int64_t> lo = eval(f.getLowerBound()), hi = eval(f.getUpperBound()), st = eval(f.getStep());
      if (!lo || !hi || !st || *st <= 0) {
        unknown("a loop's trip count depends on values only the run knows");
        walk(f.getRegion(), trips);
        return;
      }
      // Trip counts multiply; past 2^40 products the bound says nothing anyway.
      const int64_t cap = int64_t{1} << 40;
      int64_t n = *hi > *lo ? static_cast<int64_t>((static_cast<__int128>(*hi) - *lo + *st - 1) / *st) : 0;
      walk(f.getRegion(), std::min<int64_t>(cap, static_cast<int64_t>(std::min<__int128>(
                                                     cap, static_cast<__int128>(trips) * std::max<int64_t>(n, 1)))));
      return;
    }
    // A branch the run's values decide (the pipeline form's short-trip
    // loop against its steady state): only the side taken.
    if (auto i = mlir::dyn_cast<mlir::scf::IfOp>(op)) {
      if (std::optional<int64_t> c = eval(i.getCondition())) {
        mlir::Region& taken = *c ? i.getThenRegion() : i.getElseRegion();
        if (!taken.empty()) walk(taken, trips);
        return;
      }
    }
    if (mlir::isa<mlir::scf::WhileOp>(op)) {
      unknown("a `while` loop's trip count is not known before the run");
      for (mlir::Region& r : op->getRegions()) walk(r, trips);
      return;
    }
    if (auto call = mlir::dyn_cast<mlir::func::CallOp>(op)) {
      auto callee = op->getParentOfType<mlir::ModuleOp>().lookupSymbol<mlir::func::FuncOp>(call.getCallee());
      if (callee && depth < 16) {
        ++depth;
        walk(callee.getBody(), trips);
        --depth;
      }
      return;
    }
    // A grid's instances accumulate their own outputs: no factor.
    if (auto m = mlir::dyn_cast<MmaOp>(op)) {
      auto a = m.getA().getType().cast<PinnedType>();
      reduction(op, a.getShape().back(), trips);
      return;
    }
    if (auto m = mlir::dyn_cast<MatmulAccOp>(op)) {
      auto x = m.getX().getType().cast<PinnedType>();
      reduction(op, x.getShape().back(), trips);
      return;
    }
    if (auto u = mlir::dyn_cast<UnaryOp>(op)) transcendental(u.getFn());
    if (auto u = mlir::dyn_cast<UnaryIntoOp>(op)) transcendental(u.getFn());
    for (mlir::Region& r : op->getRegions()) walk(r, trips);
  }

  void transcendental(llvm::StringRef fn) {
    if (!pair.realGpu || (fn != "exp" && fn != "log" && fn != "tanh" && fn != "rsqrt")) return;
    out.rel += kGpuUlps;
    out.terms.push_back("`" + fn.str() + "` on a GPU against vx/vmath.h: 4 ulp (2^-21)");
  }
};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

CompareBound compareBound(const Vir& vir, const std::string& entry, const std::map<std::string, int64_t>& args,
                          const ComparePair& pair) {
  Walker w{args, pair, {}, {}};
  mlir::ModuleOp module = *vir.impl().module;
  auto fn = module.lookupSymbol<mlir::func::FuncOp>(entry);
  if (!fn) {
    w.out.known = false;
    w.out.why = "no entry `" + entry + "`";
    return w.out;
  }
  w.walk(fn.getBody(), 1);
  // Every site's products, as if they were one sum (first order: their
  // bounds add), and those of f32 operands again for tf32 on the GPUs.
  int64_t products = 0, tf32 = 0;
  for (const auto& [op, k] : w.seen) {
    mlir::Type e = mlir::isa<MmaOp>(op) ? mlir::cast<MmaOp>(op).getA().getType().cast<PinnedType>().getElementType()
                                        : mlir::cast<MatmulAccOp>(op).getX().getType().cast<PinnedType>().getElementType();
    products += k;
    if (pair.gpu && e.isF32()) tf32 += k;
  }
  if (products > 0) {
    w.out.rel += static_cast<double>(products) * kF32Roundoff;
    w.out.terms.push_back("f32 sums of " + std::to_string(products) + " products in another order: K x 2^-24 = " +
                          number(static_cast<double>(products) * kF32Roundoff));
  }
  if (tf32 > 0) {
    w.out.rel += static_cast<double>(tf32) * kTf32;
    w.out.terms.push_back("tf32 operands on the tensor cores (K = " + std::to_string(tf32) +
                          "): K x 2^-11 = " + number(static_cast<double>(tf32) * kTf32));
  }
  return w.out;
}

}  // namespace vx::dialect
