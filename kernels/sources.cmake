# Kernel family sources (one line per file). Paths relative to kernels/.
# Top-K v2:
list(APPEND DSV4_KERNEL_SOURCES topk_v2/topk_v2_launch.cu)
list(APPEND DSV4_KERNEL_SOURCES topk_v2/topk_v2_dispatch.cu)
list(APPEND DSV4_KERNEL_SOURCES topk_v2/topk_v2_entry.cu)
# bf16 small top-k, block amax, candidate table, occupancy probe:
list(APPEND DSV4_KERNEL_SOURCES topk_bf16_small/topk_bf16_small.cu)
list(APPEND DSV4_KERNEL_SOURCES block_amax/block_amax.cu)
list(APPEND DSV4_KERNEL_SOURCES candidate_block_table/candidate_block_table.cu)
list(APPEND DSV4_KERNEL_SOURCES occupancy_probe/occupancy_probe.cu)
