// Types of the vx dialect: their textual form and invariants.
//   !vx.tensor<128x128xf32>          !vx.vec<!vx.tensor<128x128xf32>>
//   !vx.pinned<2x128x128xf32, vmem>  !vx.token<128x128xf32, vmem>  !vx.token<vmem>
#include "dialect/VxDialect.h"

#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "target/Target.h"

namespace vx::dialect {

namespace {

int64_t product(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// `128x128xf32`; `?x?xf32` (run-time extents) where `dynamic`.
mlir::ParseResult parseShaped(mlir::AsmParser& p, llvm::SmallVectorImpl<int64_t>& shape, mlir::Type& elem,
                              bool dynamic = false) {
  if (p.parseDimensionList(shape, /*allowDynamic=*/dynamic, /*withTrailingX=*/true) || p.parseType(elem))
    return mlir::failure();
  return mlir::success();
}

void printShaped(mlir::AsmPrinter& p, llvm::ArrayRef<int64_t> shape, mlir::Type elem) {
  for (int64_t d : shape) {
    if (mlir::ShapedType::isDynamic(d)) p.getStream() << "?x";
    else p.getStream() << d << 'x';
  }
  p.printType(elem);
}

mlir::ParseResult parseSpace(mlir::AsmParser& p, MemorySpace& space) {
  llvm::StringRef kw;
  llvm::SMLoc at = p.getCurrentLocation();
  if (p.parseKeyword(&kw)) return mlir::failure();
  std::optional<MemorySpace> m = memorySpaceFromKeyword(kw);
  if (!m) return p.emitError(at, "expected a memory space (hbm, vmem, smem, tmem)");
  space = *m;
  return mlir::success();
}

mlir::LogicalResult verifyShaped(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                                 llvm::ArrayRef<int64_t> shape, mlir::Type elem, bool dynamic = false) {
  for (int64_t d : shape)
    if (d <= 0 && !(dynamic && mlir::ShapedType::isDynamic(d)))
      return emitError() << "tensor dimensions must be positive, found " << d;
  if (!elem.isa<mlir::FloatType>() && !elem.isSignlessInteger())
    return emitError() << "tensor elements must be floats or integers, found " << elem;
  return mlir::success();
}

}  // namespace

// ---- tensor ----
mlir::Type TensorType::parse(mlir::AsmParser& p) {
  llvm::SmallVector<int64_t> shape;
  mlir::Type elem;
  if (p.parseLess() || parseShaped(p, shape, elem, /*dynamic=*/true) || p.parseGreater()) return {};
  return TensorType::getChecked([&] { return p.emitError(p.getNameLoc()); }, p.getContext(), shape, elem);
}
void TensorType::print(mlir::AsmPrinter& p) const {
  p << '<';
  printShaped(p, getShape(), getElementType());
  p << '>';
}
mlir::LogicalResult TensorType::verify(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                                       llvm::ArrayRef<int64_t> shape, mlir::Type elem) {
  return verifyShaped(emitError, shape, elem, /*dynamic=*/true);
}
// Of a static shape; 0 when it has run-time extents.
int64_t TensorType::getNumElements() const {
  for (int64_t d : getShape())
    if (mlir::ShapedType::isDynamic(d)) return 0;
  return product(getShape());
}

// ---- pinned ----
mlir::Type PinnedType::parse(mlir::AsmParser& p) {
  llvm::SmallVector<int64_t> shape;
  mlir::Type elem;
  MemorySpace space;
  if (p.parseLess() || parseShaped(p, shape, elem) || p.parseComma() || parseSpace(p, space) || p.parseGreater())
    return {};
  return PinnedType::getChecked([&] { return p.emitError(p.getNameLoc()); }, p.getContext(), shape, elem, space);
}
void PinnedType::print(mlir::AsmPrinter& p) const {
  p << '<';
  printShaped(p, getShape(), getElementType());
  p << ", " << memorySpaceKeyword(getSpace()) << '>';
}
mlir::LogicalResult PinnedType::verify(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                                       llvm::ArrayRef<int64_t> shape, mlir::Type elem, MemorySpace) {
  return verifyShaped(emitError, shape, elem);
}
int64_t PinnedType::getNumElements() const { return product(getShape()); }

// ---- token ----
mlir::Type TokenType::parse(mlir::AsmParser& p) {
  llvm::SmallVector<int64_t> shape;
  mlir::Type elem;
  MemorySpace space;
  if (p.parseLess()) return {};
  llvm::StringRef kw;
  if (mlir::succeeded(p.parseOptionalKeyword(&kw, {"hbm", "vmem", "smem", "tmem"}))) {
    if (p.parseGreater()) return {};
    return TokenType::get(p.getContext(), {}, mlir::NoneType::get(p.getContext()), *memorySpaceFromKeyword(kw));
  }
  if (parseShaped(p, shape, elem) || p.parseComma() || parseSpace(p, space) || p.parseGreater()) return {};
  return TokenType::get(p.getContext(), shape, elem, space);
}
void TokenType::print(mlir::AsmPrinter& p) const {
  p << '<';
  if (!isVoid()) {
    printShaped(p, getShape(), getElementType());
    p << ", ";
  }
  p << memorySpaceKeyword(getSpace()) << '>';
}
PinnedType TokenType::getPayload() const {
  if (isVoid()) return {};
  return PinnedType::get(getContext(), getShape(), getElementType(), getSpace());
}

void VxDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialect/VxOpsTypes.cpp.inc"
      >();
}

std::string scalarName(mlir::Type t, bool isUnsigned) {
  if (t.isInteger(1)) return "bool";
  std::string printed;
  llvm::raw_string_ostream os(printed);
  t.print(os);
  os.flush();
  for (target::ScalarKind k : target::allScalars()) {
    const target::ScalarInfo& s = target::info(k);
    bool index = printed == "index";
    if (printed == s.virType && (s.isFloat || index || s.isSigned != isUnsigned)) return s.name;
  }
  return "";
}

}  // namespace vx::dialect

#define GET_TYPEDEF_CLASSES
#include "dialect/VxOpsTypes.cpp.inc"
