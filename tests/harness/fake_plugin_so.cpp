// tests/harness/fake_plugin_so.cpp -- the fake implementation as a dlopen-able plugin .so.
// FAKE_ABI_VERSION (compile definition) lets a second build claim a wrong ABI version.
// FAKE_FORCED_FAULT=<n> (compile definition) builds a plugin that always has Fault n for cases
// with batch >= 3 (and none for smaller ones), so a test can run a passing case after a crash.
#include <cstdlib>

#include "fake_plugin.hpp"

#ifndef FAKE_ABI_VERSION
#define FAKE_ABI_VERSION DSV4_ABI_VERSION
#endif

using namespace dsv4::faketest;

// env DSV4_FAKE_FAULT=<n> selects a Fault (CLI tests drive the plugin through dsv4-harness).
extern "C" {
DSV4_EXPORT uint32_t dsv4_abi_version(void) {
  const char* e = std::getenv("DSV4_FAKE_FAULT");
  set_fault(e ? Fault(std::atoi(e)) : Fault::None);
  return FAKE_ABI_VERSION;
}
#ifndef FAKE_OMIT_CAPABILITIES
DSV4_EXPORT dsv4_result dsv4_query_capabilities(dsv4_capabilities* caps, dsv4_message* msg) {
  return fake_query_capabilities(caps, msg);
}
#endif
DSV4_EXPORT dsv4_result dsv4_check_status(void* s, dsv4_device_status* out, dsv4_message* msg) {
  return fake_check_status(s, out, msg);
}
DSV4_EXPORT dsv4_result dsv4_topk_v2_transform_paged(const dsv4_tensor* scores, const dsv4_tensor* seq_lens,
                                                     const dsv4_tensor* page_table, dsv4_tensor* out,
                                                     int64_t page_size, const dsv4_tensor* metadata,
                                                     dsv4_tensor* raw, void* stream, int32_t validate,
                                                     dsv4_message* msg) {
#ifdef FAKE_FORCED_FAULT
  set_fault(scores->sizes[0] >= 3 ? Fault(FAKE_FORCED_FAULT) : Fault::None);
#endif
  return fake_transform_paged(scores, seq_lens, page_table, out, page_size, metadata, raw, stream, validate, msg);
}
}
