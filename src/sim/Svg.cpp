// The timeline as an SVG picture: one lane per unit, coloured bars, a time
// axis in cycles. Bars closer than half a pixel merge, so the file stays
// small however many events the run had.
#include <cmath>
#include <cstdio>

#include "sim/Sim.h"
#include "sim/TraceText.h"

namespace vx::sim {

namespace {

std::string xmlEscape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (ch == '&') out += "&amp;";
    else if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else if (ch == '"') out += "&quot;";
    else if (c < 0x20 || c >= 0x7f) out += '?';  // keeps the XML valid for any file name
    else out += ch;
  }
  return out;
}

// A DMA's latency: the DMA colour, lighter.
constexpr const char* kLatencyColour = "#fbcf9f";

const char* colour(EventKind k) {
  switch (k) {
    case EventKind::Scalar: return "#4e79a7";
    case EventKind::Stall:
    case EventKind::UnitStall: return "#c9c3bf";
    case EventKind::Vector: return "#59a14f";
    case EventKind::Matrix: return "#e15759";
    case EventKind::Dma: return "#f28e2b";
  }
  return "#000000";
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// 1, 2 or 5 times a power of ten, giving about `target` ticks over `span`.
double tickStep(double span, double target) {
  double raw = span / target;
  double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10.0 * p;
}

}  // namespace

