#include "base/Thread.h"

#include <pthread.h>

namespace vx::base {

namespace {
void* start(void* p) {
  (*static_cast<std::function<void()>*>(p))();
  return nullptr;
}
}  // namespace

Thread::Thread(std::function<void()> fn, size_t stackBytes) : fn_(std::move(fn)) {
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) == 0) {
    if (pthread_attr_setstacksize(&attr, stackBytes) == 0 && pthread_create(&thread, &attr, start, &fn_) == 0) {
      handle_ = thread;
      running_ = true;
    }
    pthread_attr_destroy(&attr);
  }
  if (!running_) fn_();
}

Thread::~Thread() { join(); }

void Thread::join() {
  if (!running_) return;
  pthread_join(static_cast<pthread_t>(handle_), nullptr);
  running_ = false;
}

}  // namespace vx::base
