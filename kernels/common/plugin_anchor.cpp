// kernels/common/plugin_anchor.cpp -- translation unit of the dsv4_ours_simt plugin library; the
// ABI symbols come from dsv4_kernels_simt (linked whole-archive).
#include "dsv4/indexer_abi.h"
