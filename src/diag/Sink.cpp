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
}

}  // namespace vx::diag
