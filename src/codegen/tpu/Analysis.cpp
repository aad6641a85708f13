// Liveness over the machine IR's control flow, the sites each pseudo value
// may hold, and how many instances of a site in a loop must rotate.
#include <algorithm>
#include <stdexcept>

#include "codegen/tpu/Mir.h"

namespace vx::codegen::tpu {

using isa::Op;
using isa::OperandKind;

namespace {

bool definesFirst(Op op) {
  switch (op) {
    case Op::Li: case Op::Mov: case Op::LdParam: case Op::LdSmem:
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem: case Op::Min: case Op::Max:
    case Op::And: case Op::Or: case Op::Xor: case Op::Shl: case Op::Shr:
    case Op::Seq: case Op::Sne: case Op::Slt: case Op::Sle: case Op::Sgt: case Op::Sge:
    case Op::CoreId: case Op::CoreCount:
      return true;
    case Op::Nop: case Op::StSmem: case Op::Jmp: case Op::Bnz: case Op::Bz: case Op::Beq: case Op::Bne:
    case Op::Blt: case Op::Bge: case Op::Halt: case Op::DmaStart: case Op::DmaWait: case Op::MxuLatch:
    case Op::MxuMatmul: case Op::MxuPop: case Op::GridInstance: case Op::DmaStrided: case Op::MxuReset: case Op::VecAdd: case Op::VecSub: case Op::VecMul: case Op::VecMax:
    case Op::VecRelu: case Op::VecScale: case Op::VecCopy: case Op::VecZero: case Op::VecFill: case Op::VecAbs:
    case Op::VecNeg: case Op::VecExp: case Op::VecLog: case Op::VecSqrt: case Op::VecRsqrt: case Op::VecTanh:
    case Op::VecRowMax: case Op::VecRowSum: case Op::VecAddCol: case Op::VecSubCol: case Op::VecMulCol:
    case Op::VecRsubCol: case Op::VecAddRow: case Op::VecSubRow: case Op::VecMulRow: case Op::VecRsubRow:
    case Op::VecMin: case Op::VecTranspose: case Op::VecDiv: case Op::VecDivCol: case Op::VecRdivCol: case Op::VecDivRow: case Op::VecRdivRow:
    case Op::VecMaxCol: case Op::VecRmaxCol: case Op::VecMinCol: case Op::VecRminCol: case Op::VecMaxRow:
    case Op::VecRmaxRow: case Op::VecMinRow: case Op::VecRminRow:
    case Op::DbgInt: case Op::DbgUint: case Op::DbgBool: case Op::DbgFloat: case Op::DbgTile:
    case Op::Count_:
      return false;
  }
  return false;
}

bool isBranch(Op op) {
  return op == Op::Bnz || op == Op::Bz || op == Op::Beq || op == Op::Bne || op == Op::Blt || op == Op::Bge;
}

int branchLabel(const MInstr& in) {
  for (unsigned i = 0; i < in.n; ++i)
    if (in.ops[i].kind == OperandKind::Label) return static_cast<int>(in.ops[i].imm);
  return -1;
}

void set(std::vector<uint64_t>& s, int v) { s[v >> 6] |= uint64_t{1} << (v & 63); }

}  // namespace

int addVreg(Mir& m, isa::Loc loc, base::Span span) {
  m.fixedReg.push_back(-1);
  m.rotOwner.push_back(-1);
  m.rotBase.push_back(-1);
  m.vregLoc.push_back(loc);
  m.vregSpan.push_back(span);
  return m.numVregs++;
}

std::vector<int> regDefs(const MInstr& in) {
  if (in.marker || in.n == 0 || !definesFirst(in.op) || in.ops[0].vreg < 0) return {};
  return {in.ops[0].vreg};
}

std::vector<int> regUses(const MInstr& in) {
  std::vector<int> out;
  if (in.marker) return out;
  for (unsigned i = definesFirst(in.op) ? 1 : 0; i < in.n; ++i)
    if (in.ops[i].vreg >= 0) out.push_back(in.ops[i].vreg);
  return out;
}

Liveness liveness(const Mir& m) {
  Liveness L;
  size_t n = m.code.size();
  int vars = m.numVregs + m.numPseudos;
  L.words = static_cast<size_t>(vars + 63) / 64;
  L.labelAt.assign(static_cast<size_t>(m.numLabels), -1);
  for (size_t i = 0; i < n; ++i)
    if (m.code[i].marker && m.code[i].label >= 0) L.labelAt[m.code[i].label] = static_cast<int>(i);
  std::vector<std::vector<int>> succ(n);
  std::vector<std::vector<uint64_t>> use(n, std::vector<uint64_t>(L.words)), def = use;
  for (size_t i = 0; i < n; ++i) {
    const MInstr& in = m.code[i];
    bool falls = in.marker || (in.op != Op::Jmp && in.op != Op::Halt);
    if (falls && i + 1 < n) succ[i].push_back(static_cast<int>(i + 1));
    if (!in.marker && (in.op == Op::Jmp || isBranch(in.op))) {
      int t = L.labelAt.at(static_cast<size_t>(branchLabel(in)));
      if (t < 0) throw std::logic_error("tpu lowering: a branch to an unbound label");
      succ[i].push_back(t);
    }
    for (int v : regUses(in)) set(use[i], v);
    for (int p : in.puses) set(use[i], m.numVregs + p);
    for (int v : regDefs(in)) set(def[i], v);
    for (int p : in.pdefs) set(def[i], m.numVregs + p);
  }
  L.in.assign(n, std::vector<uint64_t>(L.words));
  L.out = L.in;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = n; k-- > 0;) {
      std::vector<uint64_t>& out = L.out[k];
      for (int s : succ[k])
        for (size_t w = 0; w < L.words; ++w) out[w] |= L.in[s][w];
      for (size_t w = 0; w < L.words; ++w) {
        uint64_t v = use[k][w] | (out[w] & ~def[k][w]);
        if (v != L.in[k][w]) {
          L.in[k][w] = v;
          changed = true;
        }
      }
    }
  }
  return L;
}

