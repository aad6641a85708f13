#include <algorithm>
#include <map>
#include <string>

#include "diag/Render.h"

namespace vx::diag {

namespace {

struct Style {
  bool on;
  std::string wrap(const char* code, const std::string& s) const {
    return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
  }
  std::string bold(const std::string& s) const { return wrap("1", s); }
  std::string blue(const std::string& s) const { return wrap("1;34", s); }
  std::string level(Severity sev, const std::string& s) const {
    return wrap(sev == Severity::Error ? "1;31" : "1;33", s);
  }
};

// A source line made printable: tabs become four spaces, invalid UTF-8 and
// control characters become U+FFFD; one cell per display column, and the
// display column of every byte.
// The code point of one well-formed UTF-8 sequence.
uint32_t decode(std::string_view u) {
  unsigned char c = static_cast<unsigned char>(u[0]);
  uint32_t cp = u.size() == 2 ? c & 0x1F : u.size() == 3 ? c & 0x0F : c & 0x07;
  for (size_t k = 1; k < u.size(); ++k) cp = cp << 6 | (static_cast<unsigned char>(u[k]) & 0x3F);
  return cp;
}

// Terminal cells a code point takes (as the unicode-width crate rustc uses
// counts them, in ranges): 0 for combining marks, joiners and variation
// selectors, 2 for East Asian wide and full-width characters and emoji.
int displayWidth(uint32_t cp) {
  static const uint32_t kZero[][2] = {
      {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A}, {0x064B, 0x065F},
      {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF},
      {0x200B, 0x200F}, {0x2060, 0x2064}, {0x20D0, 0x20FF}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F},
      {0x1F3FB, 0x1F3FF}, {0xE0000, 0xE0FFF}};
  static const uint32_t kWide[][2] = {
      {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},   {0x23F0, 0x23F0},
      {0x23F3, 0x23F3},   {0x25FD, 0x25FE},   {0x2614, 0x2615},   {0x2648, 0x2653},   {0x267F, 0x267F},
      {0x2693, 0x2693},   {0x26A1, 0x26A1},   {0x26AA, 0x26AB},   {0x26BD, 0x26BE},   {0x26C4, 0x26C5},
      {0x26CE, 0x26CE},   {0x26D4, 0x26D4},   {0x26EA, 0x26EA},   {0x26F2, 0x26F3},   {0x26F5, 0x26F5},
      {0x26FA, 0x26FA},   {0x26FD, 0x26FD},   {0x2705, 0x2705},   {0x270A, 0x270B},   {0x2728, 0x2728},
      {0x274C, 0x274C},   {0x274E, 0x274E},   {0x2753, 0x2755},   {0x2757, 0x2757},   {0x2795, 0x2797},
      {0x27B0, 0x27B0},   {0x27BF, 0x27BF},   {0x2B1B, 0x2B1C},   {0x2B50, 0x2B50},   {0x2B55, 0x2B55},
      {0x2E80, 0x303E},   {0x3041, 0x33FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},
      {0xA960, 0xA97F},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE10, 0xFE19},   {0xFE30, 0xFE6F},
      {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x16FE0, 0x16FE4}, {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF},
      {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F202},
      {0x1F210, 0x1F23B}, {0x1F240, 0x1F248}, {0x1F250, 0x1F251}, {0x1F260, 0x1F265}, {0x1F300, 0x1F64F},
      {0x1F680, 0x1F6FF}, {0x1F7E0, 0x1F7EB}, {0x1F90C, 0x1F9FF}, {0x1FA70, 0x1FAFF}, {0x20000, 0x2FFFD},
      {0x30000, 0x3FFFD}};
  for (const auto& r : kZero)
    if (cp >= r[0] && cp <= r[1]) return 0;
  for (const auto& r : kWide)
    if (cp >= r[0] && cp <= r[1]) return 2;
  return 1;
}

struct DisplayLine {
  std::vector<std::string> cells;
  std::vector<uint32_t> colOfByte;  // plus one entry past the end
  // A very long line is laid out from `base` to `base + raw.size()` only
  // (around its labels): what was cut before or after shows as `...`.
  uint32_t base = 0;
  bool cutStart = false, cutEnd = false;

