// The assembler: one pass over lines (declarations must precede their uses;
// labels may be used before they are defined), then label fix-ups and the
// structural checks of validate().
#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_map>

#include "tpu/Asm.h"
#include "tpu/AsmLex.h"

namespace vx::tpu {

namespace {

using asmlex::Cursor;

struct LabelRef {
  size_t instr;
  unsigned operand;
  std::string name;
  uint32_t line, col;
};

struct LabelDef {
  std::string name;
  uint32_t target;
  uint32_t line, col;
};

// Thrown only inside this file, to abandon the current line; assemble()
// catches it per line, so nothing escapes the API.
struct LineError {
  uint32_t col;
  std::string message;
};

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string suggestOpcode(std::string_view word) {
  std::string best;
  size_t bestD = 3;
  if (word.size() > 24) return best;
  for (unsigned i = 0; i < kNumOps; ++i) {
    std::string_view m = info(static_cast<Op>(i)).mnemonic;
    size_t d = editDistance(word, m);
    if (d < bestD) {
      bestD = d;
      best = m;
    }
  }
  return best;
}

std::string signature(Op op) {
  std::string s;
  for (unsigned i = 0; i < operandCount(op); ++i) {
    if (i) s += ", ";
    s += info(op).kinds[i];
  }
  return s;
}

class Assembler {
 public:
  AsmResult run(std::string_view text);

 private:
  void line(std::string_view s);
  void directive(Cursor& c);
  std::string quotedString(Cursor& c, const char* what);
  void declareBuffer(Cursor& c, Space space, uint32_t col);
  void instruction(Cursor& c);
  Operand operand(Cursor& c, Op op, unsigned i);
  Operand memory(Cursor& c, OperandKind kind, Op op, unsigned i);
  std::string name(Cursor& c, const char* what);
  int64_t integer(Cursor& c, const char* what);
  void expectEnd(Cursor& c);
  void checkNewName(std::string_view n, uint32_t col);
  void error(uint32_t line, uint32_t col, std::string msg) {
    if (r_.errors.size() < kMaxAsmErrors) r_.errors.push_back({line, col, std::move(msg)});
  }

  AsmResult r_;
  Program& p_ = r_.program;
  uint32_t lineNo_ = 0;
  bool sawVersion_ = false;
  bool sawAnything_ = false;
  bool sawKernel_ = false, sawSource_ = false;
  Loc loc_;
  std::vector<LabelDef> defs_;
  std::vector<LabelRef> refs_;
  std::vector<LabelRef> lineRefs_;  // the current instruction's, kept only if it assembles
  std::unordered_map<std::string, size_t> defIndex_;
  // Buffers and parameters by name, as they are declared (Program's own
  // lookups scan: 100,000 declarations took 12 s).
  std::unordered_map<std::string, int32_t> bufferIndex_, paramIndex_;
  int32_t findBuffer(std::string_view n) const {
    auto it = bufferIndex_.find(std::string(n));
    return it == bufferIndex_.end() ? -1 : it->second;
  }
  int32_t findParam(std::string_view n) const {
    auto it = paramIndex_.find(std::string(n));
    return it == paramIndex_.end() ? -1 : it->second;
  }
};

[[noreturn]] void fail(const Cursor& c, std::string msg) { throw LineError{c.col(), std::move(msg)}; }

// The first ';' outside a quoted string starts a comment.
std::string_view stripComment(std::string_view s) {
  bool inString = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    if (inString) {
      if (ch == '\\') ++i;
      else if (ch == '"') inString = false;
    } else if (ch == '"') {
      inString = true;
    } else if (ch == ';') {
      return s.substr(0, i);
    }
  }
  return s;
}

AsmResult Assembler::run(std::string_view text) {
  size_t start = 0;
  while (start <= text.size() && r_.errors.size() < kMaxAsmErrors) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    ++lineNo_;
    std::string_view s = stripComment(text.substr(start, nl - start));
    try {
      line(s);
    } catch (const LineError& e) {
      error(lineNo_, e.col, e.message);
    }
    start = nl + 1;
  }
  if (r_.errors.size() >= kMaxAsmErrors) {
    r_.errors.back().message += " (too many errors; stopping)";
    return std::move(r_);
  }
  if (!sawVersion_ && r_.errors.empty())
    error(1, 1, "a .vxdma program starts with `.vxdma " + std::to_string(kFormatVersion) + "`");

