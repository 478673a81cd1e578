// tests/harness/fake_plugin.cpp -- see fake_plugin.hpp. Deliberately simple: sort positions by
// value (ties by position), NaN absent; no validation beyond what the tests need.
#include "fake_plugin.hpp"

#include "fake_caps.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

namespace dsv4::faketest {
namespace {
Fault g_fault = Fault::None;
uint32_t g_abi = DSV4_ABI_VERSION;
uint32_t abi_fn() { return g_abi; }
}  // namespace

void set_fault(Fault f) { g_fault = f; }

uint32_t fake_abi_version() { return DSV4_ABI_VERSION; }

dsv4_result fake_query_capabilities(dsv4_capabilities* caps, dsv4_message* msg) {
  fill_fake_caps(caps, "fake-host", "test", DSV4_MEMORY_HOST);
  if (msg) msg->text[0] = 0;
  return DSV4_OK;
}

dsv4_result fake_check_status(void*, dsv4_device_status* out, dsv4_message* msg) {
  std::memset(out, 0, sizeof *out);
  out->row = -1;
  if (msg) msg->text[0] = 0;
  return DSV4_OK;
}

dsv4_result fake_transform_paged(const dsv4_tensor* scores, const dsv4_tensor* seq_lens,
                                 const dsv4_tensor* page_table, dsv4_tensor* out, int64_t page_size,
                                 const dsv4_tensor*, dsv4_tensor*, void*, int32_t, dsv4_message* msg) {
  if (msg) msg->text[0] = 0;
  if (g_fault == Fault::Segfault) *static_cast<volatile int32_t*>(nullptr) = 1;
  if (g_fault == Fault::Spin) {
    volatile uint64_t spins = 0;
    for (;;) spins = spins + 1;
  }
  const int64_t B = scores->sizes[0], K = out->sizes[1];
  int bits = 0;
  while ((int64_t(1) << bits) < page_size) ++bits;
  auto* o = static_cast<int32_t*>(out->data);
  const auto* lens = static_cast<const int32_t*>(seq_lens->data);
  for (int64_t b = 0; b < B; ++b) {
    const float* row = static_cast<const float*>(scores->data) + b * scores->strides[0];
    const int64_t n = lens[b];
    std::vector<int64_t> pos;
    if (n <= K) {
      for (int64_t i = 0; i < n; ++i) pos.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) if (!std::isnan(row[i])) pos.push_back(i);
      std::stable_sort(pos.begin(), pos.end(), [&](int64_t a, int64_t c) { return row[a] > row[c]; });
      if (int64_t(pos.size()) > K) pos.resize(size_t(K));
    }
    int32_t* orow = o + b * out->strides[0];
    for (int64_t t = 0; t < K; ++t) {
      if (g_fault == Fault::SkipLastSlot && b == 0 && t == K - 1) continue;
      int64_t v = t < int64_t(pos.size()) ? pos[size_t(t)] : -1;
      if (g_fault == Fault::WrongValue && b == 0 && t == 0 && n > K) {
        int64_t lowest = 0;
        for (int64_t i = 1; i < n; ++i) if (row[i] < row[lowest]) lowest = i;
        v = lowest;
      }
      if (v >= 0 && page_table) {
        const int32_t* trow = static_cast<const int32_t*>(page_table->data) + b * page_table->strides[0];
        v = (int64_t(trow[v >> bits]) << bits) | (v & (page_size - 1));
      }
      orow[t] = int32_t(v);
    }
    if (g_fault == Fault::WritePastK && b == 1) orow[K] = 7;
  }
  if (g_fault == Fault::WriteBeforeBuffer) o[-1] = 42;
  if (g_fault == Fault::WriteIntoScores && B > 1)
    const_cast<float*>(static_cast<const float*>(scores->data))[scores->strides[0] + 2] = 1e30f;
  return DSV4_OK;
}

harness::ImplTable fake_table(uint32_t abi) {
  g_abi = abi;
  harness::ImplTable t;
  t.abi_version = &abi_fn;
  t.query_capabilities = &fake_query_capabilities;
  t.check_status = &fake_check_status;
  t.topk_v2_transform_paged = &fake_transform_paged;
  return t;
}

}  // namespace dsv4::faketest
