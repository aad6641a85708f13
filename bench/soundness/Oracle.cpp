// vx-oracle: the soundness oracle of bench/soundness.py. For every function
// of one file it prints a JSON line with the checker's verdict and what the
// simulator says about it:
//   - accepted: the function runs on the tpu target (vxsim, whose race
//     detector tracks every DMA until its wait and, between the instances of
//     a `parallel` grid, every HBM byte each one reads and writes) for
//     several input sizes and run-time extents, in its asynchronous build
//     and in --sync-baseline; a DMA fault, or an access past an HBM buffer
//     (a block proved in bounds that is not), is UNSOUND, a checksum that
//     differs from the baseline a mismatch;
//   - rejected with ownership errors only: the function is built anyway (the
//     oracle's override; blocks the checker did not prove in bounds keep
//     their run-time check) and run with each error's counterexample as
//     inputs and extents. What confirms an error is its own observable:
//     E6010, a race between two grid instances; E6014, a race within an
//     instance or between two (the refused alias carries it); E6009, the
//     block's bounds check trapping at the block's line; the others, a DMA
//     fault within one instance (race, deadlock, DMA left in flight). A
//     clean run makes it imprecise. A race between instances in a function
//     rejected without E6010 or E6014 is a race the checker missed: UNSOUND.
//   - a function with no error of its own whose callee (at any depth) has
//     one is rejected with it ("in-callee"), not run: `vxc check` refuses
//     the file, and the callee's summary allows anything.
// usage: vx-oracle FILE [--lens 9,12] [--extents 64,40,48,24]
//   (without --extents: those, scaled for files whose tiles are taller than
//   16 rows)
//        vx-oracle FILE --replay FN [NAME=VALUE ...]   (one run, vxsim's verdict printed)
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <unordered_set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/tpu/Tpu.h"
#include "dialect/Vir.h"
#include "driver/Pipeline.h"
#include "driver/TpuReport.h"
#include "sim/Sim.h"

using namespace vx;

namespace {

std::string jsonEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          o += ' ';
        else
          o += c;
    }
  }
  return o;
}

bool dmaFault(sim::FaultKind k) {
  switch (k) {
    case sim::FaultKind::ReadDuringDmaWrite:
    case sim::FaultKind::WriteDuringDma:
    case sim::FaultKind::DmaOverlapsItself:
    case sim::FaultKind::Deadlock:
    case sim::FaultKind::HaltWithDmaInFlight:
    case sim::FaultKind::TooManyDmas: return true;
    case sim::FaultKind::OutOfBounds:
    case sim::FaultKind::Misaligned:
    case sim::FaultKind::Arithmetic:
    case sim::FaultKind::MatrixShape:
    case sim::FaultKind::InstructionLimit:
    case sim::FaultKind::CheckLimit: return false;
  }
  return false;
}

struct RunOutcome {
  std::string status;  // ok, fault:KIND, error:KIND, trap, load, usage, build
  std::string message;  // vxsim's fault message (for --replay)
  std::vector<uint64_t> checksums;
  std::string trap;    // for a trap: what trapped and where ("block out of bounds at F:L:C")
  bool crossInstance = false;  // a race between two grid instances (or cores)
};

RunOutcome runOne(const dialect::Vir& vir, base::FileId file, const std::string& fn,
                  const std::vector<std::string>& kvs, const std::string& path) {
  RunOutcome out;
  diag::Sink sink;
  std::string usage;
  codegen::tpu::LowerOptions lo;
  lo.entry = fn;
  lo.sourceName = path;
  std::optional<codegen::tpu::Kernel> k = codegen::tpu::lowerKernel(vir, file, lo, sink, usage);
  if (!k) {
    out.status = usage.empty() ? "build" : "usage";
    if (std::getenv("VX_ORACLE_DEBUG")) {
      std::fprintf(stderr, "%s: %s %s\n", fn.c_str(), out.status.c_str(), usage.c_str());
      for (const diag::Diagnostic& d : sink.diagnostics()) std::fprintf(stderr, "  %s %s\n", d.code(), d.message.c_str());
    }
    return out;
  }
  sim::Options so;
  so.seed = 1;
  if (std::string e = codegen::tpu::kernelArgs(*k, kvs, so.args); !e.empty()) {
    out.status = "usage";
    return out;
  }
  so.config.maxInstructions = 2'000'000;
  sim::Result r = sim::run(k->program, so);
  if (r.fault) out.message = r.fault->message;
  if (r.status == sim::Status::Ok) {
    out.status = "ok";
    for (const sim::Output& o : r.outputs) out.checksums.push_back(o.checksum);
    return out;
  }
  if (r.status == sim::Status::LoadError) {
    out.status = "load";
    return out;
  }
  if (std::string trap = driver::trapMessage(*k, r); !trap.empty()) {
    out.status = "trap";
    out.trap = trap;
    return out;
  }
  out.status = std::string(dmaFault(r.fault->kind) ? "fault:" : "error:") + sim::faultKindName(r.fault->kind);
  // vxsim's race between instances (sim.md, "Races between cores and grid
  // instances"), told from a race within one core by its message.
  out.crossInstance = r.fault->message.find("grid instances and cores run in no order") != std::string::npos;
  return out;
}