  // Labels are numbered in definition order; references resolve by name.
  for (const LabelDef& d : defs_) {
    if (d.target >= p_.code.size())
      error(d.line, d.col, "label `" + d.name + "` is not followed by an instruction");
    p_.labels.push_back({d.name, d.target});
  }
  for (const LabelRef& ref : refs_) {
    auto it = defIndex_.find(ref.name);
    if (it == defIndex_.end()) {
      error(ref.line, ref.col, "undefined label `" + ref.name + "`");
      continue;
    }
    p_.code[ref.instr].operands[ref.operand].index = static_cast<int32_t>(it->second);
  }
  if (r_.errors.empty())
    for (AsmError& e : validate(p_)) r_.errors.push_back(std::move(e));
  return std::move(r_);
}

void Assembler::line(std::string_view s) {
  Cursor c(s);
  if (c.atEnd()) return;
  if (c.peek() == '.') {
    directive(c);
    return;
  }
  if (!sawVersion_ && !sawAnything_) {
    sawAnything_ = true;
    fail(c, "a .vxdma program starts with `.vxdma " + std::to_string(kFormatVersion) + "`");
  }
  // `label:` with an optional instruction after it.
  size_t save = c.pos();
  uint32_t col = c.col();
  std::string_view id = c.ident();
  if (!id.empty() && c.accept(':')) {
    std::string n(id);
    if (asmlex::isReservedName(n)) throw LineError{col, "`" + n + "` is a register or semaphore name and cannot be a label"};
    auto it = defIndex_.find(n);
    if (it != defIndex_.end())
      throw LineError{col, "label `" + n + "` is defined twice (first on line " +
                               std::to_string(defs_[it->second].line) + ")"};
    defIndex_.emplace(n, defs_.size());
    defs_.push_back({n, static_cast<uint32_t>(p_.code.size()), lineNo_, col});
    if (c.atEnd()) return;
  } else {
    c.seek(save);
  }
  instruction(c);
}

std::string Assembler::name(Cursor& c, const char* what) {
  std::string_view id = c.ident();
  if (id.empty()) fail(c, std::string("expected ") + what + ", found " + c.found());
  return std::string(id);
}

int64_t Assembler::integer(Cursor& c, const char* what) {
  c.skipSpace();
  Cursor at = c;
  std::string_view w = c.word();
  auto v = asmlex::parseInt(w);
  if (!v) {
    if (!w.empty() && (w[0] == '-' || (w[0] >= '0' && w[0] <= '9')))
      fail(at, std::string(what) + " `" + asmlex::quoteToken(w) + "` is not a valid 64-bit integer");
    fail(at, std::string("expected ") + what + ", found " + at.found());
  }
  return *v;
}

void Assembler::expectEnd(Cursor& c) {
  if (!c.atEnd()) fail(c, "unexpected " + c.found() + " at the end of the line");
}

void Assembler::checkNewName(std::string_view n, uint32_t col) {
  if (asmlex::isReservedName(n))
    throw LineError{col, "`" + std::string(n) + "` is a register or semaphore name and cannot name a declaration"};
  if (findBuffer(n) >= 0 || findParam(n) >= 0)
    throw LineError{col, "`" + std::string(n) + "` is declared twice"};
}

