#include "diag/Sink.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace vx::diag {

void Sink::emit(Diagnostic d) {
  if (d.severity() == Severity::Error)
    ++errors_;
  else
    ++warnings_;
  diags_.push_back(std::move(d));
}

void Sink::rewrite(const std::function<bool(Diagnostic&)>& keep) {
  std::vector<Diagnostic> kept;
  errors_ = warnings_ = 0;
  for (Diagnostic& d : diags_) {
    if (!keep(d)) continue;
    (d.severity() == Severity::Error ? errors_ : warnings_) += 1;
    kept.push_back(std::move(d));
  }
  diags_ = std::move(kept);
}

void Sink::sort(const base::SourceMap& sources) {
  auto key = [&](const Diagnostic& d) {
    base::Span s = d.primarySpan();
    const std::string* path = nullptr;
    static const std::string none;
    path = s.valid() ? &sources.file(s.file).path() : &none;
    return std::make_tuple(path, s.begin);
  };
  std::stable_sort(diags_.begin(), diags_.end(), [&](const Diagnostic& a, const Diagnostic& b) {
    auto [pa, ba] = key(a);
    auto [pb, bb] = key(b);
    if (*pa != *pb) return *pa < *pb;
    if (ba != bb) return ba < bb;
    int c = std::strcmp(a.code(), b.code());
    if (c != 0) return c < 0;
    return a.message < b.message;
  });
  // The same diagnostic twice (code, message and primary span): code the
  // compiler derived twice from one written line (the pipeline form's
  // short-trip loop repeats the body) is reported once.
  auto same = [](const Diagnostic& a, const Diagnostic& b) {
    base::Span x = a.primarySpan(), y = b.primarySpan();
    return std::strcmp(a.code(), b.code()) == 0 && a.severity() == b.severity() && a.message == b.message &&
           x.file == y.file && x.begin == y.begin && x.end == y.end;
  };
  auto end = std::unique(diags_.begin(), diags_.end(), same);
  if (end != diags_.end()) {
    diags_.erase(end, diags_.end());
    errors_ = warnings_ = 0;
    for (const Diagnostic& d : diags_) (d.severity() == Severity::Error ? errors_ : warnings_) += 1;
  }
}

}  // namespace vx::diag