  explicit DisplayLine(std::string_view raw) { layOut(raw); }
  // The bytes [from, to) of `line` (clamped, moved to character starts).
  DisplayLine(std::string_view line, uint32_t from, uint32_t to) {
    auto start = [&](uint32_t i) {
      while (i > 0 && i < line.size() && (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) --i;
      return std::min<uint32_t>(i, static_cast<uint32_t>(line.size()));
    };
    from = start(from);
    to = std::max(from, start(to));
    base = from;
    cutStart = from > 0;
    cutEnd = to < line.size();
    layOut(line.substr(from, to - from));
  }
  void layOut(std::string_view raw) {
    size_t i = 0;
    while (i < raw.size()) {
      unsigned char c = static_cast<unsigned char>(raw[i]);
      uint32_t col = static_cast<uint32_t>(cells.size());
      if (c == '\t') {
        colOfByte.push_back(col);
        for (int k = 0; k < 4; ++k) cells.emplace_back(" ");
        ++i;
        continue;
      }
      if (c >= 0x80) {
        size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
        bool ok = len > 0 && i + len <= raw.size();
        for (size_t k = 1; ok && k < len; ++k)
          ok = (static_cast<unsigned char>(raw[i + k]) & 0xC0) == 0x80;
        if (!ok) len = 1;
        int w = ok ? displayWidth(decode(raw.substr(i, len))) : 1;
        if (w == 0 && !cells.empty()) {
          // A combining mark (or a joiner) draws on the character before.
          for (size_t k = 0; k < len; ++k) colOfByte.push_back(col - 1);
          cells.back() += std::string(raw.substr(i, len));
          i += len;
          continue;
        }
        for (size_t k = 0; k < len; ++k) colOfByte.push_back(col);
        cells.emplace_back(ok ? std::string(raw.substr(i, len)) : "\xEF\xBF\xBD");
        // A wide character (CJK, most emoji) takes two cells of the
        // terminal: the second holds nothing, so carets under later
        // characters line up.
        if (w == 2) cells.emplace_back("");
        i += len;
        continue;
      }
      colOfByte.push_back(col);
      cells.emplace_back(c < 0x20 || c == 0x7F ? "\xEF\xBF\xBD" : std::string(1, static_cast<char>(c)));
      ++i;
    }
    colOfByte.push_back(static_cast<uint32_t>(cells.size()));
  }
  uint32_t col(uint32_t byteInLine) const {
    byteInLine = byteInLine > base ? byteInLine - base : 0;
    return colOfByte[std::min<size_t>(byteInLine, colOfByte.size() - 1)];
  }
  std::string text(uint32_t from, uint32_t to) const {
    std::string s;
    for (uint32_t c = from; c < to && c < cells.size(); ++c) s += cells[c];
    return s;
  }
};

// Lines longer than this are cut around their labels, as rustc does.
constexpr uint32_t kMaxWidth = 140;

struct LineLabel {
  uint32_t start, end;  // display columns, end exclusive, end > start
  const Label* label;
};

std::string spaces(size_t n) { return std::string(n, ' '); }
// Columns between `from` and `to`, never negative (labels may share a start).
size_t gap(uint32_t to, uint32_t from) { return to > from ? to - from : 0; }

// The lines a suggestion changes, old and new, as rustc shows a suggestion:
// the lines it leaves alone are cut from both ends. Empty `removed` and
// `added` when the span is not in `f` or changes nothing.
struct LineDiff {
  uint32_t firstLine = 0;  // 1-based line of the first changed line
  std::vector<std::string> removed, added;
};

std::vector<std::string> splitLines(const std::string& s) {
  std::vector<std::string> lines;
  size_t from = 0;
  for (size_t nl; (nl = s.find('\n', from)) != std::string::npos; from = nl + 1) lines.push_back(s.substr(from, nl - from));
  lines.push_back(s.substr(from));
  for (std::string& l : lines)  // a CRLF line's CR is its end, not a character to show
    if (!l.empty() && l.back() == '\r') l.pop_back();
  return lines;
}

LineDiff diffOf(const SuggestionPart& sg, const base::SourceFile& f) {
  LineDiff d;
  std::string_view text = f.text();
  if (sg.span.begin > sg.span.end || sg.span.end > text.size()) return d;
  uint32_t b = f.lineCol(sg.span.begin).line, e = f.lineCol(sg.span.end).line;
  if (sg.span.begin < f.lineStart(1)) return d;  // inside a byte-order mark
  uint32_t from = f.lineStart(b), to = f.lineStart(e) + static_cast<uint32_t>(f.lineText(e).size());
  std::vector<std::string> oldL = splitLines(std::string(text.substr(from, to - from)));
  std::vector<std::string> newL = splitLines(std::string(text.substr(from, sg.span.begin - from)) + sg.replacement +
                                             std::string(text.substr(sg.span.end, to - sg.span.end)));
  size_t p = 0;
  while (p < oldL.size() && p < newL.size() && oldL[p] == newL[p]) ++p;
  size_t q = 0;
  while (q < oldL.size() - p && q < newL.size() - p && oldL[oldL.size() - 1 - q] == newL[newL.size() - 1 - q]) ++q;
  d.firstLine = b + static_cast<uint32_t>(p);
  d.removed.assign(oldL.begin() + static_cast<std::ptrdiff_t>(p), oldL.end() - static_cast<std::ptrdiff_t>(q));
  d.added.assign(newL.begin() + static_cast<std::ptrdiff_t>(p), newL.end() - static_cast<std::ptrdiff_t>(q));
  return d;
}

}  // namespace

