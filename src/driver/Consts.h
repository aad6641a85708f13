// `--const NAME=VALUE` (check, build, run): the value of a `const` item set
// from the command line, as tile sizes per target are chosen (docs/grid.md
// is the brief; docs/cpu.md documents the flag).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ast/Ast.h"
#include "target/Target.h"

namespace vx::driver {

// Replaces the initialiser of each named `const` of `m` by a literal of
// VALUE. Returns a usage error ("" when every override applies): NAME=VALUE
// malformed or given twice, no `const` of that name (with a did-you-mean), a
// name that is a function, a type --const cannot set, a value that is not
// one of the const's type.
// Items `#[cfg]` leaves out for `target` are not set: a variant of the
// const for another target may have another type.
std::string applyConstOverrides(ast::Module& m, const ast::Interner& names, const std::vector<std::string>& overrides,
                                target::TargetKind target);

}  // namespace vx::driver