// `(name value)` pairs of a counterexample note.
std::vector<std::pair<std::string, std::string>> modelPairs(const std::string& note) {
  static const std::regex pair(R"(\(\s*([A-Za-z_][\w.]*(?:\(\))?'*)\s+(\(- [0-9]+\)|[^\s()]+)\s*\))");
  std::vector<std::pair<std::string, std::string>> out;
  for (std::sregex_iterator it(note.begin(), note.end(), pair), end; it != end; ++it)
    out.emplace_back((*it)[1].str(), (*it)[2].str());
  return out;
}

// The (expression kind, position) pairs of the user functions: what the
// generated programs contain, for the coverage table of bench/soundness.py.
struct Coverage {
  const hir::Program& p;
  std::map<std::string, uint64_t> pairs;

  static std::string kindOf(const hir::Expr& e) {
    switch (e.kind) {
      case hir::ExprKind::Binary: return e.op == ast::Op::And || e.op == ast::Op::Or ? "Logic" : "Binary";
      case hir::ExprKind::Borrow: return e.autoBorrow ? "AutoBorrow" : "Borrow";
      case hir::ExprKind::Error: return "Error";
      case hir::ExprKind::Int: return "Int";
      case hir::ExprKind::Float: return "Float";
      case hir::ExprKind::Bool: return "Bool";
      case hir::ExprKind::Local: return "Local";
      case hir::ExprKind::Const: return "Const";
      case hir::ExprKind::MemConst: return "MemConst";
      case hir::ExprKind::TopoConst: return "TopoConst";
      case hir::ExprKind::Unit: return "Unit";
      case hir::ExprKind::Tuple: return "Tuple";
      case hir::ExprKind::Call: return "Call";
      case hir::ExprKind::Len: return "Len";
      case hir::ExprKind::Field: return "Field";
      case hir::ExprKind::Index: return "Index";
      case hir::ExprKind::Unary: return "Unary";
      case hir::ExprKind::Deref: return "Deref";
      case hir::ExprKind::Cast: return "Cast";
    }
    return "?";
  }
  void expr(hir::ExprId id, const std::string& pos) {
    if (!id.valid()) return;
    const hir::Expr& e = p.expr(id);
    pairs[kindOf(e) + "@" + pos] += 1;
    switch (e.kind) {
      case hir::ExprKind::Tuple:
        for (uint32_t i = 0; i < e.args.count; ++i) expr(p.arg(e, i), "tuple-element");
        return;
      case hir::ExprKind::Call: {
        // A block's tensor and offsets are positions of their own.
        hir::Builtin b = e.fn.valid() ? p.fns[e.fn.index].builtin : hir::Builtin::None;
        bool blk = b == hir::Builtin::Block || b == hir::Builtin::BlockMut;
        for (uint32_t i = 0; i < e.args.count; ++i)
          expr(p.arg(e, i), !blk ? "call-argument"
                            : i > 0 ? "block-offset"
                            : b == hir::Builtin::Block ? "block-source"
                                                  : "block-destination");
        return;
      }
      case hir::ExprKind::Len: expr(e.a, "len-operand"); return;
      case hir::ExprKind::Field: expr(e.a, "field-base"); return;
      case hir::ExprKind::Index:
        expr(e.a, "index-base");
        expr(e.b, "index");
        return;
      case hir::ExprKind::Unary: expr(e.a, "unary-operand"); return;
      case hir::ExprKind::Borrow: expr(e.a, "borrow-operand"); return;
      case hir::ExprKind::Deref: expr(e.a, "deref-operand"); return;
      case hir::ExprKind::Cast: expr(e.a, "cast-operand"); return;
      case hir::ExprKind::Binary:
        if (e.op == ast::Op::And || e.op == ast::Op::Or) {
          expr(e.a, "logic-left");
          expr(e.b, "logic-right");
        } else {
          expr(e.a, "binary-operand");
          expr(e.b, "binary-operand");
        }
        return;
      case hir::ExprKind::Error:
      case hir::ExprKind::Int:
      case hir::ExprKind::Float:
      case hir::ExprKind::Bool:
      case hir::ExprKind::Local:
      case hir::ExprKind::Const:
      case hir::ExprKind::MemConst:
      case hir::ExprKind::TopoConst:
      case hir::ExprKind::Unit: return;
    }
  }
  void block(hir::BlockId id) {
    const hir::Block& b = p.block(id);
    for (uint32_t i = 0; i < b.stmts.count; ++i) stmt(hir::StmtId{p.listAt(b.stmts, i)});
    expr(b.tail, "block-tail");
  }
  void stmt(hir::StmtId id) {
    const hir::Stmt& s = p.stmt(id);
    switch (s.kind) {
      case hir::StmtKind::Let: expr(s.a, "let-initializer"); return;
      case hir::StmtKind::Assign:
        expr(s.a, "assigned-place");
        expr(s.b, "assigned-value");
        return;
      case hir::StmtKind::For:
        expr(s.a, "for-range");
        expr(s.b, "for-range");
        block(s.body);
        return;
      case hir::StmtKind::While:
        expr(s.a, "while-condition");
        block(s.body);
        return;
      case hir::StmtKind::If:
        expr(s.a, "if-condition");
        block(s.body);
        if (s.elseStmt.valid()) stmt(s.elseStmt);
        return;
      case hir::StmtKind::Return: expr(s.a, "return-value"); return;
      case hir::StmtKind::Break:
      case hir::StmtKind::Continue: return;
      case hir::StmtKind::Block: block(s.body); return;
      case hir::StmtKind::Expr: expr(s.a, "expression-statement"); return;
      case hir::StmtKind::Parallel:
        for (uint32_t i = 0; i < s.extents.count; ++i) expr(hir::ExprId{p.listAt(s.extents, i)}, "grid-extent");
        block(s.body);
        return;
    }
  }
};

