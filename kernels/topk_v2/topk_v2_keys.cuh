// kernels/topk_v2/topk_v2_keys.cuh -- Top-K v2 constants, coarse fp16 key, exact key32, the
// round-to-nearest-even bin lower bound and the classification rule (spec topk_v2.md §1, §4.1-§4.8).
// Host+device (SIMT_HD) where the harness or the host code needs them too.
#pragma once
#include "kernels/common/faults.h"
#include "kernels/common/half_pair_keys.cuh"
#include "simt/portable.h"

#ifndef DSV4_TOPK_BLOCK_THREADS
#error "DSV4_TOPK_BLOCK_THREADS must be set by the build (1024 on the GPU)"
#endif

namespace dsv4::ours::topk {

constexpr int kThreads = DSV4_TOPK_BLOCK_THREADS;  // kBlockThreads of this instantiation
constexpr int kWarps = kThreads / 32;
constexpr int kMaxTopK = 2048;
constexpr int kTieStage = 2048;                    // staging array size (kTieCapacity max)
constexpr int kBitsSingle = 12;                    // single-CTA paths
constexpr int kBitsCluster = 10;                   // cluster paths
constexpr int kHistBins = 1 << kBitsSingle;
constexpr int kRegister2Max = kThreads * 2 * 4;
constexpr int kRegister4Max = kThreads * 4 * 4;
constexpr int kChunkVecs = 128;  // cluster rank interleave: 128 vectors per chunk
// Single-CTA streaming reads the row once (topk_v2_staged.cuh): a sample of kSampleVecs vectors
// guesses a bin g, the rest stages its elements of bin >= g in dynamic shared-memory slots
// (value, position): stage_slots(K, L) per thread, 4 to 8 (32 to 64 KB at 1024 threads).
// The main kernel carries the stage when forced to Streaming or for long rows (use_stage in
// topk_v2_dispatch.cu): it costs L1, where the 32-register kernels spill.
#ifndef DSV4_TOPK_STAGE_SLOTS  // stage slots per thread at most (8: 64 KB at 1024 threads)
#define DSV4_TOPK_STAGE_SLOTS 8
#endif
// ... and at least (stage_slots picks per launch; = DSV4_TOPK_STAGE_SLOTS: the fixed 64 KB stage)
#ifndef DSV4_TOPK_STAGE_SLOTS_MIN
#define DSV4_TOPK_STAGE_SLOTS_MIN 4
#endif
// Guess target (stage_guess_target): the expected sample count of the K-th element plus a
// Poisson margin of DSV4_TOPK_STAGE_MARGIN_SIGMA standard deviations, so that a guess too high (a
// second read of the row) stays rare whatever K and L (docs/topk_v2.md: ~1e-6 per normal row at
// 5; 150 % of K without a margin fell back on 1 row in 500 at L = 131072, K = 512 and a single
// such row delays a whole B = 512 launch). For any row whose positions are independent of its
// values the rate is at most P(Hypergeometric(L, K, sample) >= target): <= 7.5e-6 a row at 5 over
// L = 20480..131072, K = 512..2048, 2.1e-4 at 4 (TopkV2Keys.StageGuessFallbackIsRareForAnyExchangeableRow).
// H200 A/B (docs/performance.md, twenty-first pass): 4 saves 0.2..0.8 us on the B = 512 staged
// rows, but 0.5-10 % of B = 512 launches at L >= 32768 would then carry a fallback (+6..19 us at
// L = 65536): 5 stays, for the tail.
#ifndef DSV4_TOPK_STAGE_TARGET_PCT  // the expected count the margin is added to, in % of K
#define DSV4_TOPK_STAGE_TARGET_PCT 100
#endif
#ifndef DSV4_TOPK_STAGE_MARGIN_SIGMA
#define DSV4_TOPK_STAGE_MARGIN_SIGMA 5
#endif
// 1: the sample's own elements of bin >= g are staged too, re-read right after the guess (L2-hot)
// instead of after the whole row (when a long row has pushed them out of L2); the classify /
// refine passes then read only the stage. 0: they read the sample again (A/B switch).
#ifndef DSV4_TOPK_STAGE_SAMPLE
#define DSV4_TOPK_STAGE_SAMPLE 1
#endif
constexpr bool kStageSample = DSV4_TOPK_STAGE_SAMPLE != 0;
// The stage's pushes (StagedSrc::bin_and_stage): 1 = one count atomic per vector with staged
// lanes, then its staged lanes one by one; 0 = one per staged lane (warp-aggregated by the
// compiler, by the profile's op counts: a vote, two popc, a shuffle per lane). Measured on the H200
// (docs/performance.md, thirteenth pass): B = 512 L = 32768 k = 2048 -8 %. A/B switch.
#ifndef DSV4_TOPK_STAGE_PUSH
#define DSV4_TOPK_STAGE_PUSH 1
#endif
constexpr int kStagePush = DSV4_TOPK_STAGE_PUSH;
// The rest of a staged row (past the sample): 1 = staged by one fp32 compare a lane against the
// guess bin's lower bound and counted into the histogram from the stage after the row
// (StagedSrc::filter_and_stage / settle; the whole row counted again when that does not decide the
// threshold); 0 = every lane binned and counted as it streams (StagedSrc::bin_and_stage). A/B
// switch.
#ifndef DSV4_TOPK_STAGE_FILTER
#define DSV4_TOPK_STAGE_FILTER 1
#endif
constexpr bool kStageFilter = DSV4_TOPK_STAGE_FILTER != 0;
// With kStageFilter: the sample's vectors kept in registers through the guess and filtered from
// there (StagedSrc::keep_pass) instead of read again from L2 after it. H200 A/B (fifteenth pass):
// staged B = 512 rows -0.5..-2 %; also loading the rest's first vector before the guess gained
// nothing more. 0 = the sample re-read (A/B switch).
#ifndef DSV4_TOPK_SAMPLE_KEEP
#define DSV4_TOPK_SAMPLE_KEEP 1
#endif
// The one-read stage's rest (StagedSrc::ring_pass, with kSampleKeep) copied by cp.async through a
// ring of DSV4_TOPK_REST_ASYNC 16-byte slots a thread in dynamic shared memory: the next vectors'
// copies in flight while a vector is filtered and pushed, without registers held for them (the
// 32-register kernels spill at a register batch of 2). H200 A/B (docs/performance.md, eighteenth
// pass; smoke timing): B = 512 L = 30720 k = 512 32.8 -> 31.5 us, L = 65536 49.8 -> 47.2,
// L = 32768 / 40960 -1.3..-3.2 %, but L = 131072 k = 512 82.2 -> 85.6 (depth 1: 85.1), so
// launches with L > kRestAsyncMaxL keep the register walk, as do those whose shared memory would
// then not let two CTAs share an SM (Decision::ring_cta_bytes, rest_ring_depth). 0 = the register walk
// (A/B switch).
#ifndef DSV4_TOPK_REST_ASYNC
#define DSV4_TOPK_REST_ASYNC 2
#endif
#ifndef DSV4_TOPK_REST_ASYNC_MAX_L
#define DSV4_TOPK_REST_ASYNC_MAX_L 65536
#endif
// The ring's first DSV4_TOPK_REST_ASYNC copies issued right after the sample's loads, before the
// sample's histogram and the guess (StagedSrc::ring_start; the copies need no guess bin), instead
// of after the guess. H200 A/B (docs/performance.md, nineteenth pass; smoke timing, B = 512):
// L = 24576 -1..-2 %, L = 30720 / 32768 -2..-3 %, L = 65536 -3.6..-4.6 %. 0 = after the guess
// (A/B switch).
#ifndef DSV4_TOPK_RING_EARLY
#define DSV4_TOPK_RING_EARLY 1
#endif
constexpr int kRingEarly = DSV4_TOPK_RING_EARLY;
// The lean Register4 rows (SmemSrc<4>) copied into shared memory by cp.async instead of through
// registers: the copies in flight during select_row's prologue; each thread waits for its own
// before it first reads them (each_vec). H200 A/B (docs/performance.md, nineteenth pass; smoke
// timing): B = 512 L = 16384 -5.4 % (k = 512 23.9 -> 22.6 us), B = 256 -7 %, L = 12288 -4 %. The
// cluster ranks' shares (SmemSrc<8, NR>) keep the register copy: with cp.async they were mixed
// (B = 64 L = 24576 +2.6 %, L = 65536 -4 %). 0 = through registers (A/B switch).
#ifndef DSV4_TOPK_SMEM_ROW_ASYNC
#define DSV4_TOPK_SMEM_ROW_ASYNC 1
#endif
constexpr int kSmemRowAsync = DSV4_TOPK_SMEM_ROW_ASYNC;
constexpr int kSampleKeep = DSV4_TOPK_SAMPLE_KEEP;
constexpr int kRestAsync = DSV4_TOPK_REST_ASYNC;
constexpr int kRestAsyncMaxL = DSV4_TOPK_REST_ASYNC_MAX_L;
static_assert(kRestAsync >= 0 && kRestAsync <= 4, "rest ring depth 0..4");
// The histogram passes bin a vector's lanes two at a time (coarse_bins4: one fp32x2 -> fp16x2
// conversion per pair) instead of one by one. Measured on the H200 (docs/performance.md, eighth
// pass): -1..-4 % on most launches; the same for the classification by recomputed bins was
// +10..13 % on the Cluster-4 / -2 register rows (more spills), so classification stays per lane.
// 0 = per lane (A/B switch).
#ifndef DSV4_TOPK_PAIR_BINS
#define DSV4_TOPK_PAIR_BINS 1
#endif
constexpr bool kPairBins = DSV4_TOPK_PAIR_BINS != 0;
// The row's loads (load_row in topk_v2_args.cuh): 0 = plain (cached in L1 and L2), 1 = L2 only
// (the streamed row does not evict the spills of the 32-register kernels from L1), 2 = marked
// evict-first. A/B switch: 1 and 2 measured in the eleventh performance pass, neither kept
// (docs/performance.md).
#ifndef DSV4_TOPK_ROW_LOAD
#define DSV4_TOPK_ROW_LOAD 0
#endif
// The one-read stage's sample, in vectors per thread: 1 since the eleventh performance pass
// (4096 elements at 1024 threads; 2 before: B = 512, L = 32768 rows 3.6-4.0 % slower, nothing
// faster; docs/performance.md). stage_guess_target scales its margin with the sample.
#ifndef DSV4_TOPK_SAMPLE_VPT
#define DSV4_TOPK_SAMPLE_VPT 1
#endif
constexpr int kSampleVpt = DSV4_TOPK_SAMPLE_VPT;
constexpr int kSampleVecs = kSampleVpt * kThreads;
constexpr int kStageTargetPct = DSV4_TOPK_STAGE_TARGET_PCT;
constexpr float kStageMarginSigma = DSV4_TOPK_STAGE_MARGIN_SIGMA;
// Staged threshold bins of at most this many candidates are ranked all-pairs (one thread per
// candidate, no barrier) instead of by the 4-round radix select (§4.7 recommended split).
#ifndef DSV4_TOPK_PAIR_RANK_MAX
#define DSV4_TOPK_PAIR_RANK_MAX 256
#endif
// 1: single-CTA rows rank their staged candidates as cluster rows do, several lanes a candidate
// (rank_pairs<true>). A/B switch, measured on the H200 in the twelfth performance pass: B = 512
// rows +1..+10 %, nothing faster (as in the fifth pass at B = 1): 0.
#ifndef DSV4_TOPK_PAIR_LANES_SINGLE
#define DSV4_TOPK_PAIR_LANES_SINGLE 0
#endif
constexpr int kPairRankMax = kThreads < DSV4_TOPK_PAIR_RANK_MAX ? kThreads : DSV4_TOPK_PAIR_RANK_MAX;
// The output pass transforms every slot of a thread (page-table reads) before it stores any, so
// the reads of a thread's slots overlap (a store to `out` may alias the table: a load after a
// store waits for it). H200 A/B (eighth pass): k = 2048 rows 3-10 % faster at B = 512. 0 = slot
// by slot (A/B switch).
#ifndef DSV4_TOPK_WRITE_TWO_PHASE
#define DSV4_TOPK_WRITE_TWO_PHASE 1
#endif
// Main-kernel launches of rows longer than this percentage of Register4 carry the one-read stage
// (use_stage). H200 A/B (eighth pass, with the sample staged early): at B = 512, L = 30720 / 32768
// the stage is 4-9 % faster than two reads, at L = 24576 equal (k = 512) or 2 % slower (k = 2048);
// the rule was 200 % before the sample was staged early, 150 % until the fourteenth pass, whose
// filtered rest (kStageFilter) made the stage cheaper. Forced at B = 512 L = 20480 (fifteenth pass,
// `--one`) the stage is 13 % (k = 512) and 6 % (k = 2048) faster than two reads -- the fourteenth
// pass's "3-6 % slower" there was timed with a slower walk of the rest, later dropped -- so every
// main-kernel row longer than Register4 is staged: 100.
#ifndef DSV4_TOPK_STAGE_FROM_PCT
#define DSV4_TOPK_STAGE_FROM_PCT 100
#endif
// Timing-only phase cut (scripts/gpu/topk_v2_ab.sh variants; never in a test build: rows are left
// unwritten): 1 = return after the row's length (and window), 2 = after the histogram pass,
// 3 = after the threshold search, 4 = after classification, 5 = before the output write; cluster
// rows also 6 = after folding the histograms into rank 0, 7 = after publishing the lists to rank 0.
#ifndef DSV4_TOPK_ABLATE
#define DSV4_TOPK_ABLATE 0
#endif
// Cluster rows (10-bit bins: ~100-700 threshold-bin candidates) whose threshold bin holds more
// than kDigitRankMin candidates are ranked by one 8-bit digit of their key below the bin (counted
// into rank 0 while they are staged: select_row's TieDigit) and an all-pairs ranking of only the
// candidates that share the pivot digit (rank_staged), instead of all-pairs over every candidate
// or the 4-round radix select; the radix select remains for a pivot digit of more than
// kPairRankMax candidates. H200 (docs/performance.md, ninth pass): rank 0's ranking 1.7-3.2 ->
// ~1.1 us; k = 2048 cluster rows (~236+ candidates) 0.3-1.5 us faster; ~150 candidates (L = 24576,
// k = 512) 0.2-0.6 us slower on Cluster-2 / -4 / -8 rows. Single-CTA rows (12-bit bins, ~15-70
// candidates) keep all-pairs (digits measured +0.5-1.2 us there). 0 = all-pairs / radix select on
// every path (A/B switch).
// Cluster rows hand their data between ranks (select_row, topk_v2_team.cuh): 0 = through
// cluster.sync() (three or four a row; ptxas emits each release as MEMBAR.ALL.GPU,
// docs/performance.md, twenty-seventh pass); 1 = the mailbox: one split cluster barrier opens the
// row, arrived at with fence.release.sync_restrict::shared::cta.cluster (it orders rank 0's
// clears, its own shared memory, and nothing remote), and every hand-off after it is a remote
// st.async / red.async completing bytes on the receiver's mbarrier; 2 = the mailbox with a full
// (release) arrive opening the row (one MEMBAR a row). The refinement path keeps cluster.sync().
#ifndef DSV4_TOPK_MAILBOX
#define DSV4_TOPK_MAILBOX 1
#endif
constexpr int kMailbox = DSV4_TOPK_MAILBOX;
static_assert(kMailbox >= 0 && kMailbox <= 2, "DSV4_TOPK_MAILBOX is 0, 1 or 2");
#ifndef DSV4_TOPK_DIGIT_RANK
#define DSV4_TOPK_DIGIT_RANK 1
#endif
constexpr bool kDigitRank = DSV4_TOPK_DIGIT_RANK != 0;
constexpr int kDigitRankMin = 160;
// Timing-only phase timeline (scripts/gpu/topk_v2_timeline.sh, the GPU smoke's --timeline; never in
// a test build: the entry stamp is a global write before the PDL wait): thread 0 of every CTA
// records the global ns timer and its SM's clock at each phase boundary (TlPoint) into Args::tl,
// which the launch points at a buffer that dsv4_topk_v2_timeline (the launch file) arms and reads.
// 0 = no instrument (Args has no tl member).
#ifndef DSV4_TOPK_TIMELINE
#define DSV4_TOPK_TIMELINE 0
#endif
// Timing-only (with the timeline): the main and cluster kernels run their row twice, a barrier
// between, and stamp kTlLen again before the second run, so the timeline's later points are
// those of a run whose code is already in the instruction caches.
#ifndef DSV4_TOPK_TWICE
#define DSV4_TOPK_TWICE 0
#endif
// Phase boundaries of the timeline, in the order a row passes them (not every row passes each).
// kTlSampled / kTlGuessed / kTlRestaged split the one-read Streaming histogram pass
// (topk_v2_staged.cuh): the sample binned, the guess bin found, the sample staged again.
enum TlPoint : int {
  kTlEntry, kTlLen, kTlLoaded, kTlSampled, kTlGuessed, kTlRestaged, kTlHist, kTlFold, kTlThreshold,
  kTlMasked, kTlSelPushed, kTlClassified, kTlRefined, kTlPublished, kTlRanked, kTlWritten, kTlPoints
};
// The classification pass (select_row step 3) may compare exact keys against two per-row key
// bounds (KeyClassifier) instead of recomputing each element's fp16 bin (the fp32 -> fp16
// conversion runs at a fraction of the ALU rate): 0 = never, 1 = streamed rows (StreamSrc, the
// re-reading sources) only, 2 = every row source. Measured on the H200 (docs/performance.md): 2
// gains 2-5 % on streamed rows and loses up to 35 % on register rows in the 32-register kernels;
// 1 gains 1-5 % on the single-CTA streamed rows (L in (16K, 32K]) and leaves the rest within noise.
// (A mode 3, keys also for the register rows of the 64-register kernels, measured no faster on
// 2026-11-29 and was removed.) The planted faults LB_NO_ULP and NEGZERO_ABOVE always use
// classify() (their fp32 boundary compare is the defect).
#ifndef DSV4_TOPK_KEY_CLASSIFY
#define DSV4_TOPK_KEY_CLASSIFY 1
#endif
#ifndef DSV4_TOPK_STREAM_BATCH  // streaming: vectors loaded per thread before they are used
#define DSV4_TOPK_STREAM_BATCH 2
#endif
constexpr int kStreamBatch = DSV4_TOPK_STREAM_BATCH;
static_assert(kStreamBatch >= 1 && kStreamBatch <= 8, "stream batch 1..8");
// ... in the main kernel's 32-register instantiations (DSV4_TOPK_MAIN_MIN_BLOCKS >= 2 CTAs/SM:
// Streaming rows, the one-read stage's rest included): 1. There a batch of 2 holds four more
// registers across the loop in a kernel that spills; H200 A/B (docs/performance.md, sixteenth
// pass): B = 512 staged rows -3.4..-8.7 % (L = 32768 k = 512 34.8 -> 33.5 us, L = 65536 k = 512
// 54.3 -> 49.6), while the 64-register kernels (wide main, clusters) keep DSV4_TOPK_STREAM_BATCH
// (1 there: B = 64 L = 131072 Cluster-2 rows +4 %).
#ifndef DSV4_TOPK_STREAM_BATCH_2CTA
#define DSV4_TOPK_STREAM_BATCH_2CTA 1
#endif
constexpr int kStreamBatch2Cta = DSV4_TOPK_STREAM_BATCH_2CTA;
static_assert(kStreamBatch2Cta >= 1 && kStreamBatch2Cta <= 8, "stream batch 1..8");
// CTAs/SM of the main kernel's launch bounds (spec: 2). 1 lifts the 32-register cap (no spills of
// the Register4 row) at half the resident rows; scripts/gpu/topk_v2_gpu.sh times both.
#ifndef DSV4_TOPK_MAIN_MIN_BLOCKS
#define DSV4_TOPK_MAIN_MIN_BLOCKS 2
#endif
// Launches of the main kernel (without the pool) whose grid fits one CTA per SM (B <= SMs) use an
// instantiation with launch bounds of 1 CTA/SM (64 registers: no spills; the occupancy is the same
// at that grid). 0 = always the DSV4_TOPK_MAIN_MIN_BLOCKS kernel (A/B switch).
#ifndef DSV4_TOPK_SMALL_GRID_WIDE
#define DSV4_TOPK_SMALL_GRID_WIDE 1
#endif
// The 1-CTA/SM (64-register) instantiation of the 8-wide cluster kernel for launches whose
// clusters are all co-resident at one CTA per SM (Sizing::P1, the occupancy query; H200 A/B: B in
// [8, 15] 4-7 % faster; DSV4_TOPK_C8_WIDE=0 turns it off).
#ifndef DSV4_TOPK_C8_WIDE
#define DSV4_TOPK_C8_WIDE 1
#endif
// ... and that instantiation holds whole-cluster rows in registers like the 16-wide kernel (H200
// A/B, sixth pass: B in [8, 15], L >= 32K -6..-10 %). 0 = streamed as in the 2-CTA/SM kernel.
#ifndef DSV4_TOPK_C8_WIDE_REG
#define DSV4_TOPK_C8_WIDE_REG 1
#endif
// Mid-batch clusters: batches above the small-batch cut whose rows exceed Register4 take a
// cluster of 4 (B <= Sizing::P1_4) or 2 (B <= Sizing::P1_2) CTAs per row at one CTA per SM
// (Cluster-4 / Cluster-2 paths; rule in decide_kernel, measured on the H200: docs/performance.md,
// sixth pass). 0 = the upstream dispatch for those batches (A/B switch).
#ifndef DSV4_TOPK_MID_CLUSTER
#define DSV4_TOPK_MID_CLUSTER 1
#endif
// Launches whose rows fit Register4 (L in (Register2, Register4], no stage) hold those rows in
// kLeanBytes of dynamic shared memory instead of registers and classify them lean (SmemSrc: one
// key compare per element against the threshold bin's first key, then only the marked lanes).
// Measured on the H200 (docs/performance.md, fifth pass). 0 = register rows.
#ifndef DSV4_TOPK_LEAN_R4
#define DSV4_TOPK_LEAN_R4 1
#endif
constexpr int kLeanBytes = kRegister4Max * 4;
// Cluster rows whose rank shares exceed Register4 but fit twice that (8 vectors per thread) are
// held in kClusterRowBytes of dynamic shared memory by the 4- and 2-wide kernels (one read, lean
// classification) instead of streamed twice (H200 A/B, sixth pass: B=64 L=65536 -14 / -22 %,
// B=16 L=131072 -16 / -17 %). 0 = streamed (A/B switch).
#ifndef DSV4_TOPK_CLUSTER_SMEM
#define DSV4_TOPK_CLUSTER_SMEM 1
#endif
// Cluster-4 / -2 rank shares between Register2 and Register4: 0 = in registers (RegSrc<4, NR>),
// 1 = in shared memory like the longer ones (SmemSrc<8, NR>; the mailbox's 64-register cluster
// kernels spill more around the register rows: docs/performance.md, twenty-eighth pass).
#ifndef DSV4_TOPK_CLUSTER_SMEM_R4
#define DSV4_TOPK_CLUSTER_SMEM_R4 1
#endif
constexpr int kClusterRowBytes = 2 * kRegister4Max * 4;
static_assert(kThreads % 32 == 0 && kThreads >= 64, "block size must be whole warps");

SIMT_HD unsigned f32_bits(float x) {
  unsigned u;
  __builtin_memcpy(&u, &x, sizeof u);
  return u;
}
SIMT_HD float f32_from_bits(unsigned u) {
  float x;
  __builtin_memcpy(&x, &u, sizeof x);
  return x;
}
// The sample suffix count the guess bin must reach: a sample of c0 of the row's nvec vectors
// expects K * c0 / nvec elements at or above the K-th; aim kStageTargetPct % of that plus
// kStageMarginSigma of its Poisson deviation (>= 1).
SIMT_HD int stage_guess_target(int K, int c0, int nvec) {
  const float base = static_cast<float>(K) * static_cast<float>(kStageTargetPct) * static_cast<float>(c0) /
                     (100.0f * static_cast<float>(nvec));
  const float t = ceilf(base + kStageMarginSigma * sqrtf(base));
  return t > 1.0f ? static_cast<int>(t) : 1;
}
// The stage's slots per thread for a launch of K and rows of at most L elements (host; the stage
// takes slots x threads x 8 bytes of dynamic shared memory): the fewest of DSV4_TOPK_STAGE_SLOTS_MIN,
// +2, ... up to DSV4_TOPK_STAGE_SLOTS that holds a normal row's staged elements with margin. A
// normal row stages about T x nvec / c0 elements (T = stage_guess_target, the sample's count above
// the guess bin's bound, extrapolated to the row) with a Poisson deviation of sqrt(T) x nvec / c0;
// the capacity covers DSV4_TOPK_STAGE_MARGIN_SIGMA of them. A smaller stage leaves more of the
// SM's 256 KB to L1, where the 32-register kernels spill (H200 A/B, fifteenth performance pass:
// this rule against the fixed 8 slots -2..-4 % on the B = 512 staged rows; 4 slots at L = 131072
// K = 2048, where this rule takes 6, overflowed on many rows: 143 vs 102 us). A row that stages
// more (ties, skewed values) overflows and is counted again: exact, slower (StagedSrc::settle).
SIMT_HD int stage_slots(int K, int L, int threads = kThreads) {
  const int nvec = L > 4 ? (L + 3) / 4 : 1, sample = kSampleVpt * threads, c0 = nvec < sample ? nvec : sample;
  const float t = static_cast<float>(stage_guess_target(K, c0, nvec));
  const float need = (t + kStageMarginSigma * sqrtf(t)) * static_cast<float>(nvec) / static_cast<float>(c0);
  int s = DSV4_TOPK_STAGE_SLOTS_MIN;
  while (s < DSV4_TOPK_STAGE_SLOTS && need > static_cast<float>(s * threads)) s += 2;
  return s < DSV4_TOPK_STAGE_SLOTS ? s : DSV4_TOPK_STAGE_SLOTS;
}
// The threshold search (find_threshold, topk_v2_threshold.cuh): 1 = the bin count a compile-time
// constant and a thread's bins read once into registers (16-byte loads: one at the GPU's 4 bins a
// thread), the hit thread scanning them there (H200 A/B, twelfth performance pass: B = 512 rows
// -3..-12 %, no row slower); 0 = the earlier code, bins summed in a loop bounded at run time and
// re-read by the hit thread (A/B switch). docs/performance.md, "Twelfth performance pass".
#ifndef DSV4_TOPK_FIND
#define DSV4_TOPK_FIND 1
#endif
SIMT_HD bool is_nan(float x) { return (f32_bits(x) & 0x7FFFFFFFu) > 0x7F800000u; }

// Padding value of lanes that hold no real element (§4.6): a quiet NaN. The planted fault
// DSV4_FAULT_TOPK_PAD_NEG_FLT_MAX restores the upstream -FLT_MAX padding (bug class 1).
SIMT_HD float pad_value() {
#if DSV4_FAULT_TOPK_PAD_NEG_FLT_MAX
  return f32_from_bits(0xFF7FFFFFu);  // -FLT_MAX
#else
  return f32_from_bits(0x7FC00000u);  // quiet NaN
#endif
}

// §4.1: fp16 RNE, sign-ordered 16-bit key.
SIMT_HD unsigned key16_of_code(unsigned h) { return (h & 0x8000u) ? (~h & 0xFFFFu) : (h | 0x8000u); }
SIMT_HD unsigned code_of_key16(unsigned k) { return (k & 0x8000u) ? (k & 0x7FFFu) : (~k & 0xFFFFu); }
SIMT_HD unsigned fp16_key16(float x) {
  return key16_of_code(static_cast<unsigned>(__half_as_ushort(__float2half_rn(x))));
}
// bin_w(x); NaN -> 2^w - 1 by the explicit rule.
SIMT_HD int coarse_bin(float x, int w) {
  if (is_nan(x)) return (1 << w) - 1;
  return static_cast<int>(fp16_key16(x) >> (16 - w));
}
// The keys of two fp16 codes held in one word (kernels/common/half_pair_keys.cuh): the
// sign-dependent XOR of key16_of_code, and the explicit NaN rule -- a code is NaN iff its
// magnitude exceeds 0x7C00 -- giving a NaN the key 0xFFFF (the top bin at both widths) whatever
// its sign and payload.
SIMT_HD unsigned key16_pair_of_codes(unsigned d) {
  const unsigned neg = top_bits_halves(d), nan = top_bits_halves(nan_halves_carry<0x3FFu>(d));
  return sign_order_halves(d, neg) | (nan * 0xFFFFu);
}
// The keys of two elements at once (low half: x0, high half: x1): one fp32x2 -> fp16x2 RNE
// conversion (an fp32 NaN converts to an fp16 NaN, a non-NaN to a non-NaN) and the above.
SIMT_HD unsigned key16_pair(float x0, float x1) {
  const __half2 h = __floats2half2_rn(x0, x1);
  unsigned d;
  __builtin_memcpy(&d, &h, sizeof d);
  return key16_pair_of_codes(d);
}
// coarse_bin of the four lanes of a vector, two conversions instead of four (the histogram passes,
// kPairBins; same bins, checked by TopkV2Keys.PairBinsAreTheBinsOfEachLane).
SIMT_HD void coarse_bins4(const float (&x)[4], int w, int (&bin)[4]) {
  const unsigned k01 = key16_pair(x[0], x[1]), k23 = key16_pair(x[2], x[3]);
  const int lo = 16 - w, hi = 32 - w;
  bin[0] = static_cast<int>((k01 & 0xFFFFu) >> lo);
  bin[1] = static_cast<int>(k01 >> hi);
  bin[2] = static_cast<int>((k23 & 0xFFFFu) >> lo);
  bin[3] = static_cast<int>(k23 >> hi);
}
// The one-read stage's filter of the rest (StagedSrc::filter_and_stage, lb = LB_w(g)): true for
// every x of bin >= g and every NaN; of the rest only -0.0 when lb is +0.0 (RNE is monotone and
// the fp32 compare puts -0 == +0) and +inf above the +inf bin (the sentinel lb = +inf). Checked against the bins: TopkV2Keys.StageFilterIsTheGuessBinAndAbove.
SIMT_HD bool stage_filter_pass(float x, float lb) { return !(x < lb); }
// §4.2 exact key: strictly increasing over non-NaN values, +0 above -0.
SIMT_HD unsigned key32(float x) {
  const unsigned u = f32_bits(x);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
SIMT_HD int inf_bin(int w) { return static_cast<int>(0xFC00u >> (16 - w)); }     // +inf bin
SIMT_HD int neg_inf_bin(int w) { return static_cast<int>(0x03FFu >> (16 - w)); } // -inf bin

// §4.5: LB_w(b) = the smallest non-NaN fp32 x with bin_w(x) >= b (-inf for b <= the -inf bin,
// the sentinel +inf above the +inf bin). The RNE midpoint of two fp16 codes is an exact tie that
// goes to the even code: when the lowest code of bin b is odd (every negative bin) the midpoint
// belongs to bin b-1 and the bound is one fp32 ulp above it.
SIMT_HD float coarse_bin_lower_bound(int b, int w) {
  const float inf = f32_from_bits(0x7F800000u);
  if (b <= neg_inf_bin(w)) return -inf;
  if (b > inf_bin(w)) return inf;
  if (b == inf_bin(w)) return 65520.0f;
  if (b == neg_inf_bin(w) + 1) return f32_from_bits(0xC77FEFFFu);  // nextafter(-65520, +inf)
  const unsigned key = static_cast<unsigned>(b) << (16 - w);
  const unsigned hi_code = code_of_key16(key), lo_code = code_of_key16(key - 1);
  const float hi = __half2float(__ushort_as_half(static_cast<unsigned short>(hi_code)));
  const float lo = __half2float(__ushort_as_half(static_cast<unsigned short>(lo_code)));
  float mid = (hi + lo) * 0.5f;  // exact: fp32 has 13 more significand bits than fp16
#if !DSV4_FAULT_TOPK_LB_NO_ULP
  if (hi_code & 1u) {  // RNE sends the tie to lo: nudge one ulp towards +inf
    const unsigned u = f32_bits(mid);
    mid = (u & 0x80000000u) ? f32_from_bits(u - 1u) : f32_from_bits(u + 1u);
  }
#endif
  return mid;
}

// §4.4 classification. 2 = ABOVE, 1 = CANDIDATE, 0 = dropped. `t` = threshold bin (-1: every
// non-NaN element is ABOVE, the short-row case). OUR rule compares recomputed integer bins.
// The planted faults LB_NO_ULP / NEGZERO_ABOVE switch to an fp32 boundary-compare realization
// (upstream style) with the respective defect (bug classes 2 and 8).
enum : int { kDrop = 0, kCand = 1, kAbove = 2 };
SIMT_HD int classify(float x, int bin, int t, int w) {
#if DSV4_FAULT_TOPK_LB_NO_ULP || DSV4_FAULT_TOPK_NEGZERO_ABOVE
  if (is_nan(x)) return kDrop;
  if (t < 0) return kAbove;
#if !DSV4_FAULT_TOPK_NEGZERO_ABOVE
  if (f32_bits(x) == 0x80000000u) return bin > t ? kAbove : (bin == t ? kCand : kDrop);
#endif
  if (bin == inf_bin(w) && t == inf_bin(w)) return kCand;  // §4.4 (c)
  const float hi = coarse_bin_lower_bound(t + 1, w), lo = coarse_bin_lower_bound(t, w);
  if (x >= hi) return kAbove;
  return x >= lo ? kCand : kDrop;
#else
  (void)x;
  (void)w;
  const int top = (1 << w) - 1;
  if (bin >= top) return kDrop;  // NaN (and padding)
  return bin > t ? kAbove : (bin == t ? kCand : kDrop);
#endif
}

// The smallest key32 of a non-NaN fp32 in bin >= b (0xFF800001, above +inf: no such value). Bins
// are non-decreasing in key32 order (fp16 RNE is monotone; -0 < +0 in both), so for non-NaN x:
// bin_w(x) >= b  <=>  key32(x) >= bin_key_floor(b, w). The bound is the §4.5 lower bound LB_w(b),
// whose key puts -0.0 below LB = +0.0 (exhaustive check: topk_v2_keys_test.cpp).
SIMT_HD unsigned bin_key_floor(int b, int w) {
  if (b > inf_bin(w)) return 0xFF800001u;
  return key32(coarse_bin_lower_bound(b, w));
}

// An 8-bit digit of key32 over the keys of one threshold bin t, [bin_key_floor(t), bin_key_floor(t
// + 1)): (key - floor) >> shift with the smallest shift that maps the bin's span into [0, 256).
// Monotone in key32 on the bin, so it is a radix digit of the candidates (rank_staged). Keys
// outside the bin (only under the planted boundary faults) are clamped into [0, 255].
struct TieDigit {
  unsigned lo = 0;
  int shift = 0;
  TieDigit() = default;
  SIMT_DEVICE TieDigit(int t, int w) : lo(bin_key_floor(t, w)) {
    const unsigned span1 = bin_key_floor(t + 1, w) - lo - 1u;  // the bin's last key - lo
    const int bits = span1 == 0u ? 0 : 32 - __clz(static_cast<int>(span1));
    shift = bits > 8 ? bits - 8 : 0;
  }
  SIMT_DEVICE int operator()(unsigned key) const {
    const unsigned d = (key - lo) >> shift;
    return d < 255u ? static_cast<int>(d) : 255;
  }
};

// §4.4 by keys, for one threshold bin t (-1: every non-NaN element is ABOVE): the same answer as
// classify(x, coarse_bin(x, w), t, w) without converting x.
struct KeyClassifier {
  unsigned lo, hi;  // candidates: lo <= key < hi; ABOVE: key >= hi
  SIMT_HD KeyClassifier(int t, int w) : lo(bin_key_floor(t, w)), hi(bin_key_floor(t + 1, w)) {}
  SIMT_HD int operator()(float x) const {
    if (is_nan(x)) return kDrop;
    const unsigned k = key32(x);
    return k >= hi ? kAbove : (k >= lo ? kCand : kDrop);
  }
};

}  // namespace dsv4::ours::topk
