// `#[cfg(...)]` on items (docs/language/syntax.md): an item whose predicate
// is false for the target being built is not part of the program, so the
// checker and every backend see the program exactly as built. The
// predicates are Rust's: `target = "name"`, `not(p)`, `any(p, ...)` (false
// when empty) and `all(p, ...)` (true when empty).
#include "base/Text.h"
#include "check/Check.h"
#include "check/Sema.h"
#include "diag/DiagKinds.h"

namespace vx::check {

namespace {

std::string targetList() {
  std::string all;
  for (target::TargetKind t : target::allTargets())
    all += (all.empty() ? "`\"" : ", `\"") + std::string(target::info(t).name) + "\"`";
  return all;
}

// The predicate's value; nothing after a diagnostic.
std::optional<bool> evalCfg(Sema& s, const ast::Meta& mt) {
  std::string n = s.name(mt.name);
  auto malformed = [&](const std::string& what, const std::string& help) {
    s.sink.emit(diag::CfgMalformed(what).primary(s.span(mt.range), "in this predicate").help(help));
    return std::optional<bool>{};
  };
  if (n == "target") {
    if (mt.kind != ast::Meta::Kind::Value)
      return malformed("`target` takes a name: `target = \"b200\"`", "the targets are " + targetList());
    std::optional<target::TargetKind> t = target::targetByName(mt.value);
    if (!t) {
      std::vector<std::string> names;
      for (target::TargetKind k : target::allTargets()) names.push_back(target::info(k).name);
      diag::Diagnostic d = diag::UnknownTarget(mt.value);
      d.primary(s.span(mt.valueRange), "not a target");
      std::string close = base::closestMatch(mt.value, names);
      if (!close.empty())
        d.suggest("a target with a similar name exists: `\"" + close + "\"`", s.span(mt.valueRange),
                  "\"" + close + "\"", diag::Applicability::MaybeIncorrect);
      else
        d.help("the targets are " + targetList());
      s.sink.emit(std::move(d));
      return std::nullopt;
    }
    return *t == s.target;
  }
  bool isNot = n == "not", isAny = n == "any", isAll = n == "all";
  if (!isNot && !isAny && !isAll) {
    s.sink.emit(diag::UnknownCfgPredicate(n)
                    .primary(s.span(mt.nameRange), "not a predicate")
                    .help("the predicates are `target = \"...\"`, `not(..)`, `any(..)` and `all(..)`"));
    return std::nullopt;
  }
  if (mt.kind != ast::Meta::Kind::List)
    return malformed("`" + n + "` takes a list of predicates: `" + n + "(target = \"cpu\")`",
                     "write the predicates in parentheses");
  if (isNot && mt.args.size() != 1)
    return malformed("`not` takes one predicate, not " + std::to_string(mt.args.size()),
                     "combine several with `any(..)` or `all(..)` inside `not(..)`");
  // Every argument is evaluated, so that each mistake is reported.
  bool any = false, all = true, failed = false;
  for (const ast::Meta& a : mt.args) {
    std::optional<bool> v = evalCfg(s, a);
    if (!v) {
      failed = true;
      continue;
    }
    any = any || *v;
    all = all && *v;
  }
  if (failed) return std::nullopt;
  if (isNot) return !all;
  return isAny ? any : all;
}

// The predicate's value, silently (nothing for a malformed one).
std::optional<bool> cfgValue(const ast::Meta& mt, const ast::Interner& names, target::TargetKind target) {
  std::string n(names.str(mt.name));
  if (n == "target") {
    std::optional<target::TargetKind> t = target::targetByName(mt.value);
    if (mt.kind != ast::Meta::Kind::Value || !t) return std::nullopt;
    return *t == target;
  }
  if ((n != "not" && n != "any" && n != "all") || mt.kind != ast::Meta::Kind::List) return std::nullopt;
  if (n == "not" && mt.args.size() != 1) return std::nullopt;
  bool any = false, all = true;
  for (const ast::Meta& a : mt.args) {
    std::optional<bool> v = cfgValue(a, names, target);
    if (!v) return std::nullopt;
    any = any || *v;
    all = all && *v;
  }
  return n == "not" ? !all : n == "any" ? any : all;
}

}  // namespace

bool itemConfigured(const ast::Item& item, const ast::Interner& names, target::TargetKind target) {
  for (const ast::Attr& at : item.attrs) {
    if (names.str(at.level) != "cfg" || at.args.size() != 1) continue;
    if (std::optional<bool> v = cfgValue(at.args[0], names, target); v && !*v) return false;
  }
  return true;
}

bool itemActive(Sema& s, const ast::Item& it) {
  bool active = true;
  for (const ast::Attr& at : it.attrs) {
    if (s.name(at.level) != "cfg") continue;
    if (at.args.size() != 1) {
      s.sink.emit(diag::CfgMalformed("`cfg` takes one predicate, not " + std::to_string(at.args.size()))
                      .primary(s.span(at.range), "")
                      .help("combine predicates with `all(..)` or `any(..)`: `#[cfg(any(target = \"b200\", "
                            "target = \"h100\"))]`"));
      continue;  // a malformed `cfg` keeps the item, so that its uses report nothing more
    }
    std::optional<bool> v = evalCfg(s, at.args[0]);
    if (v && !*v) active = false;
  }
  return active;
}

}  // namespace vx::check
