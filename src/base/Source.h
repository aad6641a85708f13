// Source buffers and spans. Everything that points into a file does so with a
// Span of byte offsets; line and column are computed on demand.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vx::base {

struct FileId {
  uint32_t index = UINT32_MAX;
  static constexpr FileId none() { return FileId{}; }
  bool valid() const { return index != UINT32_MAX; }
  friend bool operator==(FileId a, FileId b) { return a.index == b.index; }
};

// Half-open byte range [begin, end) in one file.
struct Span {
  FileId file;
  uint32_t begin = 0;
  uint32_t end = 0;
  bool valid() const { return file.valid(); }
  Span to(Span other) const { return Span{file, begin, other.end}; }
};

// 1-based line; 1-based column counted in Unicode scalar values, as rustc does.
struct LineCol {
  uint32_t line = 1;
  uint32_t col = 1;
};

class SourceFile {
 public:
  SourceFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  std::string_view text() const { return text_; }
  LineCol lineCol(uint32_t offset) const;
  uint32_t lineCount() const { return static_cast<uint32_t>(lineStarts_.size()); }
  // The text of 1-based line `line`, without its line terminator.
  std::string_view lineText(uint32_t line) const;
  uint32_t lineStart(uint32_t line) const { return lineStarts_[line - 1]; }

 private:
  std::string path_;
  std::string text_;
  std::vector<uint32_t> lineStarts_;
  std::vector<bool> asciiLine_;  // columns of an ASCII line are byte offsets
};

class SourceMap {
 public:
  FileId add(std::string path, std::string text);
  const SourceFile& file(FileId id) const { return *files_[id.index]; }
  uint32_t size() const { return static_cast<uint32_t>(files_.size()); }

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
};

// Why a file could not be read: empty when it could.
struct ReadResult {
  std::string text;
  std::string error;
};
ReadResult readFile(const std::string& path);

}  // namespace vx::base
