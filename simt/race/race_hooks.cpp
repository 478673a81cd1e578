// simt/race/race_hooks.cpp -- the __tsan_* entry points that clang's TSan instrumentation calls,
// implemented on top of the simt race detector (no TSan runtime is linked). Uninstrumented.
#include <cstddef>
#include <cstdint>

namespace simt::detail {
void race_access(const void* addr, size_t size, bool write, uintptr_t pc);
}

#define SIMT_PC reinterpret_cast<uintptr_t>(__builtin_return_address(0))

extern "C" {
void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_ignore_thread_begin() {}
void __tsan_ignore_thread_end() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}
void __tsan_read_range(void* a, unsigned long n) { simt::detail::race_access(a, n, false, SIMT_PC); }
void __tsan_write_range(void* a, unsigned long n) { simt::detail::race_access(a, n, true, SIMT_PC); }

#define SIMT_TSAN_RW(N)                                                                            \
  void __tsan_read##N(void* a) { simt::detail::race_access(a, N, false, SIMT_PC); }                \
  void __tsan_write##N(void* a) { simt::detail::race_access(a, N, true, SIMT_PC); }                \
  void __tsan_unaligned_read##N(void* a) { simt::detail::race_access(a, N, false, SIMT_PC); }      \
  void __tsan_unaligned_write##N(void* a) { simt::detail::race_access(a, N, true, SIMT_PC); }      \
  void __tsan_volatile_read##N(void* a) { simt::detail::race_access(a, N, false, SIMT_PC); }       \
  void __tsan_volatile_write##N(void* a) { simt::detail::race_access(a, N, true, SIMT_PC); }
SIMT_TSAN_RW(1)
SIMT_TSAN_RW(2)
SIMT_TSAN_RW(4)
SIMT_TSAN_RW(8)
SIMT_TSAN_RW(16)
#undef SIMT_TSAN_RW

// std::atomic in instrumented code: perform the operation (sequentially consistent).
#define SIMT_TSAN_ATOMIC(N, T)                                                                     \
  T __tsan_atomic##N##_load(const volatile T* a, int) { return __atomic_load_n(a, __ATOMIC_SEQ_CST); } \
  void __tsan_atomic##N##_store(volatile T* a, T v, int) { __atomic_store_n(a, v, __ATOMIC_SEQ_CST); } \
  T __tsan_atomic##N##_exchange(volatile T* a, T v, int) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); } \
  T __tsan_atomic##N##_fetch_add(volatile T* a, T v, int) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); } \
  T __tsan_atomic##N##_fetch_sub(volatile T* a, T v, int) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); } \
  T __tsan_atomic##N##_fetch_and(volatile T* a, T v, int) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); } \
  T __tsan_atomic##N##_fetch_or(volatile T* a, T v, int) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); } \
  T __tsan_atomic##N##_fetch_xor(volatile T* a, T v, int) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); } \
  T __tsan_atomic##N##_fetch_nand(volatile T* a, T v, int) { return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST); } \
  int __tsan_atomic##N##_compare_exchange_strong(volatile T* a, T* c, T v, int, int) {             \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);        \
  }                                                                                                \
  int __tsan_atomic##N##_compare_exchange_weak(volatile T* a, T* c, T v, int, int) {               \
    return __atomic_compare_exchange_n(a, c, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);         \
  }                                                                                                \
  T __tsan_atomic##N##_compare_exchange_val(volatile T* a, T c, T v, int, int) {                   \
    __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);              \
    return c;                                                                                      \
  }
SIMT_TSAN_ATOMIC(8, char)
SIMT_TSAN_ATOMIC(16, short)
SIMT_TSAN_ATOMIC(32, int)
SIMT_TSAN_ATOMIC(64, long long)
#undef SIMT_TSAN_ATOMIC
void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
}