std::vector<std::vector<int>> siteSets(const Mir& m) {
  size_t np = static_cast<size_t>(m.numPseudos), ns = m.sites.size();
  size_t words = (ns + 63) / 64;
  std::vector<std::vector<uint64_t>> mem(np, std::vector<uint64_t>(words)), sem = mem;
  for (size_t s = 0; s < ns; ++s) {
    const Site& site = m.sites[s];
    if (site.root < 0) continue;
    set(site.kind == Site::Kind::Memory ? mem[site.root] : sem[site.root], static_cast<int>(s));
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const Edge& e : m.edges) {
      for (size_t w = 0; w < words; ++w) {
        uint64_t mv = mem[e.to][w] | mem[e.from][w];
        uint64_t sv = e.kind == Edge::Kind::Copy ? sem[e.to][w] | sem[e.from][w] : sem[e.to][w];
        if (mv != mem[e.to][w] || sv != sem[e.to][w]) changed = true;
        mem[e.to][w] = mv;
        sem[e.to][w] = sv;
      }
    }
  }
  std::vector<std::vector<int>> out(np);
  for (size_t p = 0; p < np; ++p)
    for (size_t s = 0; s < ns; ++s)
      if (((mem[p][s >> 6] | sem[p][s >> 6]) >> (s & 63)) & 1) out[p].push_back(static_cast<int>(s));
  return out;
}