std::string Assembler::quotedString(Cursor& c, const char* what) {
  c.skipSpace();
  if (!c.accept('"')) fail(c, std::string("expected ") + what + ", found " + c.found());
  std::string text;
  for (;;) {
    if (c.rest().empty()) fail(c, "unterminated string");
    char ch = c.rest()[0];
    c.seek(c.pos() + 1);
    if (ch == '"') break;
    if (ch == '\\') {
      if (c.rest().empty()) fail(c, "unterminated string");
      ch = c.rest()[0];
      c.seek(c.pos() + 1);
      if (ch != '"' && ch != '\\') fail(c, "only \\\" and \\\\ escapes are allowed in a string");
    }
    text += ch;
  }
  return text;
}

void Assembler::directive(Cursor& c) {
  c.skipSpace();
  uint32_t col = c.col();
  c.accept('.');
  std::string_view d = c.ident();
  if (d == "vxdma") {
    if (sawVersion_) throw LineError{col, "`.vxdma` appears twice"};
    if (sawAnything_) throw LineError{col, "`.vxdma` must be the first line of the program"};
    sawVersion_ = sawAnything_ = true;
    c.skipSpace();
    Cursor at = c;
    int64_t v = integer(c, "a format version");
    expectEnd(c);
    if (v != static_cast<int64_t>(kFormatVersion))
      fail(at, "unsupported .vxdma version " + std::to_string(v) + " (this assembler reads version " +
                   std::to_string(kFormatVersion) + ")");
    p_.version = static_cast<uint32_t>(v);
    return;
  }
  if (!sawVersion_ && !sawAnything_) {
    sawAnything_ = true;
    throw LineError{col, "a .vxdma program starts with `.vxdma " + std::to_string(kFormatVersion) + "`"};
  }
  sawAnything_ = true;
  if (d == "kernel") {
    if (sawKernel_) throw LineError{col, "`.kernel` appears twice"};
    sawKernel_ = true;
    p_.kernel = name(c, "a kernel name");
    expectEnd(c);
  } else if (d == "source") {
    if (sawSource_) throw LineError{col, "`.source` appears twice"};
    sawSource_ = true;
    p_.sourceFile = quotedString(c, "a quoted file name");
    expectEnd(c);
  } else if (d == "dbg") {
    DbgText t;
    t.text = quotedString(c, "the quoted text `dbg` prints");
    t.type = quotedString(c, "the quoted type of a tile (\"\" for a scalar)");
    expectEnd(c);
    p_.dbgs.push_back(std::move(t));
  } else if (d == "spmd") {
    if (p_.spmd) throw LineError{col, "`.spmd` appears twice"};
    expectEnd(c);
    p_.spmd = true;
  } else if (d == "param") {
    c.skipSpace();
    uint32_t ncol = c.col();
    std::string n = name(c, "a parameter name");
    checkNewName(n, ncol);
    Param prm{n, std::nullopt};
    if (c.accept('=')) prm.defaultValue = integer(c, "a default value");
    expectEnd(c);
    paramIndex_.emplace(prm.name, static_cast<int32_t>(p_.params.size()));
    p_.params.push_back(std::move(prm));
  } else if (d == "hbm") {
    declareBuffer(c, Space::Hbm, col);
  } else if (d == "vmem") {
    declareBuffer(c, Space::Vmem, col);
  } else if (d == "smem") {
    declareBuffer(c, Space::Smem, col);
  } else if (d == "loc") {
    int64_t ln = integer(c, "a line number");
    if (!c.accept(':')) fail(c, "expected `:` between line and column, found " + c.found());
    int64_t cl = integer(c, "a column number");
    expectEnd(c);
    if (ln < 0 || cl < 0 || ln > UINT32_MAX || cl > UINT32_MAX || (ln == 0 && cl != 0))
      throw LineError{col, "`.loc` takes LINE:COL with LINE >= 1, or 0:0 for an unknown location"};
    loc_ = {static_cast<uint32_t>(ln), static_cast<uint32_t>(cl)};
  } else {
    throw LineError{col, "unknown directive `." + asmlex::quoteToken(d.empty() ? c.rest().substr(0, 1) : d) +
                             "` (directives: .vxdma .kernel .source .spmd .param .hbm .vmem .smem .dbg .loc)"};
  }
}

