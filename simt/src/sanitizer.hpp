// simt/src/sanitizer.hpp -- ASan feature detection and the annotations simt uses.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define SIMT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIMT_ASAN 1
#endif
#endif
#ifndef SIMT_ASAN
#define SIMT_ASAN 0
#endif

#if SIMT_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define SIMT_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define SIMT_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define SIMT_POISON(p, n) ((void)(p), (void)(n))
#define SIMT_UNPOISON(p, n) ((void)(p), (void)(n))
#endif
