#include "ast/Ast.h"

namespace vx::ast {

const char* exprKindName(ExprKind k) {
  switch (k) {
#define AST_EXPR(K) case ExprKind::K: return #K;
#include "ast/AstKinds.def"
#undef AST_EXPR
  }
  return "?";
}

const char* stmtKindName(StmtKind k) {
  switch (k) {
#define AST_STMT(K) case StmtKind::K: return #K;
#include "ast/AstKinds.def"
#undef AST_STMT
  }
  return "?";
}

const char* typeKindName(TypeKind k) {
  switch (k) {
#define AST_TYPE(K) case TypeKind::K: return #K;
#include "ast/AstKinds.def"
#undef AST_TYPE
  }
  return "?";
}

const char* opSpelling(Op op) {
  switch (op) {
#define AST_OP(K, S) case Op::K: return S;
#include "ast/AstKinds.def"
#undef AST_OP
  }
  return "?";
}

const char* suffixName(LitSuffix s) {
  switch (s) {
    case LitSuffix::None: return "";
    case LitSuffix::I32: return "i32";
    case LitSuffix::I64: return "i64";
    case LitSuffix::U32: return "u32";
    case LitSuffix::U64: return "u64";
    case LitSuffix::Usize: return "usize";
    case LitSuffix::F16: return "f16";
    case LitSuffix::Bf16: return "bf16";
    case LitSuffix::F32: return "f32";
    case LitSuffix::F64: return "f64";
  }
  return "";
}

NameId Interner::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return NameId{it->second};
  uint32_t id = static_cast<uint32_t>(names_.size());
  names_.emplace_back(s);
  index_.emplace(std::string_view(names_.back()), id);
  return NameId{id};
}

}  // namespace vx::ast
