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
  void* asan_fake = nullptr;  // ASan fake stack kept with the stack (creating one is costly)
  bool dirty = true;     // a discarded fiber may leave poisoned frames anywhere on it
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
  bctx::fcontext_t ctx = nullptr;  // suspended context (valid while not running)
  Stack stack;                     // for the main (scheduler) fiber: learned bounds under ASan
  void (*fn)(Fiber*) = nullptr;
  void* user = nullptr;
  bool finished = false;
  bool is_main = false;
#if SIMT_ASAN
  void* fake_stack = nullptr;
#endif

  void start(const Stack& s, void (*f)(Fiber*), void* u);
  Stack release();  // the stack (with its ASan state) for the pool
};

// Switches from the running fiber `from` to `to` (direct fiber-to-fiber, or to/from the main
// scheduler fiber); returns when some fiber switches back to `from`.
void switch_fiber(Fiber* from, Fiber* to);
// Same, but `from` has finished and is never resumed.
[[noreturn]] void exit_fiber(Fiber* from, Fiber* to);

}  // namespace simt::detail
