// tests/harness/fake_plugin.hpp -- a tiny HOST-memory implementation of the paged Top-K v2 entry
// (INDICES / PAGE_TABLE modes, plain sort, NaN absent) whose behaviour can be switched to a
// deliberate fault, so the guard-band machinery is tested without the real kernels.
#pragma once

#include "dsv4/indexer_abi.h"
#include "harness/impl.hpp"

namespace dsv4::faketest {

enum class Fault {
  None = 0,
  WritePastK,         // row 1 also writes slot k (its first guard column)
  WriteBeforeBuffer,  // writes the int32 just before out_page_indices' data
  WriteIntoScores,    // overwrites scores[1][2]
  SkipLastSlot,       // leaves slot k-1 of row 0 unwritten
  WrongValue,         // row 0 slot 0 emits the smallest position instead of the largest
  Segfault,           // writes through a null pointer (the process dies with SIGSEGV)
  Spin,               // never returns
};

void set_fault(Fault f);
// The function table (fake ABI v1 unless `abi` says otherwise).
harness::ImplTable fake_table(uint32_t abi = DSV4_ABI_VERSION);

// The same functions with C linkage, for the plugin .so build (fake_plugin_so.cpp).
uint32_t fake_abi_version();
dsv4_result fake_query_capabilities(dsv4_capabilities* caps, dsv4_message* msg);
dsv4_result fake_check_status(void* stream, dsv4_device_status* out, dsv4_message* msg);
dsv4_result fake_transform_paged(const dsv4_tensor* scores, const dsv4_tensor* seq_lens,
                                 const dsv4_tensor* page_table, dsv4_tensor* out, int64_t page_size,
                                 const dsv4_tensor* metadata, dsv4_tensor* raw, void* stream,
                                 int32_t validate, dsv4_message* msg);

}  // namespace dsv4::faketest
