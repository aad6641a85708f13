#include "target/Target.h"

#include <initializer_list>

namespace vx::target {

namespace {

constexpr TargetMask bit(TargetKind t) { return TargetMask(1) << static_cast<unsigned>(t); }

const TargetInfo kTargets[] = {
#define TARGET(K, N, D, MU, TM) {TargetKind::K, N, D, MU, TM},
#include "target/Targets.def"
#undef TARGET
};

const MemSpaceInfo kSpaces[] = {
#define MEMSPACE(K, N, V, C) {MemSpace::K, N, V, C},
#include "target/MemSpaces.def"
#undef MEMSPACE
};

constexpr TargetMask maskOf(std::initializer_list<TargetKind> ts) {
  TargetMask m = 0;
  for (TargetKind t : ts) m |= bit(t);
  return m;
}

const ScalarInfo kScalars[] = {
#define T(...) maskOf({__VA_ARGS__})
#define SCALAR(K, N, B, F, S, C, V, TT)                                       \
  {ScalarKind::K, N, B, F, S, C, V, [] {                                      \
     using TargetKind::Cpu, TargetKind::Tpu, TargetKind::B200, TargetKind::H100; \
     return TT;                                                               \
   }()},
#include "target/ScalarTypes.def"
#undef SCALAR
#undef T
};

const BuiltinInfo kBuiltins[] = {
#define T(...) maskOf({__VA_ARGS__})
#define BUILTIN(K, N, SY, R, A0, A1, A2, TS)                                                       \
  {Builtin::K, N, Sync::SY, ResultKind::R, {ArgEffect::A0, ArgEffect::A1, ArgEffect::A2}, \
   [] {                                                                                            \
     using TargetKind::Cpu, TargetKind::Tpu, TargetKind::B200, TargetKind::H100;                   \
     return TS;                                                                                    \
   }()},
#include "target/Builtins.def"
#undef BUILTIN
#undef T
};

const UnaryInfo kUnary[] = {
#define UNARY(K, N, F, TR) {UnaryFn::K, N, F, TR, Builtin::K, Builtin::K##Into},
#include "target/Unary.def"
#undef UNARY
};

struct MemRow {
  TargetKind target;
  MemSpace space;
  uint64_t capacity, alignment;
  const char* what;
  const char* source;
};
const MemRow kMemory[] = {
#define MEMSPACE(K, N, V, C)
#define MEMORY(T, S, CAP, AL, WHAT, SRC) {TargetKind::T, MemSpace::S, CAP, AL, WHAT, SRC},
#include "target/MemSpaces.def"
#undef MEMORY
#undef MEMSPACE
};

}  // namespace

const TargetInfo& info(TargetKind t) { return kTargets[static_cast<unsigned>(t)]; }
const MemSpaceInfo& info(MemSpace m) { return kSpaces[static_cast<unsigned>(m)]; }
const ScalarInfo& info(ScalarKind s) { return kScalars[static_cast<unsigned>(s)]; }
const BuiltinInfo& info(Builtin b) { return kBuiltins[static_cast<unsigned>(b) - 1]; }
const UnaryInfo& info(UnaryFn f) { return kUnary[static_cast<unsigned>(f)]; }

std::vector<UnaryFn> allUnaryFns() {
  std::vector<UnaryFn> out;
  for (const UnaryInfo& u : kUnary) out.push_back(u.fn);
  return out;
}

std::optional<UnaryFn> unaryByName(std::string_view name) {
  for (const UnaryInfo& u : kUnary)
    if (name == u.name) return u.fn;
  return std::nullopt;
}

std::optional<UnaryFn> unaryOf(Builtin b) {
  for (const UnaryInfo& u : kUnary)
    if (b == u.builtin || b == u.into) return u.fn;
  return std::nullopt;
}

MemoryInfo memory(TargetKind t, MemSpace m) {
  for (const MemRow& r : kMemory)
    if (r.target == t && r.space == m) return MemoryInfo{true, r.capacity, r.alignment, r.what, r.source};
  return MemoryInfo{};
}

std::vector<TargetKind> allTargets() {
  std::vector<TargetKind> out;
  for (const auto& t : kTargets) out.push_back(t.kind);
  return out;
}
std::vector<MemSpace> allMemSpaces() {
  std::vector<MemSpace> out;
  for (const auto& m : kSpaces) out.push_back(m.kind);
  return out;
}
std::vector<Builtin> allBuiltins() {
  std::vector<Builtin> out;
  for (const auto& b : kBuiltins) out.push_back(b.kind);
  return out;
}
std::vector<ScalarKind> allScalars() {
  std::vector<ScalarKind> out;
  for (const auto& s : kScalars) out.push_back(s.kind);
  return out;
}

std::optional<TargetKind> targetByName(std::string_view name) {
  for (const auto& t : kTargets)
    if (name == t.name) return t.kind;
  return std::nullopt;
}
std::optional<MemSpace> memSpaceByName(std::string_view name) {
  for (const auto& m : kSpaces)
    if (name == m.name) return m.kind;
  return std::nullopt;
}
std::optional<ScalarKind> scalarByName(std::string_view name) {
  for (const auto& s : kScalars)
    if (name == s.name) return s.kind;
  return std::nullopt;
}
Builtin builtinByName(std::string_view name) {
  for (const auto& b : kBuiltins)
    if (name == b.name) return b.kind;
  return Builtin::None;
}

bool available(Builtin b, TargetKind t) { return (info(b).targets & bit(t)) != 0; }
bool available(MemSpace m, TargetKind t) { return memory(t, m).exists; }
bool tensorElementAvailable(ScalarKind s, TargetKind t) { return (info(s).tensorTargets & bit(t)) != 0; }

namespace {
template <typename F>
std::string listTargets(F&& has) {
  std::string out;
  for (const auto& t : kTargets)
    if (has(t.kind)) out += (out.empty() ? "" : ", ") + std::string(t.name);
  return out;
}
}  // namespace

std::string targetsWith(Builtin b) { return listTargets([&](TargetKind t) { return available(b, t); }); }
std::string targetsWith(MemSpace m) { return listTargets([&](TargetKind t) { return available(m, t); }); }
std::string targetsWithTensorsOf(ScalarKind s) {
  return listTargets([&](TargetKind t) { return tensorElementAvailable(s, t); });
}
std::string targetNameList() { return listTargets([](TargetKind) { return true; }); }

namespace {
// 16-bit floats have no C type: they cross as float (scalars) or as their
// bit pattern (buffers).
bool sixteenBitFloat(ScalarKind s) {
  switch (s) {
    case ScalarKind::F16:
    case ScalarKind::Bf16: return true;
    case ScalarKind::I32:
    case ScalarKind::I64:
    case ScalarKind::U32:
    case ScalarKind::U64:
    case ScalarKind::Usize:
    case ScalarKind::F32:
    case ScalarKind::F64: return false;
  }
  return false;
}
}  // namespace

const char* cAbiScalar(ScalarKind s) { return sixteenBitFloat(s) ? "float" : info(s).cType; }
const char* cAbiElement(ScalarKind s) { return sixteenBitFloat(s) ? "uint16_t" : info(s).cType; }

const char* effectName(ArgEffect e) {
  switch (e) {
    case ArgEffect::None: return "none";
    case ArgEffect::Space: return "memory space";
    case ArgEffect::Scalar: return "value";
    case ArgEffect::Read: return "reads";
    case ArgEffect::Write: return "writes";
    case ArgEffect::Move: return "moves";
    case ArgEffect::DmaSrc: return "copy reads until waited";
    case ArgEffect::DmaDst: return "copy writes until waited";
    case ArgEffect::Consume: return "consumes the token";
    case ArgEffect::Base: return "the tensor viewed";
  }
  return "";
}

}  // namespace vx::target
