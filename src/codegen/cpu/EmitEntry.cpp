// The C ABI of each function: how its parameters cross (docs/cpu.md), the
// `extern "C"` wrapper that gives the call its own invocation (VMEM arena,
// matrix unit), and its declaration in the header.
#include <algorithm>
#include <map>

#include "codegen/cpu/EmitImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "target/Target.h"

namespace vx::cpu {

using namespace vx::dialect;

int64_t Param::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string cName(const Param& p) {
  std::string cn = "p_" + p.name;
  for (char& c : cn)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return cn;
}

std::string countExpr(const Param& p) {
  if (p.extents.empty()) return std::to_string(p.elements());
  std::string s;
  for (size_t d = 0; d < p.shape.size(); ++d) {
    Param x;
    x.name = d < p.extents.size() ? p.extents[d] : "";
    std::string dim = x.name.empty() ? std::to_string(p.shape[d]) + "u" : "(uint64_t)" + cName(x);
    s += (s.empty() ? "" : " * ") + dim;
  }
  return s.empty() ? "1" : "(" + s + ")";
}

// C spellings at the boundary, from the scalar table.
std::string cScalar(const std::string& s) {
  if (s == "bool") return "bool";
  auto k = target::scalarByName(s);
  return k ? target::cAbiScalar(*k) : "float";
}

std::string cElem(const std::string& s) {
  auto k = target::scalarByName(s);
  return k ? target::cAbiElement(*k) : "float";
}

namespace {

std::string rtElem(const std::string& s) {
  return s == "bf16" ? "vx::rt::bf16" : s == "f16" ? "vx::rt::f16" : s == "f64" ? "double" : "float";
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// `[m, 64]`: a parameter's shape with its run-time extents by name.
std::string shapeOf(const Param& p) {
  std::string s = "[";
  for (size_t i = 0; i < p.shape.size(); ++i)
    s += (i ? ", " : "") + (i < p.extents.size() && !p.extents[i].empty() ? p.extents[i] : std::to_string(p.shape[i]));
  return s + "]";
}

bool shapedParts(mlir::Type t, Param& p) {
  mlir::Type elem;
  llvm::ArrayRef<int64_t> shape;
  if (auto x = t.dyn_cast<TensorType>()) elem = x.getElementType(), shape = x.getShape();
  else if (auto x = t.dyn_cast<PinnedType>()) elem = x.getElementType(), shape = x.getShape();
  else return false;
  p.type = scalarName(elem, false);
  p.shape.assign(shape.begin(), shape.end());
  return true;
}

std::string cParams(const Entry& entry) {
  std::string s;
  for (const Param& p : entry.params) {
    if (!s.empty()) s += ", ";
    std::string cn = cName(p);
    switch (p.kind) {
      case Param::Kind::Scalar: s += cScalar(p.type) + " " + cn; break;
      case Param::Kind::Vec:
        s += (p.mut ? "" : "const ") + cElem(p.type) + "* " + cn + ", uint64_t " + cn + "_len";
        break;
      case Param::Kind::Tensor:
      case Param::Kind::Pinned: s += (p.mut ? "" : "const ") + cElem(p.type) + "* " + cn; break;
    }
  }
  return s.empty() ? "void" : s;
}


}  // namespace

Entry describeEntry(mlir::func::FuncOp f, const std::string& symbolPrefix) {
  Entry entry;
  entry.name = f.getName().str();
  entry.symbol = symbolPrefix + entry.name;
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    mlir::Type t = f.getArgument(i).getType();
    Param p;
    auto name = f.getArgAttrOfType<mlir::StringAttr>(i, "vx.name");
    p.name = name ? name.getValue().str() : "a" + std::to_string(i);
    p.mut = f.getArgAttr(i, "vx.mut") != nullptr;
    if (t.isa<TokenType>()) {
      entry.cAbi = false;
      entry.why = "parameter `" + p.name + "` is a token";
    } else if (p.name.find('.') != std::string::npos) {
      entry.cAbi = false;
      entry.why = "parameter `" + p.name.substr(0, p.name.find('.')) + "` is a tuple";
    } else if (auto v = t.dyn_cast<VecType>()) {
      p.kind = Param::Kind::Vec;
      shapedParts(v.getElementType(), p);
    } else if (t.isa<TensorType>()) {
      p.kind = Param::Kind::Tensor;
      shapedParts(t, p);
      if (auto dims = f.getArgAttrOfType<mlir::ArrayAttr>(i, "vx.extents"))
        for (mlir::Attribute d : dims) p.extents.push_back(d.cast<mlir::StringAttr>().getValue().str());
    } else if (t.isa<PinnedType>()) {
      p.kind = Param::Kind::Pinned;
      shapedParts(t, p);
    } else {
      p.type = scalarName(t, f.getArgAttr(i, "vx.unsigned") != nullptr);
      p.extent = f.getArgAttr(i, "vx.extent") != nullptr;
    }
    entry.params.push_back(std::move(p));
  }
  auto results = f.getFunctionType().getResults();
  if (results.size() == 1 && !scalarName(results[0], false).empty()) {
    entry.result = scalarName(results[0], f.getResultAttr(0, "vx.unsigned") != nullptr);
  } else if (!results.empty()) {
    entry.cAbi = false;
    entry.why = "it returns buffers, tokens or a tuple";
  }
  return entry;
}

namespace {

// Dimension d of a buffer parameter (of a Vec's tensors) as a C expression.
std::string dimExpr(const Param& p, size_t d) {
  if (d < p.extents.size() && !p.extents[d].empty()) {
    Param x;
    x.name = p.extents[d];
    return "(uint64_t)" + cName(x);
  }
  return std::to_string(p.shape[d]) + "u";
}

// The 2-D view a parameter's tensor maps cover (vx/cuda/tma.h): every
// dimension but the last (times a Vec's length) by the last.
std::pair<std::string, std::string> mapView(const Param& p) {
  std::string rows = p.kind == Param::Kind::Vec ? cName(p) + "_len" : "1u";
  for (size_t d = 0; d + 1 < p.shape.size(); ++d) rows += " * " + dimExpr(p, d);
  return {"(" + rows + ")", dimExpr(p, p.shape.size() - 1)};
}

// The box shapes of the module's blocks, per element type: the launcher
// encodes a tensor map per parameter of that type and box.
std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> blockBoxes(mlir::func::FuncOp f) {
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> boxes;
  auto module = f->getParentOfType<mlir::ModuleOp>();
  module.walk([&](BlockOp b) {
    auto t = b.getResult().getType().cast<TensorType>();
    std::pair<int64_t, int64_t> box{t.getShape()[0], t.getShape()[1]};
    auto& list = boxes[scalarName(t.getElementType(), false)];
    if (std::find(list.begin(), list.end(), box) == list.end()) list.push_back(box);
  });
  return boxes;
}

// A CUDA unit's entry: the `__global__` kernel (its parameters are the Vx
// function's, buffers as device pointers with their tensor maps), and the
// launcher run_NAME that copies the C caller's arrays to the device,
// encodes the maps of its blocks' boxes, launches (one block; a function
// with a grid: the persistent grid of vx/cuda/grid.h), and copies the
// written ones back (vx/cuda/launch.h).
void emitCudaEntry(Emitter& e, mlir::func::FuncOp f, const Entry& entry, const std::string& ret) {
  std::string at = locLiteral(f.getLoc());
  std::string kparams = "vx::cu::Scratch vx_scratch";
  std::string args = "vx_inv", launchArgs;
  auto boxes = blockBoxes(f);
  // The tensor maps of a parameter whose element type some block has.
  auto maps = [&](const Param& p) {
    auto it = boxes.find(p.type);
    return it != boxes.end() && p.shape.size() >= 2 && (p.kind == Param::Kind::Tensor || p.kind == Param::Kind::Vec)
               ? "m_" + cName(p)
               : std::string("nullptr");
  };
  for (size_t i = 0; i < entry.params.size(); ++i) {
    const Param& p = entry.params[i];
    std::string cn = cName(p), el = rtElem(p.type), n = countExpr(p);
    switch (p.kind) {
      case Param::Kind::Scalar: {
        std::string ty = cppType(f.getArgument(static_cast<unsigned>(i)).getType());
        kparams += ", " + ty + " " + cn;
        args += ", " + cn;
        launchArgs += p.type == "bf16" || p.type == "f16" ? ", " + rtElem(p.type) + "(" + cn + ")" : ", (" + ty + ")" + cn;
        break;
      }
      case Param::Kind::Tensor:
        kparams += ", vx::cu::Hbm<" + el + "> " + cn;
        args += ", " + cn;
        launchArgs += ", vx::cu::Hbm<" + el + ">{d_" + cn + ", " + n + ", 0, 0, " + maps(p) + "}";
        break;
      case Param::Kind::Vec:
        kparams += ", vx::cu::Vec<" + el + "> " + cn;
        args += ", " + cn;
        launchArgs += ", vx::cu::Vec<" + el + ">{d_" + cn + ", " + cn + "_len, " + n + ", " + maps(p) + "}";
        break;
      case Param::Kind::Pinned:
        kparams += ", vx::cu::Hbm<" + el + "> " + cn;
        args += ", b_" + cn;
        launchArgs += ", vx::cu::Hbm<" + el + ">{d_" + cn + ", " + n + "}";
        break;
    }
  }
  // Internal linkage: two kernels' units with a function of one name (each
  // its own --symbol-prefix) link into one program.
  e.line("static VX_GLOBAL void vxk_" + entry.name + "(" + kparams + ") {");
  ++e.indent;
  e.line("vx::cu::Invocation vx_inv(vx_scratch);");
  for (const Param& p : entry.params)
    if (p.kind == Param::Kind::Pinned)
      e.line("vx::cu::Buf<" + rtElem(p.type) + "> b_" + cName(p) + " = vx::cu::pin(vx_inv, " + cName(p) + ", " + at + ");");
  std::string call = "vxgen::vxf_" + entry.name + "(" + args + ")";
  e.line(entry.result.empty() ? call + ";" : "auto r = " + call + ";");
  for (const Param& p : entry.params)
    if (p.kind == Param::Kind::Pinned && p.mut) e.line("vx::cu::unpin(b_" + cName(p) + ", " + cName(p) + ", " + at + ");");
  if (!entry.result.empty()) e.line("vx_inv.result(r);");
  e.line("vx_inv.finish(" + at + ");");
  --e.indent;
  e.line("}");
  e.line("");

  e.line("namespace vxgen {");
  e.line("[[maybe_unused]] static " + ret + " run_" + entry.name + "(vx::cu::HostInvocation& vx_host" +
         (entry.params.empty() ? "" : ", " + cParams(entry)) + ") {");
  ++e.indent;
  e.line("vx::cu::Launch vx_launch(vx_host, \"" + entry.name + "\");");
  // Elements of a buffer parameter: a Vec's tensors times its length.
  auto count = [](const Param& p) {
    return countExpr(p) + (p.kind == Param::Kind::Vec ? " * " + cName(p) + "_len" : "");
  };
  for (const Param& p : entry.params) {
    if (p.kind == Param::Kind::Scalar) continue;
    std::string cn = cName(p), el = rtElem(p.type);
    // Named, with its rows: the interpreter holds a grid's instances to disjoint elements of it.
    std::string cols = p.shape.empty() ? "0" : dimExpr(p, p.shape.size() - 1);
    e.line(el + "* d_" + cn + " = vx_launch.input((const " + el + "*)(" + cn + "), " + count(p) + ", \"" + p.name +
           "\", " + cols + ");");
    if (maps(p) == "nullptr") continue;
    auto [rows, mcols] = mapView(p);
    std::string list;
    for (auto [r, c] : boxes[p.type]) list += (list.empty() ? "" : ", ") + ("{" + std::to_string(r) + "u, " + std::to_string(c) + "u}");
    e.line("const vx::cu::tma::Maps* m_" + cn + " = vx_launch.maps(d_" + cn + ", " + rows + ", " + mcols + ", {" + list +
           "});");
  }
  bool grid = false, matrixUnit = false;
  f.walk([&](ParallelOp g) {
    grid = true;
    g.walk([&](mlir::Operation* op) { matrixUnit = matrixUnit || mlir::isa<LoadWeightsOp, MatmulAccOp, StoreAccOp>(op); });
  });
  if (grid)
    e.line("vx_launch.runGrid(" + std::string(matrixUnit ? "true" : "false") + ", vxk_" + entry.name + launchArgs + ");");
  else
    e.line("vx_launch.run(vxk_" + entry.name + launchArgs + ");");
  for (const Param& p : entry.params) {
    if (p.kind == Param::Kind::Scalar || !p.mut) continue;
    std::string cn = cName(p), el = rtElem(p.type);
    e.line("vx_launch.output((" + el + "*)(" + cn + "), d_" + cn + ", " + count(p) + ");");
  }
  if (!entry.result.empty())
    e.line("return (" + ret + ")vx_launch.result<" + cppType(f.getFunctionType().getResult(0)) + ">();");
  --e.indent;
  e.line("}");
  e.line("}  // namespace vxgen");
  e.line("");
}

}  // namespace

void emitEntry(Emitter& e, std::string& header, mlir::func::FuncOp f, const Entry& entry) {
  if (!entry.cAbi) {
    header += "/* fn " + entry.name + ": no C entry: " + entry.why + ". */\n\n";
    return;
  }
  std::string ret = entry.result.empty() ? "void" : cScalar(entry.result);
  // Header: a comment that says what each pointer must hold.
  header += "/* fn " + entry.name + "\n";
  for (const Param& p : entry.params) {
    std::string what;
    switch (p.kind) {
      case Param::Kind::Scalar:
        what = p.type;
        if (p.extent) what += ", a run-time extent: the tensors' shapes name it";
        break;
      case Param::Kind::Tensor: what = p.type + " " + shapeOf(p) + " in HBM"; break;
      case Param::Kind::Vec: what = "`" + cName(p) + "_len` " + p.type + " " + shapeText(p.shape) + " tensors, back to back"; break;
      case Param::Kind::Pinned: what = p.type + " " + shapeText(p.shape) + ", copied into VMEM for the call"; break;
    }
    header += " *   " + p.name + ": " + what + (p.mut ? " (written)" : "") + "\n";
  }
  header += " */\n" + ret + " " + entry.symbol + "(" + cParams(entry) + ");\n\n";
  std::string names;
  for (const Param& p : entry.params) names += ", " + cName(p) + (p.kind == Param::Kind::Vec ? ", " + cName(p) + "_len" : "");
  if (e.cuda()) {
    emitCudaEntry(e, f, entry, ret);
    e.line("extern \"C\" " + ret + " " + entry.symbol + "(" + cParams(entry) + ") {");
    ++e.indent;
    e.line("vx::cu::HostInvocation vx_host;");
    e.line(std::string(entry.result.empty() ? "" : "return ") + "vxgen::run_" + entry.name + "(vx_host" + names + ");");
    --e.indent;
    e.line("}");
    e.line("");
    return;
  }

  // vxgen::run_NAME: the call with a caller-owned invocation (the harness reads
  // its matrix unit afterwards).
  e.line("namespace vxgen {");
  e.line("[[maybe_unused]] static " + ret + " run_" + entry.name + "(vx::rt::Invocation& vx_inv" +
         (entry.params.empty() ? "" : ", " + cParams(entry)) + ") {");
  ++e.indent;
  std::string args = "vx_inv";
  for (size_t i = 0; i < entry.params.size(); ++i) {
    const Param& p = entry.params[i];
    std::string cn = cName(p), el = rtElem(p.type), n = countExpr(p);
    switch (p.kind) {
      case Param::Kind::Scalar:
        if (p.type == "bf16" || p.type == "f16") args += ", " + rtElem(p.type) + "(" + cn + ")";
        else args += ", (" + cppType(f.getArgument(static_cast<unsigned>(i)).getType()) + ")" + cn;
        break;
      case Param::Kind::Tensor: args += ", vx::rt::Hbm<" + el + ">{(" + el + "*)(" + cn + "), " + n + "}"; break;
      case Param::Kind::Vec: args += ", vx::rt::Vec<" + el + ">{(" + el + "*)(" + cn + "), " + cn + "_len, " + n + "}"; break;
      case Param::Kind::Pinned:
        e.line("vx::rt::Buf<" + el + "> b_" + cn + " = vx::rt::pin(vx_inv, (const " + el + "*)(" + cn + "), " + n + ");");
        args += ", b_" + cn;
        break;
    }
  }
  std::string call = "vxf_" + entry.name + "(" + args + ")";
  if (entry.result.empty()) e.line(call + ";");
  else e.line("auto r = " + call + ";");
  // Run-time token checks: no copy may be pending when the kernel returns.
  if (e.checkedTokens) e.line("vx::rt::checked::leave(" + locLiteral(f.getLoc()) + ");");
  for (const Param& p : entry.params)
    if (p.kind == Param::Kind::Pinned && p.mut) e.line("vx::rt::unpin(b_" + cName(p) + ", (" + rtElem(p.type) + "*)(" + cName(p) + "));");
  if (!entry.result.empty()) e.line("return (" + ret + ")r;");
  --e.indent;
  e.line("}");
  e.line("}  // namespace vxgen");
  e.line("");
  e.line("extern \"C\" " + ret + " " + entry.symbol + "(" + cParams(entry) + ") {");
  ++e.indent;
  e.line("vx::rt::Arena vx_arena;");
  e.line("vx::rt::Invocation vx_inv(vx_arena);");
  e.line(std::string(entry.result.empty() ? "" : "return ") + "vxgen::run_" + entry.name + "(vx_inv" + names + ");");
  --e.indent;
  e.line("}");
  e.line("");
}

}  // namespace vx::cpu
