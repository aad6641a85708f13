// Turns ANTLR's syntax errors into E0001 diagnostics worded for people:
// `expected one of `,` or `)`, found `Memory`` instead of token-name dumps.
#pragma once

#include <string>

#include "BaseErrorListener.h"
#include "DefaultErrorStrategy.h"
#include "Token.h"
#include "diag/Sink.h"

namespace vx::parse {

class SyntaxErrorListener : public antlr4::BaseErrorListener {
 public:
  SyntaxErrorListener(diag::Sink& sink, base::FileId file) : sink_(sink), file_(file) {}
  void setBase(uint32_t base) { base_ = base; }
  unsigned errors() const { return errors_; }
  void resetCount() { errors_ = 0; }

  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t line,
                   size_t col, const std::string& msg, std::exception_ptr e) override;

 private:
  diag::Sink& sink_;
  base::FileId file_;
  uint32_t base_ = 0;
  unsigned errors_ = 0;
};

// ANTLR's recovery, resynchronising at statement boundaries: after an error
// inside a block it skips to the next `;` or `}`; in an item's header, to the
// `{` of its body. The next statement then parses (and reports) normally.
class StatementRecovery : public antlr4::DefaultErrorStrategy {
 protected:
  antlr4::misc::IntervalSet getErrorRecoverySet(antlr4::Parser* parser) override;
  // Never deletes a `;` or a `}` as "extraneous": they end statements and
  // blocks. Deleted, `let y = x + ;` went on as `x + y` with the next line's
  // tail and reported a second, bogus error at the block's end.
  antlr4::Token* singleTokenDeletion(antlr4::Parser* recognizer) override;
  // Skips to the recovery set over whole blocks: a `}` or `;` inside a
  // `{ ... }` the skipped tokens opened (`let y = if c { 1 } else
  // { 2 };`) is not where the statement ends.
  void consumeUntil(antlr4::Parser* recognizer, const antlr4::misc::IntervalSet& set) override;
};

// How a token is named in messages: `fn`, identifier `x`, end of file.
std::string describeFound(const antlr4::Token* t);

}  // namespace vx::parse