namespace {

bool encloses(const Mir& m, int outer, int inner) {
  for (int l = m.loops[inner].parent; l >= 0; l = m.loops[l].parent)
    if (l == outer) return true;
  return false;
}

// The most trips of its loop an instance of `s` stays referenced for: the
// longest path from its root, counting yields into the next trip of that
// loop. -1 when unbounded (a cycle through such a yield) or when a value of
// it is carried into the next trip of an enclosing loop, which restarts the
// rotation.
int carryDistance(const Mir& m, int s) {
  const Site& site = m.sites[s];
  size_t np = static_cast<size_t>(m.numPseudos);
  std::vector<int> dist(np, -1);
  dist[site.root] = 0;
  bool memory = site.kind == Site::Kind::Memory;
  for (size_t round = 0; round <= np; ++round) {
    bool changed = false;
    for (const Edge& e : m.edges) {
      if (dist[e.from] < 0 || (!memory && e.kind != Edge::Kind::Copy)) continue;
      if (e.backLoop >= 0 && encloses(m, e.backLoop, site.loop)) return -1;
      int d = dist[e.from] + (e.backLoop == site.loop ? 1 : 0);
      if (d > dist[e.to]) {
        dist[e.to] = d;
        changed = true;
      }
    }
    if (!changed) return *std::max_element(dist.begin(), dist.end());
  }
  return -1;
}

// How many instances of `s` can be live at once when they are numbered by
// how many the site has made (Site::counted): an abstract run over the
// control flow in which each pseudo value holds the set of ages (instances
// made since) of the instances of `s` it may hold. Where the site makes
// one, every live holder ages by one; copies and the edges made at a
// value's definition carry ages along; a merge unions them. The answer is
// one more than the oldest age live where an instance is made, or -1 when
// ages grow past kMaxInstances (no bound).
constexpr int kMaxInstances = 16;

int instanceBound(const Mir& m, const Liveness& live, int s) {
  const Site& site = m.sites[s];
  const bool memory = site.kind == Site::Kind::Memory;
  const size_t n = m.code.size(), np = static_cast<size_t>(m.numPseudos);
  // Edges into each pseudo: those made by the copy at `at`, and the others
  // (a pin, a payload) wherever the pseudo is defined.
  std::vector<std::vector<const Edge*>> into(np);
  for (const Edge& e : m.edges)
    if (memory || e.kind == Edge::Kind::Copy) into[static_cast<size_t>(e.to)].push_back(&e);
  std::vector<std::vector<int>> succ(n);
  for (size_t i = 0; i < n; ++i) {
    const MInstr& in = m.code[i];
    bool falls = in.marker || (in.op != Op::Jmp && in.op != Op::Halt);
    if (falls && i + 1 < n) succ[i].push_back(static_cast<int>(i + 1));
    if (!in.marker && (in.op == Op::Jmp || isBranch(in.op)))
      succ[i].push_back(live.labelAt.at(static_cast<size_t>(branchLabel(in))));
  }
  using Ages = uint32_t;  // bit a: an instance made a instances ago
  const Ages overflow = ~Ages{0} << kMaxInstances;
  std::vector<std::vector<Ages>> in(n, std::vector<Ages>(np, 0));
  std::vector<bool> queued(n, true);
  std::vector<int> work;
  for (size_t i = n; i-- > 0;) work.push_back(static_cast<int>(i));
  int oldest = 0;
  std::vector<Ages> state;
  while (!work.empty()) {
    int i = work.back();
    work.pop_back();
    queued[static_cast<size_t>(i)] = false;
    state = in[static_cast<size_t>(i)];
    const MInstr& ins = m.code[static_cast<size_t>(i)];
    if (i == site.defInstr) {
      for (size_t p = 0; p < np; ++p) {
        if (!state[p]) continue;
        if (!live.test(live.in[static_cast<size_t>(i)], m.numVregs + static_cast<int>(p))) {
          state[p] = 0;  // dead: its slot may be reused
          continue;
        }
        state[p] <<= 1;
        if (state[p] & overflow) return -1;
        for (int a = kMaxInstances - 1; a > oldest; --a)
          if ((state[p] >> a) & 1) oldest = a;
      }
    }
    if (!ins.pdefs.empty()) {
      const std::vector<Ages> before = state;
      for (int d : ins.pdefs) {
        Ages a = 0;
        for (const Edge* e : into[static_cast<size_t>(d)])
          if (e->at < 0 || e->at == i) a |= before[static_cast<size_t>(e->from)];
        state[static_cast<size_t>(d)] = a;
      }
      if (i == site.defInstr && site.root >= 0) state[static_cast<size_t>(site.root)] |= 1;
    } else if (i == site.defInstr && site.root >= 0) {
      state[static_cast<size_t>(site.root)] |= 1;
    }
    // A waited token's copy is over: the value (and any copy of it a branch
    // or trip carries on, which linearity forbids waiting again) holds no
    // live instance; its payload lives on in the wait's result.
    for (int p : ins.pkills) state[static_cast<size_t>(p)] = 0;
    for (int t : succ[static_cast<size_t>(i)]) {
      std::vector<Ages>& dst = in[static_cast<size_t>(t)];
      bool grew = false;
      for (size_t p = 0; p < np; ++p)
        if ((dst[p] | state[p]) != dst[p]) {
          dst[p] |= state[p];
          grew = true;
        }
      if (grew && !queued[static_cast<size_t>(t)]) {
        queued[static_cast<size_t>(t)] = true;
        work.push_back(t);
      }
    }
  }
  return oldest + 1;
}

}  // namespace