// The source line of a diagnostic's primary span (1-based), 0 if none.
unsigned lineOf(const base::SourceMap& sources, const diag::Diagnostic& d) {
  base::Span s = d.primarySpan();
  if (!s.valid()) return 0;
  return sources.file(s.file).lineCol(s.begin).line;
}

// The line of a trap message's "at FILE:LINE:COL", 0 if none.
unsigned trapLine(const std::string& trap) {
  static const std::regex at(R"(:([0-9]+):[0-9]+$)");
  std::smatch m;
  return std::regex_search(trap, m, at) ? static_cast<unsigned>(std::stoul(m[1].str())) : 0;
}

std::vector<int64_t> numberList(const char* text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  for (std::string x; std::getline(ss, x, ',');) out.push_back(std::stoll(x));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: vx-oracle FILE [--lens 9,12] [--extents 64,40,48,24]\n");
    return 2;
  }
  std::string path = argv[1];
  std::vector<int64_t> lens = {9, 12};
  // Run-time extents of accepted kernels: run r gives extent e the value
  // extents[(r + e) % size], so each kernel runs with multiples of the tile
  // sizes (8, 16) and with rows left over, and unequal extents.
  std::vector<int64_t> extents = {64, 40, 48, 24};
  bool extentsGiven = false;
  // --replay FN NAME=VALUE...: run one function as the oracle builds it
  // (ownership errors overridden) and print what vxsim says, to minimise a
  // kept case (`vxc run` refuses what the checker rejects).
  std::string replay;
  std::vector<std::string> replayArgs;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--lens" && i + 1 < argc) lens = numberList(argv[++i]);
    else if (a == "--extents" && i + 1 < argc) {
      extents = numberList(argv[++i]);
      extentsGiven = true;
    }
    else if (a == "--replay" && i + 1 < argc) replay = argv[++i];
    else if (!replay.empty() && a.find('=') != std::string::npos) replayArgs.push_back(a);
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  base::SourceMap sources;
  base::FileId id = sources.add(path, buf.str());
  diag::Sink sink;
  driver::CheckOptions opts;
  opts.target = "tpu";
  opts.overrideOwnership = true;
  // Coverage of every well-typed program, whether or not the tpu target
  // builds it (forms that do not lower are still checked).
  if (replay.empty()) opts.onTyped = [](const hir::Program& typed) {
    Coverage cov{typed, {}};
    for (const hir::Function& f : typed.fns)
      if (!f.isExtern && f.body.valid() && !f.fromPrelude) cov.block(f.body);
    std::string line;
    for (const auto& [k, n] : cov.pairs) line += (line.empty() ? "" : ",") + std::string("\"") + k + "\":" + std::to_string(n);
    std::printf("{\"coverage\":{%s}}\n", line.c_str());
  };
  auto t0 = std::chrono::steady_clock::now();
  driver::CheckOutput checked = driver::checkFile(sources, id, sink, opts);
  double checkMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!checked.program) {
    std::printf("{\"file\":\"%s\",\"fn\":\"*\",\"kind\":\"other\",\"detail\":\"%s\",\"check_ms\":%.3f}\n",
                jsonEscape(path).c_str(),
                jsonEscape(sink.diagnostics().empty() ? "" : sink.diagnostics()[0].message).c_str(), checkMs);
    return 0;
  }
  const hir::Program& prog = *checked.program;
  // The default extents suit tiles of 8 and 16 rows (the generators'); a
  // file with taller tiles (a hand-written kernel's 128) gets them scaled,
  // so that its grids run instances at all: by the tallest static leading
  // dimension of a tensor any expression has, over 16.
  if (!extentsGiven) {
    const hir::TypeTable& tt = prog.types;
    uint64_t rows = 0;
    for (const hir::Expr& e : prog.exprs) {
      if (!e.type.valid()) continue;
      hir::TypeId t = tt.resolve(e.type);
      for (int hops = 0; hops < 4 && t.valid(); ++hops) {  // through &, Pinned, Token to the tensor
        hir::TyKind k = tt.kind(t);
        if (k != hir::TyKind::Ref && k != hir::TyKind::Pinned && k != hir::TyKind::Token) break;
        t = tt.resolve(tt.get(t).a);
      }
      if (!t.valid() || tt.kind(t) != hir::TyKind::Tensor) continue;
      hir::TypeId shape = tt.resolve(tt.get(t).b);
      if (tt.kind(shape) != hir::TyKind::Shape || tt.count(shape) < 2) continue;  // a row of one dimension: no rows
      hir::TypeId lead = tt.resolve(tt.elem(shape, 0));
      if (tt.kind(lead) == hir::TyKind::Dim) rows = std::max<uint64_t>(rows, tt.get(lead).value);
    }
    if (rows > 16 && rows <= 4096) {
      int64_t scale = static_cast<int64_t>((rows + 15) / 16);
      for (int64_t& x : extents) x *= scale;
    }
  }
  std::unique_ptr<dialect::Vir> vir, base, allChecked;
  {
    diag::Sink s1, s2, s3;
    dialect::VirOptions vo;
    vo.target = "tpu";
    vir = dialect::buildVir(prog, sources, id, vo, s1);
    // Every block checked at run time, those the checker proved in bounds
    // too: a proved block that traps here is an unsound proof (a block past
    // its last column stays inside the buffer, where vxsim cannot see it).
    std::unordered_set<uint32_t> proved;
    proved.swap(checked.program->provedBlocks);
    if (!proved.empty()) allChecked = dialect::buildVir(prog, sources, id, vo, s3);
    proved.swap(checked.program->provedBlocks);
    vo.syncBaseline = true;
    base = dialect::buildVir(prog, sources, id, vo, s2);
    if (!vir && std::getenv("VX_ORACLE_DEBUG"))
      std::fputs(driver::renderAll(s1, sources, driver::Format::Human, false).c_str(), stderr);
  }
  if (!replay.empty()) {
    for (const auto* v : {vir.get(), base.get()}) {
      if (!v) {
        std::printf("%s: not built for tpu\n", v == vir.get() ? "async" : "sync");
        continue;
      }
      RunOutcome a = runOne(*v, id, replay, replayArgs, path);
      std::printf("%s: %s %s\n%s\n", v == vir.get() ? "async" : "--sync-baseline", a.status.c_str(),
                  a.trap.c_str(), a.message.c_str());
    }
    return 0;
  }
  unsigned fns = 0;
  for (const hir::Function& f : prog.fns)
    if (!f.isExtern && f.body.valid()) ++fns;
  // The functions with errors of their own, and each function's callees:
  // a function whose callee (at any depth) is rejected is rejected with it
  // (`vxc check` refuses the file; the callee's summary allows anything,
  // so the caller alone shows nothing), never an acceptance to run.
  auto hasErrors = [&](const hir::Function& f) {
    for (const diag::Diagnostic& d : sink.diagnostics()) {
      base::Span s = d.primarySpan();
      if (s.valid() && s.begin >= f.span.begin && s.end <= f.span.end && d.severity() == diag::Severity::Error)
        return true;
    }
    return false;
  };
  std::vector<std::set<uint32_t>> callees(prog.fns.size());
  for (const hir::Expr& e : prog.exprs) {
    if (e.kind != hir::ExprKind::Call || !e.fn.valid() || prog.fns[e.fn.index].isExtern) continue;
    for (uint32_t i = 0; i < prog.fns.size(); ++i) {
      const hir::Function& g = prog.fns[i];
      if (!g.isExtern && g.body.valid() && e.span.file == g.span.file && e.span.begin >= g.span.begin &&
          e.span.end <= g.span.end)
        callees[i].insert(e.fn.index);
    }
  }
  std::vector<char> ownErrors(prog.fns.size(), 0);
  for (uint32_t i = 0; i < prog.fns.size(); ++i)
    if (!prog.fns[i].isExtern && prog.fns[i].body.valid()) ownErrors[i] = hasErrors(prog.fns[i]);
  auto calleeRejected = [&](uint32_t root) -> std::string {
    std::vector<uint32_t> stack(callees[root].begin(), callees[root].end());
    std::set<uint32_t> seen{root};
    while (!stack.empty()) {
      uint32_t g = stack.back();
      stack.pop_back();
      if (!seen.insert(g).second) continue;
      if (ownErrors[g]) return prog.fns[g].name;
      stack.insert(stack.end(), callees[g].begin(), callees[g].end());
    }
    return {};
  };
  for (uint32_t fi = 0; fi < prog.fns.size(); ++fi) {
    const hir::Function& f = prog.fns[fi];
    if (f.isExtern || !f.body.valid()) continue;
    // The function's diagnostics: those whose primary span is in it.
    std::vector<const diag::Diagnostic*> diags;
    for (const diag::Diagnostic& d : sink.diagnostics()) {
      base::Span s = d.primarySpan();
      if (s.valid() && s.begin >= f.span.begin && s.end <= f.span.end && d.severity() == diag::Severity::Error)
        diags.push_back(&d);
    }
    std::set<std::string> codes;
    for (const diag::Diagnostic* d : diags) codes.insert(d->code());
    std::string kind, result, detail, notes;
    std::string codeList;
    for (const std::string& c : codes) codeList += (codeList.empty() ? "" : ",") + std::string("\"") + c + "\"";
    // Parameters the oracle sets: Vec lengths, scalars and run-time extents.
    std::vector<std::pair<std::string, std::string>> params;  // name, "vec", "int", "bool" or "extent"
    for (size_t i = 0; i < f.params.size(); ++i) {
      const hir::TypeTable& tt = prog.types;
      hir::TypeId t = tt.resolve(f.paramTypes[i]);
      if (tt.kind(t) == hir::TyKind::Ref) t = tt.resolve(tt.get(t).a);
      const hir::Local& local = prog.local(f.params[i]);
      if (local.extent) params.emplace_back(local.name, "extent");
      else if (tt.kind(t) == hir::TyKind::Vec) params.emplace_back(local.name, "vec");
      else if (tt.kind(t) == hir::TyKind::Int) params.emplace_back(local.name, "int");
      else if (tt.kind(t) == hir::TyKind::Bool) params.emplace_back(local.name, "bool");
    }
    const std::string rejectedCallee =
        codes.empty() ? calleeRejected(fi) : std::string();
    if (!rejectedCallee.empty()) {
      kind = "rejected";
      result = "in-callee";
      detail = "its callee `" + rejectedCallee + "` is rejected";
    } else if (codes.empty()) {
      kind = "accepted";
      result = "ok";
      if (!vir || !base) {
        result = "build";
      } else {
        int run = 0;
        // Whether some run was judged (ended, and compared with the
        // baseline), and why the others were not: a kernel none of whose
        // runs was judged (each ended at vxsim's instruction or race-check
        // limit, or trapped: a division by zero, a run-time block check)
        // is "unjudged" (no race in the instructions run), not "ok". The
        // limits' were loops whose condition never changes (a `while c &&
        // done(t)` with `c` set before it); a limit twenty times as high
        // judged none of them and halved the benchmark's rate.
        std::string unjudgedWhy;
        bool judged = false, limited = false;
        for (int64_t len : lens) {
          for (int variant = 0; variant < 2; ++variant, ++run) {
            std::vector<std::string> kvs;
            std::string shape;
            int e = 0;
            for (const auto& [name, ty] : params) {
              if (ty == "vec") kvs.push_back(name + "=" + std::to_string(len));
              if (ty == "int") kvs.push_back(name + "=" + std::to_string(variant ? len - 1 : len));
              if (ty == "bool") kvs.push_back(name + "=" + std::string(variant ? "true" : "false"));
              if (ty == "extent") {
                kvs.push_back(name + "=" + std::to_string(extents[(run + e++) % extents.size()]));
                shape += " " + kvs.back();
              }
            }
            RunOutcome a = runOne(*vir, id, f.name, kvs, path);
            const std::string inputs = " with len " + std::to_string(len) + " variant " + std::to_string(variant) + shape;
            if (a.status == "build" || a.status == "usage") {
              result = a.status;
              break;
            }
            // A DMA fault is a race the checker let through; an access past
            // an HBM buffer is a block it proved in bounds that is not (the
            // others are checked: a trap, the program's own).
            if (a.status.rfind("fault:", 0) == 0 || a.status == "error:out-of-bounds") {
              result = "unsound";
              detail = a.status + (a.crossInstance ? " between grid instances" : "") + inputs;
              break;
            }
            if (a.status == "trap" && unjudgedWhy.empty())
              unjudgedWhy = "trap: " + a.trap + inputs;
            if (a.status == "trap") {
              // A block the checker could not decide, checked at run time.
              if (a.trap.find("block out of bounds") != std::string::npos &&
                  notes.find("block-trap") == std::string::npos)
                notes += std::string(notes.empty() ? "" : ",") + "block-trap";
              continue;
            }
            if (a.status == "error:instruction-limit" || a.status == "error:check-limit") {
              if (!limited) unjudgedWhy = a.status + inputs;
              limited = true;
              continue;
            }
            if (a.status != "ok") {  // the program's own error (an arithmetic fault, ...)
              if (unjudgedWhy.empty())
                unjudgedWhy = a.status + inputs;
              continue;
            }
            judged = true;
            if (allChecked) {
              RunOutcome c = runOne(*allChecked, id, f.name, kvs, path);
              if (c.status == "trap" && c.trap.find("block out of bounds") != std::string::npos) {
                result = "unsound";
                detail = "a block proved in bounds is not: " + c.trap + inputs;
                break;
              }
            }
            RunOutcome b = runOne(*base, id, f.name, kvs, path);
            if (b.status == "ok" && b.checksums != a.checksums) {
              result = "mismatch";
              detail = "len " + std::to_string(len) + shape;
              break;
            }
          }
          if (result != "ok") break;
        }
        if (result == "ok" && limited) notes += std::string(notes.empty() ? "" : ",") + "limit";
        if (result == "ok" && !judged) {
          result = "unjudged";
          detail = unjudgedWhy;
        }
      }
    } else {
      bool ownership = true;
      for (const std::string& c : codes) ownership = ownership && (c.rfind("E60", 0) == 0 || c == "W6900");
      if (!ownership || !vir) {
        kind = "other";
        result = "other";
        detail = diags.empty() ? "" : diags[0]->message;
      } else {
        kind = "rejected";
        result = "imprecise";
        bool anyRun = false, trapped = false;
        std::string missed;
        for (const diag::Diagnostic* d : diags) {
          std::string code = d->code();
          std::vector<std::string> kvs;
          for (const std::string& n : d->notes) {
            if (n.find("counterexample") == std::string::npos && n.rfind("on the path", 0) != 0) continue;
            for (const auto& [name, value] : modelPairs(n))
              for (const auto& [pn, ty] : params) {
                if (ty == "vec" && name == pn + ".len()") kvs.push_back(pn + "=" + value);
                if (ty != "vec" && name == pn) kvs.push_back(pn + "=" + value);
              }
          }
          // Inputs the model left open: small defaults; extents the model
          // left open make grids of several instances (two tries).
          bool openExtent = false;
          for (const auto& [pn, ty] : params) {
            bool given = false;
            for (const std::string& kv : kvs) given = given || kv.rfind(pn + "=", 0) == 0;
            if (!given && ty == "extent") openExtent = true;
            if (!given) kvs.push_back(pn + "=" + std::string(ty == "bool" ? "false" : ty == "vec" ? "9" : ty == "extent" ? "@" : "1"));
          }
          bool confirmed = false;
          for (int64_t open : {extents[0], extents[1 % extents.size()]}) {
            std::vector<std::string> args = kvs;
            for (std::string& kv : args)
              if (kv.back() == '@') kv = kv.substr(0, kv.size() - 1) + std::to_string(open);
            RunOutcome a = runOne(*vir, id, f.name, args, path);
            if (a.status == "build" || a.status == "usage" || a.status == "load") {
              if (!anyRun) result = "unrunnable";
              break;
            }
            anyRun = true;
            if (result == "unrunnable") result = "imprecise";
            bool fault = a.status.rfind("fault:", 0) == 0;
            // E6014 refuses an alias the analysis would not follow; through
            // it, one instance may write what another reads.
            if (fault && a.crossInstance && !codes.count("E6010") && !codes.count("E6014") && missed.empty())
              missed = "missed E6010: " + a.status + " between grid instances (rejected for " + code + ")";
            if (a.status == "error:out-of-bounds" && !codes.count("E6009") && missed.empty())
              missed = "missed E6009: an access past an HBM buffer (rejected for " + code + ")";
            // Each error by its own observable.
            if (code == "E6010") confirmed = fault && a.crossInstance;
            else if (code == "E6014") confirmed = fault;
            else if (code == "E6009")
              confirmed = a.status == "trap" && a.trap.find("block out of bounds") != std::string::npos &&
                          trapLine(a.trap) == lineOf(sources, *d);
            else confirmed = fault && !a.crossInstance;
            if (confirmed) {
              detail = code + " " + a.status;
              break;
            }
            if (a.status == "trap") trapped = true;
            if (!openExtent) break;
          }
          if (confirmed) {
            result = "confirmed";
            break;
          }
        }
        if (!missed.empty()) {
          result = "unsound";
          detail = missed;
        } else if (result == "imprecise" && trapped) {
          result = "trapped";
        }
        if (result == "imprecise" || result == "trapped") {
          // Which error was not confirmed.
          detail = *codes.begin();
          for (const std::string& c : codes)
            if (c != "W6900") {
              detail = c;
              break;
            }
        }
      }
    }
    std::printf("{\"file\":\"%s\",\"fn\":\"%s\",\"kind\":\"%s\",\"codes\":[%s],\"result\":\"%s\",\"detail\":\"%s\","
                "\"grid\":%s,\"notes\":\"%s\",\"check_ms\":%.3f}\n",
                jsonEscape(path).c_str(), jsonEscape(f.name).c_str(), kind.c_str(), codeList.c_str(),
                result.c_str(), jsonEscape(detail).c_str(), f.grid ? "true" : "false", notes.c_str(), checkMs / fns);
  }
  return 0;
}
