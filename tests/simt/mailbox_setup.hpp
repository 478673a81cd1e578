// tests/simt/mailbox_setup.hpp -- the opening of every mailbox test kernel (mailbox_test.cpp,
// race_kernels.cpp): thread 0 initialises the block's mbarrier for `count` arrivals, and a
// cluster barrier makes that visible to every rank before any remote use.
#pragma once
#include "simt/portable.h"

SIMT_DEVICE void mbox_setup(unsigned long long* bar, unsigned count = 1) {
  if (threadIdx.x == 0) {
    simt::mbar_init(bar, count);
    simt::mbar_init_fence();
  }
  simt_cg::this_cluster().sync();
}