int chooseRotations(Mir& m, const Liveness& live, const std::vector<std::vector<int>>& sites) {
  for (size_t s = 0; s < m.sites.size(); ++s) {
    Site& site = m.sites[s];
    site.k = 1;
    if (site.loop < 0 || site.defInstr < 0 || site.root < 0) continue;
    // Where an instance is born, is an older one still referenced?
    bool older = false;
    for (int p = 0; p < m.numPseudos && !older; ++p) {
      if (!live.test(live.in[site.defInstr], m.numVregs + p)) continue;
      older = std::find(sites[p].begin(), sites[p].end(), static_cast<int>(s)) != sites[p].end();
    }
    if (!older) continue;
    // d = 0: what looked live is another site's instance (the sets are
    // conservative at merges); one instance is enough.
    int d = carryDistance(m, static_cast<int>(s));
    if (d >= 0) {
      site.k = d + 1;
      continue;
    }
    // No bound in trips (a copy kept across trips that skip its refill, or
    // made on some trips only): count the site's instances instead.
    int k = instanceBound(m, live, static_cast<int>(s));
    if (k < 0) return static_cast<int>(s);
    site.k = k;
    site.counted = true;
  }
  return -1;
}

void dropUnusedRotation(Mir& m) {
  std::vector<bool> rotates(m.loops.size(), false);
  for (const Site& s : m.sites)
    if (s.k > 1 && !s.counted) rotates[s.loop] = true;
  // A counted site's counter: zero at the program's start, and at each
  // instance `slot = counter % k; counter += 1` before the slot is used.
  std::vector<int> counter(m.sites.size(), -1);
  for (size_t s = 0; s < m.sites.size(); ++s)
    if (m.sites[s].counted && m.sites[s].k > 1) counter[s] = addVreg(m, m.sites[s].loc, m.sites[s].span);
  // One slot register per loop and rotation count, computed at the head.
  std::vector<int> rename(static_cast<size_t>(m.numVregs), -1);
  std::vector<std::vector<std::pair<int, int>>> slots(m.loops.size());  // (k, vreg)
  for (const Site& s : m.sites) {
    if (s.k <= 1 || s.counted) continue;
    auto& list = slots[s.loop];
    auto it = std::find_if(list.begin(), list.end(), [&](auto& p) { return p.first == s.k; });
    if (it == list.end()) list.push_back({s.k, s.slotVreg});
    else rename[s.slotVreg] = it->second;
  }
  std::vector<MInstr> code;
  auto scalar = [](Op op, std::initializer_list<MOp> ops, isa::Loc loc) {
    MInstr r;
    r.op = op;
    r.loc = loc;
    for (const MOp& o : ops) r.ops[r.n++] = o;
    return r;
  };
  auto reg = [](int v) { return MOp{OperandKind::Reg, v}; };
  auto imm = [](int64_t v) {
    MOp o;
    o.kind = OperandKind::RegOrImm;
    o.imm = v;
    return o;
  };
  for (size_t s = 0; s < m.sites.size(); ++s)
    if (counter[s] >= 0) {
      MOp zero;
      zero.kind = OperandKind::Imm;
      code.push_back(scalar(Op::Li, {reg(counter[s]), zero}, m.sites[s].loc));
    }
  std::vector<bool> counting(m.sites.size(), false);
  for (MInstr& in : m.code) {
    if (!in.marker && in.rotSite >= 0 && counter[static_cast<size_t>(in.rotSite)] >= 0 &&
        !counting[static_cast<size_t>(in.rotSite)]) {
      // The site's first rotation instruction: this instance's slot.
      const Site& site = m.sites[static_cast<size_t>(in.rotSite)];
      int c = counter[static_cast<size_t>(in.rotSite)];
      code.push_back(scalar(Op::Rem, {reg(site.slotVreg), reg(c), imm(site.k)}, in.loc));
      code.push_back(scalar(Op::Add, {reg(c), reg(c), imm(1)}, in.loc));
      counting[static_cast<size_t>(in.rotSite)] = true;
    }
    if (in.marker && in.hubLoop >= 0) {
      const Loop& loop = m.loops[in.hubLoop];
      for (auto [k, v] : slots[in.hubLoop]) {
        MInstr r;
        r.op = Op::Rem;
        r.n = 3;
        r.loc = in.loc;
        r.ops[0] = MOp{OperandKind::Reg, v};
        r.ops[1] = MOp{OperandKind::Reg, loop.slotBase};
        r.ops[2] = MOp{};
        r.ops[2].kind = OperandKind::RegOrImm;
        r.ops[2].imm = k;
        code.push_back(r);
      }
    }
    for (unsigned i = 0; i < in.n; ++i)
      if (in.ops[i].vreg >= 0 && rename[in.ops[i].vreg] >= 0) in.ops[i].vreg = rename[in.ops[i].vreg];
    code.push_back(std::move(in));
  }
  m.code = std::move(code);
  for (size_t l = 0; l < m.loops.size(); ++l)
    if (m.loops[l].slotBase != m.loops[l].tripVreg) rotates[l] = false;  // the trip counter is unused
  auto constant = [&](int v) { return v >= 0 && m.rotOwner[v] >= 0 && m.sites[m.rotOwner[v]].k == 1; };
  for (MInstr& in : m.code) {
    if (in.marker) continue;
    bool drop = (in.tripLoop >= 0 && !rotates[in.tripLoop]) || (in.rotSite >= 0 && m.sites[in.rotSite].k == 1);
    for (int d : regDefs(in)) drop = drop || constant(d);
    if (drop) {
      in.marker = true;
      continue;
    }
    // A rotation register of a site that does not rotate is a constant:
    // 0 for offsets, the first semaphore for semaphore numbers.
    if (in.op == Op::Add && in.ops[1].kind == OperandKind::Reg && constant(in.ops[1].vreg)) {
      int base = m.rotBase[in.ops[1].vreg];
      MOp b = in.ops[2];
      if (b.vreg >= 0) {
        in.ops[1] = MOp{OperandKind::Reg, b.vreg};
        in.ops[2] = MOp{};
        in.ops[2].kind = OperandKind::RegOrImm;
        in.ops[2].site = base;
      } else {
        if (base >= 0 && b.site >= 0) throw std::logic_error("tpu lowering: two site bases in one immediate");
        in.op = Op::Li;
        in.n = 2;
        in.ops[1] = MOp{};
        in.ops[1].kind = OperandKind::Imm;
        in.ops[1].imm = b.imm;
        in.ops[1].site = base >= 0 ? base : b.site;
      }
      continue;
    }
    for (unsigned i = 0; i < in.n; ++i) {
      MOp& o = in.ops[i];
      if (!constant(o.vreg)) continue;
      int base = m.rotBase[o.vreg];
      if (o.kind == OperandKind::Reg) throw std::logic_error("tpu lowering: a rotation register where a register is needed");
      o.vreg = -1;
      if (base >= 0) {
        if (o.site >= 0 && o.kind != OperandKind::Sem) throw std::logic_error("tpu lowering: two site bases in one operand");
        o.site = base;
        o.imm = o.kind == OperandKind::Sem ? 0 : o.imm;
      }
    }
  }
}

}  // namespace vx::codegen::tpu
