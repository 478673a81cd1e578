// kernels/common/faults.h -- planted-fault switches (compile-time, OFF by default).
//
// Configure with -DDSV4_FAULT=<NAME> (cmake/Dsv4Options.cmake defines DSV4_FAULT_<NAME>=1).
// Each switch plants exactly one defect class of ../shared/spec/bug_classes.md into OUR kernels so
// that the harness can be shown to catch it. Production builds never define any of them.
#pragma once

// Top-K v2 (kernels/topk_v2)
#ifndef DSV4_FAULT_TOPK_PAD_NEG_FLT_MAX     // class 1: padding lanes hold -FLT_MAX instead of NaN
#define DSV4_FAULT_TOPK_PAD_NEG_FLT_MAX 0
#endif
#ifndef DSV4_FAULT_TOPK_LB_NO_ULP           // class 2: bin lower bound without the one-ULP RNE nudge
#define DSV4_FAULT_TOPK_LB_NO_ULP 0
#endif
#ifndef DSV4_FAULT_TOPK_TIE_CAP_2048        // class 7: threshold-bin ranking capped at 2048 arrivals
#define DSV4_FAULT_TOPK_TIE_CAP_2048 0
#endif
#ifndef DSV4_FAULT_TOPK_NEGZERO_ABOVE       // class 8: -0.0 binned below +0.0 but compared >= +0.0
#define DSV4_FAULT_TOPK_NEGZERO_ABOVE 0
#endif
#ifndef DSV4_FAULT_TOPK_WRITE_PAST_K        // class 5: one write past a row's K slots
#define DSV4_FAULT_TOPK_WRITE_PAST_K 0
#endif
#ifndef DSV4_FAULT_TOPK_READ_PAST_SEQLEN    // class 10: one read past seq_len
#define DSV4_FAULT_TOPK_READ_PAST_SEQLEN 0
#endif
#ifndef DSV4_FAULT_TOPK_STAGE_SKIPS_GUESS_BIN  // one-read Streaming: bin g left out of the stage
#define DSV4_FAULT_TOPK_STAGE_SKIPS_GUESS_BIN 0
#endif
#ifndef DSV4_FAULT_TOPK_STAGE_NO_FALLBACK  // one-read Streaming: incomplete stage used anyway
#define DSV4_FAULT_TOPK_STAGE_NO_FALLBACK 0
#endif
#ifndef DSV4_FAULT_TOPK_STAGE_NO_RECOUNT  // one-read Streaming: the threshold of a partial
#define DSV4_FAULT_TOPK_STAGE_NO_RECOUNT 0    // histogram (below the guess bin) kept
#endif
#ifndef DSV4_FAULT_TOPK_STAGE_OVERFLOW_NO_RECOUNT  // one-read Streaming: an overflowed stage's
#define DSV4_FAULT_TOPK_STAGE_OVERFLOW_NO_RECOUNT 0  // stored part counted as the histogram's rest
#endif
#ifndef DSV4_FAULT_TOPK_RING_STALE_SLOT  // one-read Streaming, rest ring (DSV4_TOPK_REST_ASYNC):
#define DSV4_FAULT_TOPK_RING_STALE_SLOT 0    // the next slot read instead of the vector's own
#endif
#ifndef DSV4_FAULT_TOPK_REST_WALK_SHORT  // one-read Streaming, the rest's register walk (no ring):
#define DSV4_FAULT_TOPK_REST_WALK_SHORT 0   // its last round of vectors neither staged nor counted
#endif
#ifndef DSV4_FAULT_TOPK_SMEM_ROW_PARTIAL_WHOLE  // lean Register4 rows' cp.async copy: partial
#define DSV4_FAULT_TOPK_SMEM_ROW_PARTIAL_WHOLE 0  // vectors copied whole (lanes outside the window)
#endif
#ifndef DSV4_FAULT_TOPK_STAGE_NO_SAMPLE_BARRIER  // one-read Streaming: no barrier before the guess
#define DSV4_FAULT_TOPK_STAGE_NO_SAMPLE_BARRIER 0
#endif
#ifndef DSV4_FAULT_TOPK_CLUSTER_REG_OVERFILL  // cluster register rows up to one rank share too
#define DSV4_FAULT_TOPK_CLUSTER_REG_OVERFILL 0  // long (the lanes past capacity never loaded)
#endif
#ifndef DSV4_FAULT_TOPK_MAILBOX_NO_FOLD_WAIT  // cluster mailbox: rank 0 searches its histogram
#define DSV4_FAULT_TOPK_MAILBOX_NO_FOLD_WAIT 0    // without waiting for the ranks' folded bins
#endif
#ifndef DSV4_FAULT_TOPK_MAILBOX_NO_COUNT_WAIT  // cluster mailbox: the ranks sum the list lengths
#define DSV4_FAULT_TOPK_MAILBOX_NO_COUNT_WAIT 0    // without waiting for the other ranks' counts
#endif
#ifndef DSV4_FAULT_TOPK_DIGIT_PIVOT_ALL  // cluster digit ranking: every candidate of the pivot
#define DSV4_FAULT_TOPK_DIGIT_PIVOT_ALL 0    // digit selected, also when only some are needed
#endif