void Assembler::declareBuffer(Cursor& c, Space space, uint32_t col) {
  c.skipSpace();
  uint32_t ncol = c.col();
  Buffer b;
  b.space = space;
  b.name = name(c, "a buffer name");
  checkNewName(b.name, ncol);
  Cursor at = c;
  std::string t(c.ident());
  if (t == "f32") b.dtype = DType::F32;
  else if (t == "bf16") b.dtype = DType::Bf16;
  else if (t == "i64") b.dtype = DType::I64;
  else fail(at, "expected an element type (f32, bf16 or i64), found " + at.found());
  if (!c.accept('[')) fail(c, "expected a shape like `[128, 128]`, found " + c.found());
  do {
    if (b.shape.size() == kMaxRank) fail(c, "a shape has at most " + std::to_string(kMaxRank) + " dimensions");
    c.skipSpace();
    if (asmlex::isIdentStart(c.peek())) {
      Cursor pc = c;
      std::string pn(c.ident());
      int32_t pi = findParam(pn);
      if (pi < 0) fail(pc, "`" + pn + "` is not a declared parameter");
      b.shape.push_back({0, pi});
    } else {
      Cursor dc = c;
      int64_t v = integer(c, "a dimension");
      if (v < 1) fail(dc, "a dimension must be at least 1");
      b.shape.push_back({v, -1});
    }
  } while (c.accept(','));
  if (!c.accept(']')) fail(c, "expected `,` or `]` in the shape, found " + c.found());
  if (space == Space::Hbm) {
    Cursor rc = c;
    std::string role(c.ident());
    if (role == "input") b.role = Role::Input;
    else if (role == "output") b.role = Role::Output;
    else if (role == "inout") b.role = Role::InOut;
    else if (role == "scratch") b.role = Role::Scratch;
    else fail(rc, "expected the buffer's role (input, output, inout or scratch), found " + rc.found());
  }
  expectEnd(c);
  if (b.dtype == DType::I64 && space != Space::Smem)
    throw LineError{col, "i64 buffers live in SMEM; `" + b.name + "` is in " + spaceName(space)};
  bufferIndex_.emplace(b.name, static_cast<int32_t>(p_.buffers.size()));
  p_.buffers.push_back(std::move(b));
}

void Assembler::instruction(Cursor& c) {
  c.skipSpace();
  uint32_t col = c.col();
  std::string_view m = c.word();
  auto op = opFromMnemonic(m);
  if (!op) {
    std::string msg = "unknown opcode `" + asmlex::quoteToken(m.empty() ? c.rest().substr(0, 1) : m) + "`";
    std::string close = suggestOpcode(m);
    if (!close.empty()) msg += "; did you mean `" + close + "`?";
    throw LineError{col, msg};
  }
  lineRefs_.clear();
  Instr in;
  in.op = *op;
  in.loc = loc_;
  in.line = lineNo_;
  const unsigned n = operandCount(*op);
  // Count the operands written (commas at bracket depth 0) for a clear message.
  std::string_view rest = c.rest();
  unsigned written = 0, depth = 0;
  bool any = false;
  for (char ch : rest) {
    if (ch == '[') ++depth;
    else if (ch == ']' && depth) --depth;
    else if (ch == ',' && depth == 0) ++written;
    if (!asmlex::isSpace(ch)) any = true;
  }
  written = any ? written + 1 : 0;
  if (written != n)
    throw LineError{col, "`" + std::string(m) + "` takes " + std::to_string(n) + " operand" +
                             (n == 1 ? "" : "s") + (n ? " (" + signature(*op) + ")" : "") + ", found " +
                             std::to_string(written)};
  for (unsigned i = 0; i < n; ++i) {
    if (i && !c.accept(',')) fail(c, "expected `,` before operand " + std::to_string(i + 1) + ", found " + c.found());
    in.operands[i] = operand(c, *op, i);
  }
  in.numOperands = static_cast<uint8_t>(n);
  expectEnd(c);
  p_.code.push_back(in);
  refs_.insert(refs_.end(), lineRefs_.begin(), lineRefs_.end());
}