std::string timelineSvg(const tpu::Program& p, const Result& r) {
  const double width = 1400, left = 150, right = 30, laneH = 24, gap = 8, top = 48;
  const double plotW = width - left - right;
  const size_t lanes = r.units.size();
  const double axisY = top + static_cast<double>(lanes) * (laneH + gap) + 4;
  const double height = axisY + 70;
  const double span = static_cast<double>(std::max<uint64_t>(r.cycles, 1));
  const double scale = plotW / span;

  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt("%.0f", width) + "\" height=\"" +
                    fmt("%.0f", height) + "\" viewBox=\"0 0 " + fmt("%.0f", width) + " " + fmt("%.0f", height) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  std::string title = "vxsim timeline" + (p.kernel.empty() ? std::string() : " - " + p.kernel) + " - " +
                      std::to_string(r.cycles) + " cycles (" +
                      fmt("%.3f", static_cast<double>(r.cycles) / (r.clockGhz * 1000.0)) + " us), " +
                      std::to_string(r.instructions) + " instructions";
  if (r.traceTruncated) title += " - trace truncated at trace_max_events";
  out += "<text x=\"10\" y=\"24\" font-size=\"15\">" + xmlEscape(title) + "</text>\n";

  for (size_t t = 0; t < lanes; ++t) {
    const double y = top + static_cast<double>(t) * (laneH + gap);
    const double busy = r.cycles ? 100.0 * static_cast<double>(r.units[t].busyCycles) / span : 0.0;
    out += "<g class=\"lane\" id=\"lane-" + xmlEscape(r.units[t].name) + "\">\n";
    out += "<rect x=\"" + fmt("%.1f", left) + "\" y=\"" + fmt("%.1f", y) + "\" width=\"" + fmt("%.1f", plotW) +
           "\" height=\"" + fmt("%.0f", laneH) + "\" fill=\"#f3f3f3\"/>\n";
    out += "<text x=\"10\" y=\"" + fmt("%.1f", y + laneH * 0.7) + "\">" + xmlEscape(r.units[t].name) + " " +
           fmt("%.1f", busy) + "%</text>\n";
    // Coalesce this lane's events into bars at least half a pixel apart.
    double x0 = -1, x1 = -1;
    EventKind kind = EventKind::Scalar;
    size_t count = 0;
    const TraceEvent* first = nullptr;
    auto emit = [&] {
      if (!count) return;
      out += "<rect x=\"" + fmt("%.2f", left + x0) + "\" y=\"" + fmt("%.1f", y + 2) + "\" width=\"" +
             fmt("%.2f", std::max(x1 - x0, 0.5)) + "\" height=\"" + fmt("%.0f", laneH - 4) + "\" fill=\"" +
             colour(kind) + "\"><title>" +
             xmlEscape(count == 1 ? eventName(p, r, *first) + ": " + eventDetail(p, r, *first)
                                  : std::to_string(count) + " events") +
             "</title></rect>\n";
    };
    for (const TraceEvent& e : r.trace) {
      if (e.track != t) continue;
      const double a = static_cast<double>(e.start) * scale;
      const double b = static_cast<double>(e.start + e.dur) * scale;
      if (count && e.kind == kind && a <= x1 + 0.5) {
        x1 = std::max(x1, b);
        ++count;
        continue;
      }
      emit();
      x0 = a;
      x1 = b;
      kind = e.kind;
      count = 1;
      first = &e;
    }
    emit();
    // A copy's latency (after its data has moved) in a lighter shade over
    // its bar: transfer and latency apart at a glance.
    for (const TraceEvent& e : r.trace) {
      if (e.track != t || e.kind != EventKind::Dma || e.detail == 0) continue;
      const double b = static_cast<double>(e.start + e.dur) * scale;
      const double a = static_cast<double>(e.start + e.dur - e.detail) * scale;
      if (b - a < 0.5) continue;
      out += "<rect x=\"" + fmt("%.2f", left + a) + "\" y=\"" + fmt("%.1f", y + 2) + "\" width=\"" + fmt("%.2f", b - a) +
             "\" height=\"" + fmt("%.0f", laneH - 4) + "\" fill=\"" + kLatencyColour + "\"><title>DMA #" +
             std::to_string(e.dma) + " latency: " + std::to_string(e.detail) + " cycles</title></rect>\n";
    }
    out += "</g>\n";
  }

  // Time axis.
  out += "<g class=\"axis\">\n<line x1=\"" + fmt("%.1f", left) + "\" y1=\"" + fmt("%.1f", axisY) + "\" x2=\"" +
         fmt("%.1f", left + plotW) + "\" y2=\"" + fmt("%.1f", axisY) + "\" stroke=\"black\"/>\n";
  const double step = tickStep(span, 10);
  for (double c = 0; c <= span + 0.5; c += step) {
    const double x = left + c * scale;
    out += "<line x1=\"" + fmt("%.1f", x) + "\" y1=\"" + fmt("%.1f", axisY) + "\" x2=\"" + fmt("%.1f", x) +
           "\" y2=\"" + fmt("%.1f", axisY + 5) + "\" stroke=\"black\"/>\n";
    out += "<text x=\"" + fmt("%.1f", x) + "\" y=\"" + fmt("%.1f", axisY + 18) + "\" text-anchor=\"middle\">" +
           fmt("%.0f", c) + "</text>\n";
  }
  out += "<text x=\"" + fmt("%.1f", left + plotW) + "\" y=\"" + fmt("%.1f", axisY + 34) +
         "\" text-anchor=\"end\">cycles</text>\n</g>\n";

  // Legend.
  double lx = left;
  const double ly = axisY + 50;
  for (EventKind k : {EventKind::Scalar, EventKind::Stall, EventKind::Vector, EventKind::Matrix, EventKind::Dma}) {
    out += "<rect x=\"" + fmt("%.1f", lx) + "\" y=\"" + fmt("%.1f", ly - 10) + "\" width=\"12\" height=\"12\" fill=\"" +
           colour(k) + "\"/><text x=\"" + fmt("%.1f", lx + 16) + "\" y=\"" + fmt("%.1f", ly) + "\">" +
           eventCategory(k) + "</text>\n";
    lx += 90;
  }
  out += "<rect x=\"" + fmt("%.1f", lx) + "\" y=\"" + fmt("%.1f", ly - 10) + "\" width=\"12\" height=\"12\" fill=\"" +
         kLatencyColour + "\"/><text x=\"" + fmt("%.1f", lx + 16) + "\" y=\"" + fmt("%.1f", ly) + "\">dma latency</text>\n";
  out += "</svg>\n";
  return out;
}

}  // namespace vx::sim
