// Names of the core IR's kinds, and the queries every user of a body needs.
#include "check/cir/Cir.h"

namespace vx::check::cir {

const char* name(StmtKind k) {
  switch (k) {
#define CIR_STMT(K, N) \
  case StmtKind::K: return N;
#include "check/cir/CirKinds.def"
  }
  return "?";
}

const char* name(RvKind k) {
  switch (k) {
#define CIR_RVALUE(K, N) \
  case RvKind::K: return N;
#include "check/cir/CirKinds.def"
  }
  return "?";
}

const char* name(TermKind k) {
  switch (k) {
#define CIR_TERM(K, N) \
  case TermKind::K: return N;
#include "check/cir/CirKinds.def"
  }
  return "?";
}

const char* name(ProjKind k) {
  switch (k) {
#define CIR_PROJ(K, N) \
  case ProjKind::K: return N;
#include "check/cir/CirKinds.def"
  }
  return "?";
}

bool Body::inLoop(BlockId b, LoopId l) const {
  for (LoopId x = blocks[b.index].loop; x.valid(); x = loops[x.index].parent)
    if (x == l) return true;
  return false;
}

hir::TypeId Body::typeOf(const Place& p) const {
  if (p.proj.count == 0) return locals[p.local.index].type;
  return projs[p.proj.begin + p.proj.count - 1].type;
}

}  // namespace vx::check::cir