// bf16 small top-k (kernels/topk_bf16_small)
#ifndef DSV4_FAULT_BF16_NEGZERO_PIVOT       // -0 pivot rule: IEEE compare without the census fix
#define DSV4_FAULT_BF16_NEGZERO_PIVOT 0
#endif
#ifndef DSV4_FAULT_BF16_NAN_AS_VALUE        // class 9: NaN lanes ranked (upstream D order) not absent
#define DSV4_FAULT_BF16_NAN_AS_VALUE 0
#endif
#ifndef DSV4_FAULT_BF16_NO_HIST_BARRIER     // no barrier between pass 1 and the pivot search
#define DSV4_FAULT_BF16_NO_HIST_BARRIER 0
#endif
#ifndef DSV4_FAULT_BF16_READ_PAST_SEQLEN    // class 10: whole last vector loaded
#define DSV4_FAULT_BF16_READ_PAST_SEQLEN 0
#endif
#ifndef DSV4_FAULT_BF16_GE_HALVES_SIGN      // census compare: a threshold's sign bit ignored
#define DSV4_FAULT_BF16_GE_HALVES_SIGN 0
#endif
#ifndef DSV4_FAULT_BF16_PACK_PAIR_SWAP      // census packing: the words of a pair take each other's bits
#define DSV4_FAULT_BF16_PACK_PAIR_SWAP 0
#endif
#ifndef DSV4_FAULT_BF16_NAN_COUNT_KEPT      // NaN keys cleared after pass 1, their bin counts not moved
#define DSV4_FAULT_BF16_NAN_COUNT_KEPT 0
#endif
#ifndef DSV4_FAULT_BF16_WIDE_LAST_SLOT      // the 4-CTA/SM instantiation writes -1 into a row's last slot
#define DSV4_FAULT_BF16_WIDE_LAST_SLOT 0
#endif
#ifndef DSV4_FAULT_BF16_SPLIT_OWN_HIST      // split kernel: each rank's pivot from its own histogram, not the cluster's sum
#define DSV4_FAULT_BF16_SPLIT_OWN_HIST 0
#endif

// block amax (kernels/block_amax)
#ifndef DSV4_FAULT_AMAX_NAN_PROPAGATES      // NaN-propagating max instead of maxNum
#define DSV4_FAULT_AMAX_NAN_PROPAGATES 0
#endif
#ifndef DSV4_FAULT_AMAX_WRITE_PAST_NK       // class 5: keys written past ceil(n/8)
#define DSV4_FAULT_AMAX_WRITE_PAST_NK 0
#endif

// candidate block table (kernels/candidate_block_table)
#ifndef DSV4_FAULT_CAND_ACCEPT_PAST_NB      // class 12: ids in [nb, capacity) accepted
#define DSV4_FAULT_CAND_ACCEPT_PAST_NB 0
#endif
#ifndef DSV4_FAULT_CAND_NO_DEDUP            // duplicates not collapsed
#define DSV4_FAULT_CAND_NO_DEDUP 0
#endif

// occupancy probe / sizing
#ifndef DSV4_FAULT_PROBE_ZERO_POOL          // class 13: a zero probe answer becomes a zero-size pool
#define DSV4_FAULT_PROBE_ZERO_POOL 0
#endif
