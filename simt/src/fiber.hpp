// simt/src/fiber.hpp -- the fiber switch (Boost.Context fcontext) and the mmap'd stack pool.
// The whole switching interface is Fiber::{start,resume,suspend,finish}; swap it here for a
// hand-written switch or ucontext if boost::context::detail ever moves.
#pragma once

#include <boost/context/detail/fcontext.hpp>

#include <cstddef>
#include <vector>

#include "simt/src/sanitizer.hpp"

namespace simt::detail {

namespace bctx = boost::context::detail;

struct Stack {
  char* base = nullptr;  // lowest usable byte (the guard page sits just below)
  size_t size = 0;       // usable bytes
  unsigned id = 0;       // pool index, used for stack colouring
};

// Pool of mmap'd stacks with a PROT_NONE guard page below each. Stacks are reused (LIFO) across
// launches; under ASan their shadow is cleared when they come back.
class StackPool {
 public:
  ~StackPool();
  Stack get();
  void put(const Stack& s);
  void set_size(size_t bytes);  // takes effect for stacks mapped after the call; drops free ones
  size_t size() const { return size_; }

 private:
  void release_free();
  std::vector<Stack> free_;
  size_t size_ = 0;
  unsigned next_id_ = 0;
};

StackPool& stack_pool();

struct Fiber {
  bctx::fcontext_t ctx = nullptr;     // the fiber's suspended context (scheduler side)
  bctx::fcontext_t caller = nullptr;  // the scheduler's context (fiber side)
  Stack stack;
  void (*fn)(Fiber*) = nullptr;
  void* user = nullptr;
#if SIMT_ASAN
  void* fake_stack = nullptr;
  const void* caller_bottom = nullptr;
  size_t caller_size = 0;
#endif

  void start(const Stack& s, void (*f)(Fiber*), void* u);
  void resume();             // scheduler -> fiber; returns when the fiber suspends or finishes
  void suspend();            // fiber -> scheduler
  [[noreturn]] void finish();  // fiber -> scheduler, never resumed again
};

}  // namespace simt::detail
