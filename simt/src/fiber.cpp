// simt/src/fiber.cpp -- fcontext fibers with ASan switch annotations; mmap'd guarded stacks.
#include "simt/src/fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace simt::detail {

namespace {
size_t page_size() {
  static const size_t p = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return p;
}
size_t default_stack_size() {
  if (const char* e = std::getenv("SIMT_STACK_KB")) {
    long kb = std::strtol(e, nullptr, 10);
    if (kb >= 16) return static_cast<size_t>(kb) * 1024;
  }
  return SIMT_ASAN ? 256 * 1024 : 64 * 1024;
}
}  // namespace

StackPool::~StackPool() { release_free(); }

void StackPool::release_free() {
  for (const Stack& s : free_) munmap(s.base - page_size(), s.size + page_size());
  free_.clear();
}

void StackPool::set_size(size_t bytes) {
  size_t p = page_size();
  if (bytes < 16 * 1024) bytes = 16 * 1024;
  size_ = (bytes + p - 1) / p * p;
  release_free();
}

Stack StackPool::get() {
  if (size_ == 0) set_size(default_stack_size());
  if (!free_.empty()) {
    Stack s = free_.back();
    free_.pop_back();
    return s;
  }
  size_t p = page_size();
  void* m = mmap(nullptr, size_ + p, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (m == MAP_FAILED) {
    std::fprintf(stderr, "simt: cannot mmap a %zu-byte fiber stack\n", size_ + p);
    std::abort();
  }
  mprotect(m, p, PROT_NONE);  // guard page: overflow -> SIGSEGV
  Stack s;
  s.base = static_cast<char*>(m) + p;
  s.size = size_;
  s.id = next_id_++;
  return s;
}

void StackPool::put(const Stack& s) {
  if (s.size != size_) {  // size changed meanwhile: drop it
    munmap(s.base - page_size(), s.size + page_size());
    return;
  }
  // A discarded fiber may leave poisoned frames anywhere; a finished one only in the few frames
  // at the top, which the next fiber on this stack overwrites with the same frames.
  if (s.dirty) {
    SIMT_UNPOISON(s.base, s.size);
  } else {
    size_t top = s.size < 16384 ? s.size : 16384;
    SIMT_UNPOISON(s.base + s.size - top, top);
  }
  free_.push_back(s);
}

StackPool& stack_pool() {
  static StackPool pool;
  return pool;
}

namespace {
Fiber* g_landing = nullptr;  // the fiber being switched to (a new fiber learns itself from it)

void on_land(bctx::transfer_t t, Fiber* self) {
  Fiber* from = static_cast<Fiber*>(t.data);
  from->ctx = t.fctx;
#if SIMT_ASAN
  const void* bottom = nullptr;
  size_t size = 0;
  __sanitizer_finish_switch_fiber(self->fake_stack, &bottom, &size);
  if (from->is_main) {  // the scheduler's stack bounds, needed to switch back to it
    from->stack.base = static_cast<char*>(const_cast<void*>(bottom));
    from->stack.size = size;
  }
#else
  (void)self;
#endif
}

void trampoline(bctx::transfer_t t) {
  Fiber* self = g_landing;
  on_land(t, self);
  self->fn(self);
  __builtin_unreachable();  // fn ends with exit_fiber
}
}  // namespace

void Fiber::start(const Stack& s, void (*f)(Fiber*), void* u) {
  stack = s;
  fn = f;
  user = u;
  finished = false;
#if SIMT_ASAN
  fake_stack = s.asan_fake;
#endif
  // Stack colouring: offset each top by a different number of cache lines (0..63 lines).
  size_t colour = (static_cast<size_t>(s.id) * 7 % 64) * 64;
  char* top = s.base + s.size - colour;
  ctx = bctx::make_fcontext(top, s.size - colour, &trampoline);
}

Stack Fiber::release() {
  Stack s = stack;
#if SIMT_ASAN
  s.asan_fake = fake_stack;
#endif
  s.dirty = !finished;
  return s;
}

void switch_fiber(Fiber* from, Fiber* to) {
  g_landing = to;
#if SIMT_ASAN
  __sanitizer_start_switch_fiber(&from->fake_stack, to->stack.base, to->stack.size);
#endif
  bctx::transfer_t t = bctx::jump_fcontext(to->ctx, from);
  on_land(t, from);
}

void exit_fiber(Fiber* from, Fiber* to) {
  from->finished = true;
  g_landing = to;
#if SIMT_ASAN
  // keep (not destroy) the fake stack: it goes back to the pool with the stack
  __sanitizer_start_switch_fiber(&from->fake_stack, to->stack.base, to->stack.size);
#endif
  bctx::jump_fcontext(to->ctx, from);
  __builtin_unreachable();
}

}  // namespace simt::detail
