// Register allocation (greedy colouring of the interference graph over 32
// registers), placement of memory sites in their arenas and of semaphore
// sites in sem0..sem31 (first fit among the sites live at the same time),
// and the final Program.
#include <algorithm>
#include <map>
#include <stdexcept>

#include "codegen/tpu/Mir.h"
#include "tpu/Asm.h"

namespace vx::codegen::tpu {

using isa::Op;
using isa::OperandKind;

namespace {

constexpr int64_t kAlign = 128;  // bytes; any tile needs only its element size

bool test(const std::vector<uint64_t>& s, size_t v) { return (s[v >> 6] >> (v & 63)) & 1; }

AllocError colourRegisters(const Mir& m, const Liveness& live, std::vector<int>& phys) {
  size_t nv = static_cast<size_t>(m.numVregs);
  std::vector<std::vector<int>> adj(nv);
  std::vector<int> first(nv, -1);
  for (size_t i = 0; i < m.code.size(); ++i) {
    const MInstr& in = m.code[i];
    for (int v : regUses(in))
      if (first[v] < 0) first[v] = static_cast<int>(i);
    for (int d : regDefs(in)) {
      if (first[d] < 0) first[d] = static_cast<int>(i);
      for (size_t v = 0; v < nv; ++v)
        if (static_cast<int>(v) != d && test(live.out[i], v)) {
          adj[d].push_back(static_cast<int>(v));
          adj[v].push_back(d);
        }
    }
  }
  std::vector<int> order;
  for (size_t v = 0; v < nv; ++v)
    if (first[v] >= 0) order.push_back(static_cast<int>(v));
  // Fixed registers first, then in order of appearance.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    bool fa = m.fixedReg[a] >= 0, fb = m.fixedReg[b] >= 0;
    if (fa != fb) return fa;
    return first[a] < first[b];
  });
  phys.assign(nv, -1);
  for (int v : order) {
    uint64_t taken = 0;
    for (int u : adj[v])
      if (phys[u] >= 0) taken |= uint64_t{1} << phys[u];
    int want = m.fixedReg[v];
    if (want >= 0) {
      if ((taken >> want) & 1) throw std::logic_error("tpu lowering: a fixed register is live elsewhere");
      phys[v] = want;
      continue;
    }
    for (int r = 0; r < static_cast<int>(isa::kNumRegs); ++r)
      if (!((taken >> r) & 1)) {
        phys[v] = r;
        break;
      }
    if (phys[v] < 0) {
      AllocError e;
      e.kind = AllocError::Kind::Registers;
      e.vreg = v;
      e.loc = m.vregLoc[v];
      e.span = m.vregSpan[v];
      return e;
    }
  }
  return {};
}

// Per site: the instructions at which some value holding it is live.
std::vector<std::vector<uint64_t>> siteLiveness(const Mir& m, const Liveness& live,
                                                const std::vector<std::vector<int>>& sites) {
  size_t n = m.code.size(), words = (n + 63) / 64;
  std::vector<std::vector<uint64_t>> at(m.sites.size(), std::vector<uint64_t>(words));
  for (size_t i = 0; i < n; ++i) {
    auto mark = [&](int p) {
      for (int s : sites[p]) at[s][i >> 6] |= uint64_t{1} << (i & 63);
    };
    for (int p = 0; p < m.numPseudos; ++p)
      if (test(live.in[i], static_cast<size_t>(m.numVregs + p))) mark(p);
    for (int p : m.code[i].pdefs) mark(p);
  }
  return at;
}

bool overlap(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  for (size_t w = 0; w < a.size(); ++w)
    if (a[w] & b[w]) return true;
  return false;
}

// First fit of [base, base + size) among the placed sites that are live at
// the same time as `s`. Returns the base.
int64_t firstFit(const Mir& m, const std::vector<std::vector<uint64_t>>& at, const std::vector<int>& placed, int s,
                 int64_t size, int64_t align) {
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (int t : placed) {
    if (!overlap(at[s], at[t])) continue;
    const Site& o = m.sites[t];
    int64_t osize = o.kind == Site::Kind::Memory ? (o.bytes * o.k + align - 1) / align * align : o.k;
    busy.push_back({o.base, o.base + osize});
  }
  std::sort(busy.begin(), busy.end());
  int64_t base = 0;
  for (auto [lo, hi] : busy) {
    if (base + size <= lo) break;
    base = std::max(base, hi);
  }
  return base;
}

}  // namespace