std::string renderHuman(const Diagnostic& d, const base::SourceMap& sources, bool color) {
  Style st{color};
  const char* levelName = d.severity() == Severity::Error ? "error" : "warning";
  std::string out = st.level(d.severity(), std::string(levelName) + "[" + d.code() + "]") +
                    st.bold(": " + d.message) + "\n";

  base::Span primary = d.primarySpan();
  // Group labels by file and line (labels in other files than the primary one
  // are shown in their own snippet, in order of appearance).
  std::map<uint32_t, std::vector<LineLabel>> byLine;
  const base::SourceFile* file = primary.valid() ? &sources.file(primary.file) : nullptr;
  std::map<uint32_t, DisplayLine> display;
  if (file) {
    // A line over kLongLine bytes is laid out around its labels only (a
    // generated file's one line of megabytes, once per diagnostic).
    constexpr uint32_t kLongLine = 1u << 16, kMargin = 1024;
    std::map<uint32_t, std::pair<uint32_t, uint32_t>> labelBytes;  // per line: the labels' first and last byte
    for (const auto& l : d.labels) {
      if (!(l.span.file == primary.file)) continue;
      uint32_t line = file->lineCol(l.span.begin).line, start = file->lineStart(line);
      uint32_t b = l.span.begin > start ? l.span.begin - start : 0, e = l.span.end > start ? l.span.end - start : 0;
      auto [it, fresh] = labelBytes.try_emplace(line, b, std::max(b, e));
      if (!fresh) it->second = {std::min(it->second.first, b), std::max({it->second.second, b, e})};
    }
    for (const auto& l : d.labels) {
      if (!(l.span.file == primary.file)) continue;
      base::LineCol b = file->lineCol(l.span.begin);
      uint32_t line = b.line;
      auto it = display.find(line);
      if (it == display.end()) {
        std::string_view text = file->lineText(line);
        auto [lo, hi] = labelBytes.at(line);
        it = display
                 .emplace(line, text.size() > kLongLine
                                    ? DisplayLine(text, lo > kMargin ? lo - kMargin : 0,
                                                  static_cast<uint32_t>(std::min<uint64_t>(uint64_t{hi} + kMargin, text.size())))
                                    : DisplayLine(text))
                 .first;
      }
      const DisplayLine& dl = it->second;
      uint32_t lineStart = file->lineStart(line);
      uint32_t lineLen = static_cast<uint32_t>(file->lineText(line).size());
      uint32_t bb = l.span.begin > lineStart ? l.span.begin - lineStart : 0;
      uint32_t eb = std::min(l.span.end, lineStart + lineLen);
      eb = eb > lineStart ? eb - lineStart : 0;
      uint32_t sc = dl.col(bb);
      uint32_t ec = std::max(dl.col(eb), sc + 1);
      byLine[line].push_back(LineLabel{sc, ec, &l});
    }
  }

  uint32_t maxLine = byLine.empty() ? 0 : byLine.rbegin()->first;
  size_t width = std::to_string(maxLine).size();
  std::string gutter = spaces(width);
  auto bar = [&](const std::string& rest) {
    return st.blue(gutter + " |") + (rest.empty() ? "" : " " + rest) + "\n";
  };

  if (file) {
    base::LineCol lc = file->lineCol(primary.begin);
    out += gutter + st.blue("--> ") + file->path() + ":" + std::to_string(lc.line) + ":" +
           std::to_string(lc.col) + "\n";
    out += bar("");
    uint32_t prev = 0;
    for (auto& [line, labels] : byLine) {
      if (prev != 0 && line > prev + 1) {
        if (line == prev + 2) {
          std::string_view gapText = file->lineText(prev + 1);
          DisplayLine gap(gapText, 0, static_cast<uint32_t>(std::min<size_t>(gapText.size(), 8 * kMaxWidth)));
          uint32_t w = static_cast<uint32_t>(gap.cells.size());
          std::string shown = gap.text(0, std::min(w, kMaxWidth)) + (w > kMaxWidth ? "..." : "");
          std::string num = std::to_string(prev + 1);
          out += st.blue(num + spaces(width - num.size()) + " |") +
                 (shown.empty() ? "" : " " + shown) + "\n";
        } else {
          out += st.blue("...") + "\n";
        }
      }
      prev = line;
      const DisplayLine& dl = display.at(line);
      // The window of columns shown: all of a short line; around the labels
      // of a long one, with `...` marking what was cut.
      uint32_t lineWidth = static_cast<uint32_t>(dl.cells.size());
      uint32_t from = 0, to = lineWidth;
      if (lineWidth > kMaxWidth || dl.cutStart || dl.cutEnd) {
        uint32_t lo = UINT32_MAX, hi = 0;
        for (const auto& ll : labels) {
          lo = std::min(lo, ll.start);
          hi = std::max(hi, ll.end);
        }
        from = lo > 20 ? lo - 20 : 0;
        to = std::min(lineWidth, std::max(hi, from + 20) + 20);
        if (to - from > kMaxWidth) to = from + kMaxWidth;
        uint32_t lead = from > 0 || dl.cutStart ? 3 : 0;
        for (auto& ll : labels) {
          ll.start = std::clamp(ll.start, from, to) - from + lead;
          ll.end = std::max(std::clamp(ll.end, from, to) - from + lead, ll.start + 1);
        }
      }
      std::string shown = (from > 0 || dl.cutStart ? "..." : "") + dl.text(from, to) +
                          (to < lineWidth || dl.cutEnd ? "..." : "");
      std::string num = std::to_string(line);
      out += st.blue(num + spaces(width - num.size()) + " |") + (shown.empty() ? "" : " " + shown) +
             "\n";

      std::sort(labels.begin(), labels.end(), [](const LineLabel& a, const LineLabel& b) {
        return a.start != b.start ? a.start < b.start : a.label->primary < b.label->primary;
      });
      // Marker line: secondary spans first, so primary carets win overlaps.
      uint32_t endCol = 0;
      for (const auto& ll : labels) endCol = std::max(endCol, ll.end);
      std::vector<int> mark(endCol, 0);  // 0 none, 1 secondary, 2 primary
      for (const auto& ll : labels)
        for (uint32_t c = ll.start; c < ll.end; ++c)
          mark[c] = std::max(mark[c], ll.label->primary ? 2 : 1);
      std::string markers;
      for (uint32_t c = 0; c < endCol;) {
        int m = mark[c];
        uint32_t run = c;
        while (run < endCol && mark[run] == m) ++run;
        std::string seg(run - c, m == 2 ? '^' : m == 1 ? '-' : ' ');
        markers += m == 2 ? st.level(d.severity(), seg) : m == 1 ? st.blue(seg) : seg;
        c = run;
      }
      // The rightmost label goes inline when nothing else starts after it.
      std::vector<const LineLabel*> pending;
      const LineLabel* inlineLabel = nullptr;
      for (size_t i = 0; i < labels.size(); ++i) {
        bool last = i + 1 == labels.size();
        if (last && (labels.size() == 1 || labels[i].start >= labels[i - 1].end))
          inlineLabel = &labels[i];
        else if (!labels[i].label->text.empty())
          pending.push_back(&labels[i]);
      }
      std::string inlineText;
      if (inlineLabel && !inlineLabel->label->text.empty()) {
        const std::string& t = inlineLabel->label->text;
        inlineText = " " + (inlineLabel->label->primary ? st.level(d.severity(), t) : st.blue(t));
      }
      out += bar(markers + inlineText);
      if (!pending.empty()) {
        // Connector lines, then each label on its own line, rightmost first.
        auto connectors = [&](size_t count) {
          std::string s;
          uint32_t col = 0;
          for (size_t i = 0; i < count; ++i) {
            if (pending[i]->start < col) continue;
            s += spaces(gap(pending[i]->start, col)) + st.blue("|");
            col = pending[i]->start + 1;
          }
          return s;
        };
        out += bar(connectors(pending.size()));
        for (size_t k = pending.size(); k-- > 0;) {
          std::string s = connectors(k);
          uint32_t col = k == 0 ? 0 : pending[k - 1]->start + 1;
          const Label* l = pending[k]->label;
          s += spaces(gap(pending[k]->start, col)) +
               (l->primary ? st.level(d.severity(), l->text) : st.blue(l->text));
          out += bar(s);
        }
      }
    }
  }

  bool tail = !d.notes.empty() || !d.helps.empty() || !d.suggestions.empty();
  if (tail && file) out += bar("");
  for (const auto& n : d.notes) out += gutter + st.blue(" = ") + st.bold("note") + ": " + n + "\n";
  for (const auto& h : d.helps) out += gutter + st.blue(" = ") + st.bold("help") + ": " + h + "\n";
  // A suggestion: its message, then the change as a diff of whole lines
  // (`9 +   wait(t);`); tools read the edit from the JSON, SARIF and LSP
  // forms.
  for (const auto& s : d.suggestions) {
    out += gutter + st.blue(" = ") + st.bold("help") + ": " + s.message + "\n";
    if (!file || s.applicability == Applicability::HasPlaceholders) continue;
    std::vector<LineDiff> diffs;
    size_t last = 0;
    for (const SuggestionPart& p : s.parts()) {
      if (!(p.span.file == primary.file)) continue;
      LineDiff diff = diffOf(p, *file);
      if (diff.removed.empty() && diff.added.empty()) continue;
      last = std::max(last, diff.firstLine + std::max(diff.removed.size(), diff.added.size()) - 1);
      diffs.push_back(std::move(diff));
    }
    if (diffs.empty()) continue;
    std::string g = spaces(std::max(width, std::to_string(last).size()));
    auto row = [&](size_t line, const char* sign, const std::string& text) {
      std::string num = std::to_string(line);
      std::string shown =
          DisplayLine(text, 0, static_cast<uint32_t>(std::min<size_t>(text.size(), 8 * kMaxWidth))).text(0, kMaxWidth);
      return st.blue(num + spaces(g.size() - num.size()) + " ") + sign + (shown.empty() ? "" : " " + shown) + "\n";
    };
    out += st.blue(g + " |") + "\n";
    for (const LineDiff& diff : diffs) {
      for (size_t i = 0; i < diff.removed.size(); ++i) out += row(diff.firstLine + i, "-", diff.removed[i]);
      for (size_t i = 0; i < diff.added.size(); ++i) out += row(diff.firstLine + i, "+", diff.added[i]);
    }
    out += st.blue(g + " |") + "\n";
  }
  return out;
}

std::string renderSummary(unsigned errors, unsigned warnings, bool color) {
  Style st{color};
  auto plural = [](unsigned n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };
  if (errors > 0) {
    std::string s = st.level(Severity::Error, "error") +
                    st.bold(": aborting due to " +
                            (errors == 1 ? std::string("1 previous error")
                                         : std::to_string(errors) + " previous errors"));
    if (warnings > 0) s += st.bold("; " + plural(warnings, "warning") + " emitted");
    return s + "\n";
  }
  if (warnings > 0)
    return st.level(Severity::Warning, "warning") +
           st.bold(": " + plural(warnings, "warning") + " emitted") + "\n";
  return {};
}

}  // namespace vx::diag
