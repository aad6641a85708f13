#include "tpu/AsmLex.h"

#include "tpu/Isa.h"

namespace vx::tpu::asmlex {

std::optional<int64_t> parseInt(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool neg = false;
  size_t i = 0;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    i = 1;
  }
  unsigned base = 10;
  if (s.size() - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  if (i >= s.size()) return std::nullopt;
  // Accumulate the magnitude in u64 so that i64::MIN parses.
  uint64_t mag = 0;
  const uint64_t limit = neg ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
  for (; i < s.size(); ++i) {
    char c = s[i];
    unsigned d;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
    else return std::nullopt;
    if (mag > (limit - d) / base) return std::nullopt;
    mag = mag * base + d;
  }
  if (neg) return static_cast<int64_t>(0 - mag);
  return static_cast<int64_t>(mag);
}

namespace {
std::optional<uint8_t> smallIndex(std::string_view digits, unsigned bound) {
  if (digits.empty() || digits.size() > 3) return std::nullopt;
  unsigned v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (v >= bound) return std::nullopt;
  return static_cast<uint8_t>(v);
}

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}
}  // namespace

std::optional<uint8_t> parseReg(std::string_view s) {
  if (s.size() < 2 || s[0] != 'r') return std::nullopt;
  return smallIndex(s.substr(1), kNumRegs);
}

std::optional<uint8_t> parseSem(std::string_view s) {
  if (s.size() < 4 || s.substr(0, 3) != "sem") return std::nullopt;
  return smallIndex(s.substr(3), kNumSems);
}

bool isReservedName(std::string_view s) {
  return (s.size() >= 2 && s[0] == 'r' && allDigits(s.substr(1))) ||
         (s.size() >= 4 && s.substr(0, 3) == "sem" && allDigits(s.substr(3)));
}

std::string quoteToken(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (out.size() >= 24) {
      out += "...";
      break;
    }
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace vx::tpu::asmlex
