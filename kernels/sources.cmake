# Kernel family sources (one line per file). Paths relative to kernels/.
# Top-K v2:
# bf16 small top-k, block amax, candidate table, occupancy probe:
