#include "base/Source.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace vx::base {

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  // A byte-order mark is not on the first line as an editor shows it: the
  // line starts after it (columns, snippets), and offsets inside it are
  // taken as the line's start.
  uint32_t first = text_.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  lineStarts_.push_back(first);
  bool ascii = true;
  for (uint32_t i = first; i < text_.size(); ++i) {
    if (static_cast<unsigned char>(text_[i]) >= 0x80) ascii = false;
    if (text_[i] == '\n') {
      lineStarts_.push_back(i + 1);
      asciiLine_.push_back(ascii);
      ascii = true;
    }
  }
  asciiLine_.push_back(ascii);
}

LineCol SourceFile::lineCol(uint32_t offset) const {
  offset = std::max(std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size())), lineStarts_[0]);
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - lineStarts_.begin());
  uint32_t start = lineStarts_[line - 1];
  if (asciiLine_[line - 1]) return LineCol{line, offset - start + 1};
  // One column per character: a valid UTF-8 sequence, or a byte that
  // starts none (shown as U+FFFD; a stray continuation byte too, which
  // counting lead bytes alone skipped).
  uint32_t col = 1;
  for (uint32_t i = start; i < offset; ++col) {
    auto c = static_cast<unsigned char>(text_[i]);
    uint32_t len = c < 0x80 ? 1 : c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 1;
    for (uint32_t k = 1; k < len; ++k)
      if (i + k >= text_.size() || (static_cast<unsigned char>(text_[i + k]) & 0xC0) != 0x80) len = 1;
    i += len;
  }
  return LineCol{line, col};
}

std::string_view SourceFile::lineText(uint32_t line) const {
  if (line == 0 || line > lineStarts_.size()) return {};
  uint32_t start = lineStarts_[line - 1];
  uint32_t end = line < lineStarts_.size() ? lineStarts_[line] - 1
                                           : static_cast<uint32_t>(text_.size());
  if (end > start && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(start, end - start);
}

FileId SourceMap::add(std::string path, std::string text) {
  files_.push_back(std::make_unique<SourceFile>(std::move(path), std::move(text)));
  return FileId{static_cast<uint32_t>(files_.size() - 1)};
}

ReadResult readFile(const std::string& path) {
  ReadResult r;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    r.error = std::string("cannot read `") + path + "`: " + std::strerror(errno);
    return r;
  }
  if (S_ISDIR(st.st_mode)) {
    r.error = "cannot read `" + path + "`: it is a directory";
    return r;
  }
  // No Vx source comes near this; a device or a pipe that never ends
  // (`/dev/zero`) is read up to it and refused, not read forever.
  constexpr size_t kMaxSource = size_t{256} << 20;
  const std::string tooLarge = "cannot read `" + path + "`: it is larger than 256 MiB, the limit for a source file";
  if (static_cast<uint64_t>(st.st_size) > kMaxSource) {
    r.error = tooLarge;
    return r;
  }
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    r.error = std::string("cannot read `") + path + "`: " + std::strerror(errno);
    return r;
  }
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    r.text.append(buf, n);
    if (r.text.size() > kMaxSource) {
      std::fclose(f);
      r.text.clear();
      r.text.shrink_to_fit();
      r.error = tooLarge;
      return r;
    }
  }
  bool bad = std::ferror(f);
  std::fclose(f);
  if (bad) r.error = "cannot read `" + path + "`: read error";
  return r;
}

}  // namespace vx::base