bool spillOne(Mir& m, const Liveness& live, int failing) {
  size_t nv = static_cast<size_t>(m.numVregs), n = m.code.size();
  m.noSpill.resize(nv, false);
  // Candidates: the failing value and every value live where it is defined.
  std::vector<int> length(nv, 0);
  std::vector<bool> candidate(nv, false);
  for (size_t i = 0; i < n; ++i) {
    for (size_t v = 0; v < nv; ++v)
      if (test(live.in[i], v)) ++length[v];
    for (int d : regDefs(m.code[i]))
      if (d == failing)
        for (size_t v = 0; v < nv; ++v)
          if (test(live.out[i], v)) candidate[v] = true;
  }
  candidate[failing] = true;
  int pick = -1;
  for (size_t v = 0; v < nv; ++v)
    if (candidate[v] && m.fixedReg[v] < 0 && !m.noSpill[v] && (pick < 0 || length[v] > length[pick]))
      pick = static_cast<int>(v);
  if (pick < 0) return false;
  if (m.spillBuffer < 0) {
    MBuffer b;
    b.name = "spill";
    for (const MBuffer& o : m.buffers)
      if (o.name == b.name) b.name += "_";
    b.space = isa::Space::Smem;
    b.dtype = isa::DType::I64;
    m.spillBuffer = static_cast<int32_t>(m.buffers.size());
    m.buffers.push_back(b);
  }
  MOp word;
  word.kind = OperandKind::Word;
  word.buffer = m.spillBuffer;
  word.imm = 8 * m.numSpills++;
  m.buffers[m.spillBuffer].shape = {isa::Dim{m.numSpills, -1}};
  auto temp = [&] {
    m.fixedReg.push_back(-1);
    m.rotOwner.push_back(-1);
    m.rotBase.push_back(-1);
    m.vregLoc.push_back(m.vregLoc[pick]);
    m.vregSpan.push_back(m.vregSpan[pick]);
    m.noSpill.push_back(true);
    return m.numVregs++;
  };
  std::vector<MInstr> code;
  for (MInstr& in : m.code) {
    bool defines = !regDefs(in).empty() && regDefs(in)[0] == pick;
    std::vector<int> uses = regUses(in);
    if (std::find(uses.begin(), uses.end(), pick) != uses.end()) {
      int t = temp();
      MInstr ld;
      ld.op = Op::LdSmem;
      ld.loc = in.loc;
      ld.n = 2;
      ld.ops[0] = MOp{OperandKind::Reg, t};
      ld.ops[1] = word;
      code.push_back(ld);
      for (unsigned i = defines ? 1 : 0; i < in.n; ++i)
        if (in.ops[i].vreg == pick) in.ops[i].vreg = t;
    }
    if (!defines) {
      code.push_back(std::move(in));
      continue;
    }
    int t = temp();
    in.ops[0].vreg = t;
    MInstr st;
    st.op = Op::StSmem;
    st.loc = in.loc;
    st.n = 2;
    st.ops[0] = word;
    st.ops[1] = MOp{OperandKind::RegOrImm, t};
    code.push_back(std::move(in));
    code.push_back(st);
  }
  m.code = std::move(code);
  return true;
}