Operand Assembler::operand(Cursor& c, Op op, unsigned i) {
  const OperandKind k = operandKind(op, i);
  c.skipSpace();
  Cursor at = c;
  auto bad = [&]() -> LineError {
    return LineError{at.col(), "operand " + std::to_string(i + 1) + " of `" + info(op).mnemonic + "`: expected " +
                                   operandKindDescription(k) + ", found " + Cursor(at).found()};
  };
  switch (k) {
    case OperandKind::Reg: {
      auto r = asmlex::parseReg(c.word());
      if (!r) throw bad();
      return Operand::makeReg(*r);
    }
    case OperandKind::RegOrImm:
    case OperandKind::Imm: {
      std::string_view w = c.word();
      if (k == OperandKind::RegOrImm)
        if (auto r = asmlex::parseReg(w)) return Operand::makeXReg(*r);
      auto v = asmlex::parseInt(w);
      if (!v && !w.empty() && (w[0] == '-' || w[0] == '+' || (w[0] >= '0' && w[0] <= '9')) &&
          w.find_first_not_of("+-0123456789abcdefABCDEFxX") == std::string_view::npos)
        fail(at, "operand " + std::to_string(i + 1) + " of `" + info(op).mnemonic + "`: `" + asmlex::quoteToken(w) +
                     "` does not fit in a 64-bit integer");
      if (!v) throw bad();
      return k == OperandKind::Imm ? Operand::makeImm(*v) : Operand::makeXImm(*v);
    }
    case OperandKind::Float: {
      std::string_view w = c.word();
      float f = 0;
      const char* b = w.data();
      const char* e = w.data() + w.size();
      if (!w.empty() && *b == '+') ++b;
      auto res = std::from_chars(b, e, f, std::chars_format::general);
      if (!w.empty() && res.ec == std::errc::result_out_of_range && res.ptr == e)
        fail(at, "operand " + std::to_string(i + 1) + " of `" + info(op).mnemonic + "`: `" + asmlex::quoteToken(w) +
                     "` is outside f32's range (an immediate is an f32: 0, or a magnitude from about 1.4e-45 to "
                     "3.4e38)");
      if (w.empty() || res.ec != std::errc() || res.ptr != e) throw bad();
      return Operand::makeFloat(f);
    }
    case OperandKind::Mem:
    case OperandKind::Tile:
    case OperandKind::Word:
      return memory(c, k, op, i);
    case OperandKind::Sem: {
      std::string_view w = c.word();
      if (w == "sem" && c.accept('[')) {
        c.skipSpace();
        Cursor rc = c;
        auto r = asmlex::parseReg(c.ident());
        if (!r) fail(rc, "expected a register inside `sem[...]`, found " + rc.found());
        if (!c.accept(']')) fail(c, "expected `]` after the register, found " + c.found());
        return Operand::makeSemReg(*r);
      }
      auto s = asmlex::parseSem(w);
      if (!s) throw bad();
      return Operand::makeSem(*s);
    }
    case OperandKind::Label: {
      std::string_view id = c.ident();
      if (id.empty() || asmlex::isReservedName(id)) throw bad();
      lineRefs_.push_back({p_.code.size(), i, std::string(id), lineNo_, at.col()});
      return Operand::makeLabel(-1);
    }
    case OperandKind::Param: {
      std::string_view id = c.ident();
      if (id.empty()) throw bad();
      int32_t pi = findParam(id);
      if (pi < 0) fail(at, "`" + std::string(id) + "` is not a declared parameter");
      return Operand::makeParam(pi);
    }
    case OperandKind::Dims: {
      if (!c.accept('[')) throw bad();
      Cursor rc = c;
      int64_t rows = integer(c, "a row count");
      if (!c.accept(',')) fail(c, "expected `,` between rows and columns, found " + c.found());
      Cursor cc = c;
      int64_t cols = integer(c, "a column count");
      if (!c.accept(']')) fail(c, "expected `]` after the tile dimensions, found " + c.found());
      if (rows < 1 || rows > kMaxTileDim) fail(rc, "tile rows must be in 1..." + std::to_string(kMaxTileDim));
      if (cols < 1 || cols > kMaxTileDim) fail(cc, "tile columns must be in 1..." + std::to_string(kMaxTileDim));
      return Operand::makeDims(rows, cols);
    }
  }
  throw bad();
}

