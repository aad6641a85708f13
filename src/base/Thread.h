// A thread with a large stack. The phases recurse over the tree (an
// `else if` chain of 1,024 arms, the parser's limit, is 1,024 frames deep
// in each), so the compiler never runs them on a default 8 MiB stack: the
// same input must not overflow in an instrumented or debug build whose
// frames are larger. The stack is reserved address space, not memory.
#pragma once
#include <cstddef>
#include <functional>

namespace vx::base {

constexpr size_t kPhaseStackBytes = size_t{1} << 30;

class Thread {
 public:
  // Starts `fn` on a new thread; if no thread can be made (a tight address
  // space limit), runs it here, now.
  explicit Thread(std::function<void()> fn, size_t stackBytes = kPhaseStackBytes);
  ~Thread();  // joins
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;
  void join();

 private:
  std::function<void()> fn_;
  unsigned long handle_ = 0;
  bool running_ = false;
};

}  // namespace vx::base
