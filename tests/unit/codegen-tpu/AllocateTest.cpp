// The tpu target's allocator and rotation analysis (src/codegen/tpu/Mir.h)
// on machine IR built by hand: sharing by liveness, rotation counts, and the
// limits that become diagnostics.
#include <doctest/doctest.h>

#include "codegen/tpu/Mir.h"
#include "tpu/Asm.h"

namespace vx::codegen::tpu {
namespace {

using isa::Op;
using isa::OperandKind;

struct Builder {
  Mir m;
  int32_t arena;
  Builder() {
    MBuffer a;
    a.name = "vmem";
    a.space = isa::Space::Vmem;
    a.arena = true;
    m.buffers.push_back(a);
    arena = 0;
  }
  int vreg() { return addVreg(m); }
  int pseudo() { return m.numPseudos++; }
  int site(Site::Kind k, int64_t bytes, int root, int loop = -1) {
    Site s;
    s.kind = k;
    s.buffer = k == Site::Kind::Memory ? arena : -1;
    s.bytes = bytes;
    s.root = root;
    s.loop = loop;
    s.defInstr = static_cast<int>(m.code.size());  // born by the next instruction
    m.sites.push_back(s);
    return static_cast<int>(m.sites.size() - 1);
  }
  static MOp tile(int site) {
    MOp o;
    o.kind = OperandKind::Tile;
    o.buffer = 0;
    o.site = site;
    return o;
  }
  static MOp reg(int v, OperandKind k = OperandKind::Reg) {
    MOp o;
    o.kind = k;
    o.vreg = v;
    return o;
  }
  static MOp imm(int64_t c, OperandKind k = OperandKind::RegOrImm) {
    MOp o;
    o.kind = k;
    o.imm = c;
    return o;
  }
  MInstr& add(Op op, std::initializer_list<MOp> ops, std::vector<int> pdefs = {}, std::vector<int> puses = {}) {
    MInstr in;
    in.op = op;
    for (const MOp& o : ops) in.ops[in.n++] = o;
    in.pdefs = std::move(pdefs);
    in.puses = std::move(puses);
    m.code.push_back(in);
    return m.code.back();
  }
  void label(int l) {
    MInstr in;
    in.marker = true;
    in.label = l;
    m.code.push_back(in);
    m.numLabels = std::max(m.numLabels, l + 1);
  }
  // A copy of loop 0 started with its rotating semaphore (`semNext`, base +
  // slot), born as pseudo `born`; returns its site.
  int rotatingCopy(int born, MOp hbm, int& semNext) {
    int slot = vreg();
    int loopSite = site(Site::Kind::Semaphore, 1, born, 0);
    m.sites[loopSite].slotVreg = slot;
    semNext = vreg();
    m.rotOwner[slot] = m.rotOwner[semNext] = loopSite;
    m.rotBase[semNext] = loopSite;
    m.sites[loopSite].defInstr = static_cast<int>(m.code.size()) + 1;
    MOp base = imm(0);
    base.site = loopSite;
    add(Op::Add, {reg(semNext), reg(slot), base}).rotSite = loopSite;
    add(Op::DmaStart, {hbm, hbm, imm(16), reg(semNext, OperandKind::Sem)}, {born});
    return loopSite;
  }
  AllocError run(isa::Program& p, uint64_t vmem = 1 << 20) {
    Liveness live = liveness(m);
    std::vector<std::vector<int>> sets = siteSets(m);
    REQUIRE(chooseRotations(m, live, sets) == -1);
    dropUnusedRotation(m);
    live = liveness(m);
    return allocate(m, live, sets, vmem, 1 << 20, p);
  }
};

MOp dims(int64_t r, int64_t c) {
  MOp o;
  o.kind = OperandKind::Dims;
  o.imm = r;
  o.cols = c;
  return o;
}

TEST_CASE("buffers whose live ranges do not overlap share memory") {
  Builder b;
  int pa = b.pseudo(), pb = b.pseudo();
  int a = b.site(Site::Kind::Memory, 4096, pa);
  b.add(Op::VecZero, {Builder::tile(a), dims(1, 1024)}, {pa});
  b.add(Op::VecRelu, {Builder::tile(a), Builder::tile(a), dims(1, 1024)}, {}, {pa});
  int c = b.site(Site::Kind::Memory, 4096, pb);
  b.add(Op::VecZero, {Builder::tile(c), dims(1, 1024)}, {pb});
  b.add(Op::VecRelu, {Builder::tile(c), Builder::tile(c), dims(1, 1024)}, {}, {pb});
  b.add(Op::Halt, {});
  isa::Program p;
  CHECK(b.run(p).kind == AllocError::Kind::None);
  CHECK(b.m.sites[a].base == b.m.sites[c].base);
  REQUIRE(p.buffers.size() == 1);
  CHECK(p.buffers[0].shape[0].value == 1024);  // one 4 KiB buffer's worth of floats
}

TEST_CASE("buffers live at the same time get disjoint memory") {
  Builder b;
  int pa = b.pseudo(), pb = b.pseudo();
  int a = b.site(Site::Kind::Memory, 4096, pa);
  b.add(Op::VecZero, {Builder::tile(a), dims(1, 1024)}, {pa});
  int c = b.site(Site::Kind::Memory, 4096, pb);
  b.add(Op::VecZero, {Builder::tile(c), dims(1, 1024)}, {pb});
  b.add(Op::VecAdd, {Builder::tile(c), Builder::tile(a), Builder::tile(c), dims(1, 1024)}, {}, {pa, pb});
  b.add(Op::Halt, {});
  isa::Program p;
  CHECK(b.run(p).kind == AllocError::Kind::None);
  CHECK(b.m.sites[a].base != b.m.sites[c].base);
  CHECK(p.buffers[0].shape[0].value == 2048);
}

// for (t = 0; t < 4; ++t) { next = copy(); wait(inflight); inflight = next; }
// `next` is born while the previous trip's copy is still referenced: two
// instances rotate, on semaphores base and base + 1.
TEST_CASE("a copy carried to the next trip rotates through two slots") {
  Builder b;
  int pInit = b.pseudo(), pNext = b.pseudo(), pArg = b.pseudo();
  int trip = b.vreg(), sem = b.vreg();
  b.m.loops.push_back({-1, trip, trip});
  int first = b.site(Site::Kind::Semaphore, 1, pInit);
  MOp s0;
  s0.kind = OperandKind::Sem;
  s0.site = first;
  MOp hbm;
  hbm.kind = OperandKind::Mem;
  hbm.buffer = 1;
  MBuffer in;
  in.name = "in";
  in.shape = {isa::Dim{1024, -1}};
  in.role = isa::Role::Input;
  b.m.buffers.push_back(in);
  MOp dst;
  dst.kind = OperandKind::Mem;
  dst.buffer = 1;
  dst.imm = 2048;
  b.add(Op::DmaStart, {hbm, dst, Builder::imm(16), s0}, {pInit});
  b.add(Op::Li, {Builder::reg(sem), Builder::imm(0, OperandKind::Imm)});
  b.add(Op::Li, {Builder::reg(trip), Builder::imm(0, OperandKind::Imm)});
  b.m.edges.push_back({pInit, pArg, Edge::Kind::Copy, -1});
  b.add(Op::Nop, {}, {pArg}, {pInit});
  b.label(0);
  b.m.code.back().hubLoop = 0;
  int semNext = -1;
  int loopSite = b.rotatingCopy(pNext, hbm, semNext);
  b.add(Op::DmaWait, {Builder::reg(sem, OperandKind::Sem)}, {}, {pArg});
  b.m.edges.push_back({pNext, pArg, Edge::Kind::Copy, 0});
  b.add(Op::Mov, {Builder::reg(sem), Builder::reg(semNext, OperandKind::RegOrImm)}, {pArg}, {pNext});
  b.add(Op::Add, {Builder::reg(trip), Builder::reg(trip), Builder::imm(1)}).tripLoop = 0;
  MOp to;
  to.kind = OperandKind::Label;
  to.imm = 0;
  b.add(Op::Blt, {Builder::reg(trip), Builder::imm(4), to});
  b.add(Op::DmaWait, {Builder::reg(sem, OperandKind::Sem)}, {}, {pArg});
  b.add(Op::Halt, {});
  isa::Program p;
  REQUIRE(b.run(p).kind == AllocError::Kind::None);
  CHECK(b.m.sites[first].k == 1);
  CHECK(b.m.sites[loopSite].k == 2);
  CHECK(b.m.sites[loopSite].base != b.m.sites[first].base);
  // The slot is computed once per trip, at the loop's head.
  bool rem = false;
  for (const isa::Instr& in : p.code) rem = rem || (in.op == Op::Rem && in.operands[2].imm == 2);
  CHECK(rem);
  CHECK(isa::validate(p).empty());
}

// for (...) { if (skip) { continue; } next = copy(); wait(inflight); inflight = next; }
// A trip that skips keeps `inflight` without a new copy: in trips the copy
// is carried without bound, but at most two of its instances are ever live,
// so it rotates by the instances the site has made (a counter from the
// program's start), through two semaphores.
TEST_CASE("a copy kept across trips that skip its refill rotates by instances made") {
  Builder b;
  int pInit = b.pseudo(), pNext = b.pseudo(), pArg = b.pseudo();
  int trip = b.vreg(), sem = b.vreg(), skip = b.vreg();
  b.m.loops.push_back({-1, trip, trip});
  MBuffer in;
  in.name = "in";
  in.shape = {isa::Dim{1024, -1}};
  in.role = isa::Role::Input;
  b.m.buffers.push_back(in);
  MOp hbm;
  hbm.kind = OperandKind::Mem;
  hbm.buffer = 1;
  int first = b.site(Site::Kind::Semaphore, 1, pInit);
  MOp s0;
  s0.kind = OperandKind::Sem;
  s0.site = first;
  b.add(Op::DmaStart, {hbm, hbm, Builder::imm(16), s0}, {pInit});
  b.add(Op::Li, {Builder::reg(sem), Builder::imm(0, OperandKind::Imm)});
  b.add(Op::Li, {Builder::reg(trip), Builder::imm(0, OperandKind::Imm)});
  b.m.edges.push_back({pInit, pArg, Edge::Kind::Copy, -1, static_cast<int>(b.m.code.size())});
  b.add(Op::Nop, {}, {pArg}, {pInit});
  b.label(0);
  b.m.code.back().hubLoop = 0;
  b.add(Op::And, {Builder::reg(skip), Builder::reg(trip), Builder::imm(1)});
  MOp toSkip;
  toSkip.kind = OperandKind::Label;
  toSkip.imm = 1;
  b.add(Op::Bnz, {Builder::reg(skip), toSkip});
  int semNext = -1;
  int loopSite = b.rotatingCopy(pNext, hbm, semNext);
  b.add(Op::DmaWait, {Builder::reg(sem, OperandKind::Sem)}, {}, {pArg});
  b.m.edges.push_back({pNext, pArg, Edge::Kind::Copy, 0, static_cast<int>(b.m.code.size())});
  b.add(Op::Mov, {Builder::reg(sem), Builder::reg(semNext, OperandKind::RegOrImm)}, {pArg}, {pNext});
  MOp toLatch;
  toLatch.kind = OperandKind::Label;
  toLatch.imm = 2;
  b.add(Op::Jmp, {toLatch});
  b.label(1);  // the skipping trip: `inflight` carried as it is
  b.m.edges.push_back({pArg, pArg, Edge::Kind::Copy, 0, static_cast<int>(b.m.code.size())});
  b.add(Op::Nop, {}, {pArg}, {pArg});
  b.label(2);
  b.add(Op::Add, {Builder::reg(trip), Builder::reg(trip), Builder::imm(1)}).tripLoop = 0;
  MOp toHead;
  toHead.kind = OperandKind::Label;
  toHead.imm = 0;
  b.add(Op::Blt, {Builder::reg(trip), Builder::imm(9), toHead});
  b.add(Op::DmaWait, {Builder::reg(sem, OperandKind::Sem)}, {}, {pArg});
  b.add(Op::Halt, {});
  isa::Program p;
  REQUIRE(b.run(p).kind == AllocError::Kind::None);
  CHECK(b.m.sites[loopSite].counted);
  CHECK(b.m.sites[loopSite].k == 2);
  CHECK(b.m.sites[loopSite].base != b.m.sites[first].base);
  // slot = count % 2 and count += 1 where the site makes an instance.
  bool rem = false, count = false;
  for (size_t i = 0; i + 1 < p.code.size(); ++i) {
    const isa::Instr& a = p.code[i];
    const isa::Instr& c = p.code[i + 1];
    if (a.op == Op::Rem && a.operands[2].imm == 2 && c.op == Op::Add && c.operands[0] == c.operands[1] &&
        c.operands[0] == a.operands[1] && c.operands[2].imm == 1)
      rem = count = true;
  }
  CHECK(rem);
  CHECK(count);
  CHECK(isa::validate(p).empty());
}

TEST_CASE("more than 32 values live at once do not colour; spilling to SMEM makes them fit") {
  Builder b;
  std::vector<int> v;
  for (int i = 0; i < 40; ++i) {
    v.push_back(b.vreg());
    b.add(Op::Li, {Builder::reg(v.back()), Builder::imm(i, OperandKind::Imm)});
  }
  for (int i = 1; i < 40; ++i) b.add(Op::Add, {Builder::reg(v[0]), Builder::reg(v[0]), Builder::reg(v[i], OperandKind::RegOrImm)});
  b.add(Op::Halt, {});
  isa::Program p;
  AllocError e = b.run(p);
  REQUIRE(e.kind == AllocError::Kind::Registers);
  int spills = 0;
  while (e.kind == AllocError::Kind::Registers && spillOne(b.m, liveness(b.m), e.vreg)) {
    ++spills;
    Liveness live = liveness(b.m);
    e = allocate(b.m, live, siteSets(b.m), 1 << 20, 1 << 20, p);
  }
  CHECK(e.kind == AllocError::Kind::None);
  CHECK(spills >= 8);
  CHECK(isa::validate(p).empty());
  CHECK(p.findBuffer("spill") >= 0);
}

TEST_CASE("memory over capacity is an E6007 error with the total") {
  Builder b;
  int pa = b.pseudo(), pb = b.pseudo();
  int a = b.site(Site::Kind::Memory, 65536, pa);
  b.add(Op::VecZero, {Builder::tile(a), dims(1, 16384)}, {pa});
  int c = b.site(Site::Kind::Memory, 65536, pb);
  b.add(Op::VecZero, {Builder::tile(c), dims(1, 16384)}, {pb});
  b.add(Op::VecAdd, {Builder::tile(c), Builder::tile(a), Builder::tile(c), dims(1, 16384)}, {}, {pa, pb});
  b.add(Op::Halt, {});
  isa::Program p;
  AllocError e = b.run(p, 100000);
  CHECK(e.kind == AllocError::Kind::Memory);
  CHECK(e.bytes == 131072);
  CHECK(e.capacity == 100000);
}

}  // namespace
}  // namespace vx::codegen::tpu