Operand Assembler::memory(Cursor& c, OperandKind kind, Op op, unsigned i) {
  c.skipSpace();
  Cursor at = c;
  std::string_view id = c.ident();
  if (id.empty() || asmlex::isReservedName(id))
    fail(at, "operand " + std::to_string(i + 1) + " of `" + info(op).mnemonic + "`: expected " +
                 operandKindDescription(kind) + ", found " + Cursor(at).found());
  int32_t bi = findBuffer(id);
  if (bi < 0) fail(at, "undefined buffer `" + std::string(id) + "`");
  const Buffer& b = p_.buffers[static_cast<size_t>(bi)];
  if (kind == OperandKind::Tile && (b.space != Space::Vmem || b.dtype == DType::I64))
    fail(at, "operand " + std::to_string(i + 1) + " of `" + info(op).mnemonic + "` must be a VMEM tile of f32 or bf16; `" +
                 b.name + "` is a " + spaceName(b.space) + " buffer of " + dtypeName(b.dtype));
  if (kind == OperandKind::Word && (b.space != Space::Smem || b.dtype != DType::I64))
    fail(at, "operand " + std::to_string(i + 1) + " of `" + info(op).mnemonic + "` must be an SMEM buffer of i64; `" +
                 b.name + "` is a " + spaceName(b.space) + " buffer of " + dtypeName(b.dtype));
  uint8_t reg = kNoReg;
  int64_t off = 0;
  if (c.accept('[')) {
    c.skipSpace();
    Cursor ic = c;
    // An identifier stops at `+`/`-`, so `[r1+64]` splits without spaces.
    std::string_view w = c.ident();
    if (!w.empty()) {
      auto r = asmlex::parseReg(w);
      if (!r) fail(ic, "expected a register or byte offset inside `[...]`, found " + ic.found());
      reg = *r;
      c.skipSpace();
      char sign = c.peek();
      if (sign == '+' || sign == '-') {
        c.seek(c.pos() + 1);
        c.skipSpace();
        Cursor nc = c;
        std::string_view num = c.word();
        auto v = asmlex::parseInt(num);
        if (!v || num[0] == '-' || num[0] == '+') fail(nc, "expected a byte offset, found " + nc.found());
        if (sign == '-') {
          if (*v == INT64_MIN) fail(nc, "byte offset out of range");
          off = -*v;
        } else {
          off = *v;
        }
      }
    } else {
      auto v = asmlex::parseInt(c.word());
      if (!v) fail(ic, "expected a register or byte offset inside `[...]`, found " + ic.found());
      off = *v;
    }
    if (!c.accept(']')) fail(c, "expected `]` after the address, found " + c.found());
  }
  return Operand::makeMem(kind, bi, reg, off);
}

}  // namespace

AsmResult assemble(std::string_view text) {
  try {
    Assembler a;
    return a.run(text);
  } catch (const std::exception& e) {
    // Only allocation failure can get here; the API promises no exceptions.
    AsmResult r;
    r.errors.push_back({0, 0, std::string("assembler ran out of resources: ") + e.what()});
    return r;
  }
}

std::string formatError(std::string_view file, const AsmError& e) {
  std::string s(file);
  if (e.line) {
    s += ":" + std::to_string(e.line);
    if (e.col) s += ":" + std::to_string(e.col);
  }
  return s + ": error: " + e.message;
}

}  // namespace vx::tpu