AllocError allocate(Mir& m, const Liveness& live, const std::vector<std::vector<int>>& sites, uint64_t vmemBytes,
                    uint64_t smemBytes, isa::Program& out) {
  std::vector<int> phys;
  if (AllocError e = colourRegisters(m, live, phys); e.kind != AllocError::Kind::None) return e;

  std::vector<std::vector<uint64_t>> at = siteLiveness(m, live, sites);
  std::vector<int> order(m.sites.size());
  for (size_t s = 0; s < order.size(); ++s) order[s] = static_cast<int>(s);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return m.sites[a].defInstr < m.sites[b].defInstr; });
  std::map<int32_t, std::vector<int>> placedIn;  // arena -> its sites
  std::map<int32_t, int64_t> peak;
  std::vector<int> sems;
  for (int s : order) {
    Site& site = m.sites[s];
    if (site.kind == Site::Kind::Semaphore) {
      site.base = firstFit(m, at, sems, s, site.k, 1);
      if (site.base + site.k > static_cast<int64_t>(isa::kNumSems)) {
        AllocError e;
        e.kind = AllocError::Kind::Semaphores;
        e.loc = site.loc;
        e.span = site.span;
        e.detail = site.what;
        return e;
      }
      sems.push_back(s);
      continue;
    }
    int64_t size = (site.bytes * site.k + kAlign - 1) / kAlign * kAlign;
    site.base = firstFit(m, at, placedIn[site.buffer], s, size, kAlign);
    placedIn[site.buffer].push_back(s);
    peak[site.buffer] = std::max(peak[site.buffer], site.base + size);
  }
  // Capacity: VMEM arenas together, SMEM arenas with the SMEM words.
  for (isa::Space space : {isa::Space::Vmem, isa::Space::Smem}) {
    int64_t total = 0;
    int worst = -1;
    for (auto& [buf, p] : peak) {
      if (m.buffers[buf].space != space) continue;
      total += p;
      for (int s : placedIn[buf])
        if (worst < 0 || m.sites[s].base + m.sites[s].bytes * m.sites[s].k >
                             m.sites[worst].base + m.sites[worst].bytes * m.sites[worst].k)
          worst = s;
    }
    if (space == isa::Space::Smem)
      for (const MBuffer& b : m.buffers)
        if (b.space == isa::Space::Smem && !b.arena) total += 8;
    int64_t cap = static_cast<int64_t>(space == isa::Space::Vmem ? vmemBytes : smemBytes);
    if (total > cap && worst >= 0) {
      AllocError e;
      e.kind = AllocError::Kind::Memory;
      e.loc = m.sites[worst].loc;
      e.span = m.sites[worst].span;
      e.detail = m.sites[worst].what;
      e.bytes = total;
      e.capacity = cap;
      e.space = space;
      return e;
    }
  }

  // ---- the Program ----
  std::vector<int32_t> bufIndex(m.buffers.size(), -1);
  auto declare = [&](size_t b) {
    const MBuffer& mb = m.buffers[b];
    isa::Buffer pb;
    pb.name = mb.name;
    pb.space = mb.space;
    pb.dtype = mb.dtype;
    pb.role = mb.role;
    pb.shape = mb.shape;
    if (mb.arena) {
      int64_t eb = isa::dtypeBytes(mb.dtype);
      pb.shape = {isa::Dim{std::max<int64_t>(peak[static_cast<int32_t>(b)], eb) / eb, -1}};
    }
    bufIndex[b] = static_cast<int32_t>(out.buffers.size());
    out.buffers.push_back(pb);
  };
  for (size_t b = 0; b < m.buffers.size(); ++b)
    if (m.buffers[b].space == isa::Space::Hbm) declare(b);
  for (size_t b = 0; b < m.buffers.size(); ++b)
    if (m.buffers[b].space != isa::Space::Hbm) declare(b);
  out.params = m.params;
  out.dbgs = m.dbgs;

  auto siteBase = [&](int s) -> int64_t { return s >= 0 ? m.sites[s].base : 0; };
  std::vector<int> labelTarget(static_cast<size_t>(m.numLabels), -1);
  std::vector<int> pending;
  for (const MInstr& in : m.code) {
    if (in.marker) {
      if (in.label >= 0) pending.push_back(in.label);
      continue;
    }
    // A move whose ends got one register is nothing.
    if (in.op == Op::Mov && in.ops[1].vreg >= 0 && phys.at(in.ops[0].vreg) == phys.at(in.ops[1].vreg)) continue;
    for (int l : pending) labelTarget[l] = static_cast<int>(out.code.size());
    pending.clear();
    isa::Instr pi;
    pi.op = in.op;
    pi.loc = in.loc;
    pi.numOperands = in.n;
    for (unsigned i = 0; i < in.n; ++i) {
      const MOp& o = in.ops[i];
      uint8_t reg = o.vreg >= 0 ? static_cast<uint8_t>(phys.at(o.vreg)) : isa::kNoReg;
      int64_t imm = o.imm + siteBase(o.site);
      isa::Operand& q = pi.operands[i];
      switch (o.kind) {
        case OperandKind::Reg: q = isa::Operand::makeReg(reg); break;
        case OperandKind::RegOrImm: q = o.vreg >= 0 ? isa::Operand::makeXReg(reg) : isa::Operand::makeXImm(imm); break;
        case OperandKind::Imm: q = isa::Operand::makeImm(imm); break;
        case OperandKind::Float: q = isa::Operand::makeFloat(o.f); break;
        case OperandKind::Mem:
        case OperandKind::Tile:
        case OperandKind::Word: q = isa::Operand::makeMem(o.kind, bufIndex.at(o.buffer), reg, imm); break;
        case OperandKind::Sem:
          q = o.vreg >= 0 ? isa::Operand::makeSemReg(reg) : isa::Operand::makeSem(static_cast<unsigned>(imm));
          break;
        case OperandKind::Label: q = isa::Operand::makeLabel(static_cast<int32_t>(o.imm)); break;
        case OperandKind::Param: q = isa::Operand::makeParam(static_cast<int32_t>(o.imm)); break;
        case OperandKind::Dims: q = isa::Operand::makeDims(o.imm, o.cols); break;
      }
    }
    out.code.push_back(pi);
  }
  if (!pending.empty()) throw std::logic_error("tpu lowering: a label after the last instruction");
  // Labels in target order (the assembler numbers them so), named l0, l1, ...
  std::vector<int> used;
  for (const isa::Instr& in : out.code)
    for (unsigned i = 0; i < in.numOperands; ++i)
      if (in.operands[i].kind == OperandKind::Label) used.push_back(in.operands[i].index);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  std::stable_sort(used.begin(), used.end(), [&](int a, int b) { return labelTarget[a] < labelTarget[b]; });
  std::vector<int32_t> labelIndex(static_cast<size_t>(m.numLabels), -1);
  for (int l : used) {
    if (out.labels.empty() || out.labels.back().target != static_cast<uint32_t>(labelTarget[l]))
      out.labels.push_back({"l" + std::to_string(out.labels.size()), static_cast<uint32_t>(labelTarget[l])});
    labelIndex[l] = static_cast<int32_t>(out.labels.size() - 1);  // one label per target
  }
  for (isa::Instr& in : out.code)
    for (unsigned i = 0; i < in.numOperands; ++i)
      if (in.operands[i].kind == OperandKind::Label) in.operands[i].index = labelIndex[in.operands[i].index];
  std::vector<isa::AsmError> errors = isa::validate(out);
  if (!errors.empty()) throw std::logic_error("tpu lowering produced an invalid program: " + errors[0].message);
  return {};
}

}  // namespace vx::codegen::tpu
