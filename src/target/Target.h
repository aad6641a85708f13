// The closed sets every phase shares: targets, memory spaces, scalar types
// and builtins, each declared once in a .def table of this folder. This
// library depends on nothing; hir, check, dialect and the backends read
// their knowledge of a target or a builtin from here. Switches over these
// enums have no `default:` (the build uses -Werror=switch), so a new row
// does not compile until every phase handles it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vx::target {

enum class TargetKind : uint8_t {
#define TARGET(K, N, D, MU, TM) K,
#include "target/Targets.def"
#undef TARGET
};
constexpr unsigned kTargetCount = 0
#define TARGET(K, N, D, MU, TM) +1
#include "target/Targets.def"
#undef TARGET
    ;

enum class MemSpace : uint8_t {
#define MEMSPACE(K, N, V, C) K,
#include "target/MemSpaces.def"
#undef MEMSPACE
};

enum class ScalarKind : uint8_t {
#define SCALAR(K, N, B, F, S, C, V, TT) K,
#include "target/ScalarTypes.def"
#undef SCALAR
};

enum class Builtin : uint8_t {
  None,  // not a builtin: a user function
#define BUILTIN(K, N, SY, R, A0, A1, A2, T) K,
#include "target/Builtins.def"
#undef BUILTIN
};

// The elementwise unary functions (Unary.def).
enum class UnaryFn : uint8_t {
#define UNARY(K, N, F, TR) K,
#include "target/Unary.def"
#undef UNARY
};
struct UnaryInfo {
  UnaryFn fn;
  const char* name;     // "exp"
  const char* formula;  // "e^x"
  bool transcendental;
  Builtin builtin, into;  // `exp`, `exp_into`
};
const UnaryInfo& info(UnaryFn f);
std::vector<UnaryFn> allUnaryFns();
std::optional<UnaryFn> unaryByName(std::string_view name);  // "exp"
// The function of `exp` or `exp_into`; nothing for other builtins.
std::optional<UnaryFn> unaryOf(Builtin b);

enum class ArgEffect : uint8_t { None, Space, Scalar, Read, Write, Move, DmaSrc, DmaDst, Consume, Base };
enum class ResultKind : uint8_t { Void, Buffer, Token, Payload, Same, View };
enum class Sync : uint8_t { Blocking, ToTransfer, ToTransferInto, ToStore };

using TargetMask = uint32_t;

struct TargetInfo {
  TargetKind kind;
  const char* name;
  const char* description;
  bool matrixUnit;
  bool tensorMemory;
};

struct MemSpaceInfo {
  MemSpace kind;
  const char* name;     // "VMEM", as in `Memory::VMEM`
  const char* virName;  // "vmem", as in `!vx.pinned<..., vmem>`
  bool onChip;
};

struct MemoryInfo {
  bool exists = false;
  uint64_t capacity = 0;  // bytes; 0 = unbounded
  uint64_t alignment = 1;
  const char* what = "";  // what the target calls it: "shared memory"
  const char* source = "";
};

struct ScalarInfo {
  ScalarKind kind;
  const char* name;   // "f32"
  unsigned bytes;
  bool isFloat;
  bool isSigned;
  const char* cType;    // C/C++/CUDA spelling in generated code
  const char* virType;  // the MLIR type VIR gives it
  TargetMask tensorTargets;  // targets that store tensors of this element type
};

struct BuiltinInfo {
  Builtin kind;
  const char* name;
  Sync sync;
  ResultKind result;
  ArgEffect args[3];
  TargetMask targets;
  unsigned arity() const {
    unsigned n = 0;
    while (n < 3 && args[n] != ArgEffect::None) ++n;
    return n;
  }
};

const TargetInfo& info(TargetKind t);
const MemSpaceInfo& info(MemSpace m);
const ScalarInfo& info(ScalarKind s);
const BuiltinInfo& info(Builtin b);  // b != None
MemoryInfo memory(TargetKind t, MemSpace m);

std::vector<TargetKind> allTargets();
std::vector<MemSpace> allMemSpaces();
std::vector<Builtin> allBuiltins();
std::vector<ScalarKind> allScalars();

std::optional<TargetKind> targetByName(std::string_view name);
std::optional<MemSpace> memSpaceByName(std::string_view name);  // "VMEM"
std::optional<ScalarKind> scalarByName(std::string_view name);
Builtin builtinByName(std::string_view name);  // None if not a builtin

bool available(Builtin b, TargetKind t);
bool available(MemSpace m, TargetKind t);
// Tensors of element type `s` on target `t`.
bool tensorElementAvailable(ScalarKind s, TargetKind t);
std::string targetsWithTensorsOf(ScalarKind s);
// The targets that have it, comma-separated in table order: "cpu, tpu".
std::string targetsWith(Builtin b);
std::string targetsWith(MemSpace m);
// "cpu, tpu, b200, h100"
std::string targetNameList();
// How a scalar crosses the C ABI of a generated entry: a scalar parameter or
// result (bf16 and f16 travel as float, converted at the boundary), and the
// element of a buffer pointer (bf16 and f16 as their 16-bit pattern).
const char* cAbiScalar(ScalarKind s);
const char* cAbiElement(ScalarKind s);

const char* effectName(ArgEffect e);

}  // namespace vx::target
