/*
 * dsv4/indexer_abi.h -- the plugin ABI of the DeepSeek-V4.1 sparse-indexer harness.
 *
 * One header, plain C (C99 / C++). An implementation under test ("plugin") is a shared library
 * that exports the functions below with C linkage. The harness resolves them by name with dlsym:
 *   - REQUIRED: dsv4_abi_version, dsv4_query_capabilities.
 *   - OPTIONAL: every other function. A missing symbol means "not implemented" (a capability),
 *     never an error: cases that need it are skipped and counted.
 * The normative semantics of every entry point are the kernel specs (spec/README.md and the
 * per-family files); this header only fixes the calling convention.
 *
 * Conventions
 *   - Every tensor is a dsv4_tensor: base pointer in the plugin's memory space (CUDA device
 *     memory, or host memory for a CPU plugin such as our simt build, see
 *     dsv4_capabilities.memory_space), a dtype, rank 1 or 2, sizes and strides in ELEMENTS.
 *     The last stride must be 1 (the plugin validates it); row strides may exceed the width.
 *   - Optional tensors are passed as NULL.
 *   - `stream` is a cudaStream_t (NULL = legacy default stream); CPU plugins ignore it.
 *   - `validate` != 0 selects checked mode (host copies of per-row arrays, synchronizes,
 *     rejects out-of-contract values with DSV4_ERR_INVALID_ARGUMENT); 0 = unchecked mode
 *     (metadata checks only; device guards record per-row violations in the status block).
 *   - Every function returns a dsv4_result and, when `msg` is not NULL, writes a NUL-terminated
 *     human-readable message into msg->text ("" on success). On any error return, nothing was
 *     launched and nothing was written (spec README §4).
 *   - Thread safety: calls on one device from one host thread at a time.
 *
 * Versioning: DSV4_ABI_VERSION is bumped on every incompatible change. The harness refuses a
 * plugin whose dsv4_abi_version() differs. Structs carry `struct_size` so fields may be appended
 * compatibly.
 */
#ifndef DSV4_INDEXER_ABI_H
#define DSV4_INDEXER_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DSV4_ABI_VERSION 1u

#if defined(_WIN32)
#define DSV4_EXPORT __declspec(dllexport)
#else
#define DSV4_EXPORT __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------------------------------- */
/* Results and messages                                                                      */
/* ---------------------------------------------------------------------------------------- */
typedef enum dsv4_result {
  DSV4_OK = 0,
  DSV4_ERR_INVALID_ARGUMENT = 1,       /* a caller contract is violated (message names it) */
  DSV4_ERR_UNSUPPORTED = 2,            /* valid request this implementation does not do */
  DSV4_ERR_CUDA = 3,                   /* a CUDA API call failed (message: call and code) */
  DSV4_ERR_CLUSTERS_UNSUPPORTED = 4,   /* occupancy probe: device/build before sm_90 */
  DSV4_ERR_NO_SCHEDULABLE_CLUSTERS = 5,/* occupancy probe: the driver answered 0 */
  DSV4_ERR_INTERNAL = 6
} dsv4_result;

#define DSV4_MESSAGE_CAPACITY 512
typedef struct dsv4_message {
  char text[DSV4_MESSAGE_CAPACITY];
} dsv4_message;

/* ---------------------------------------------------------------------------------------- */
/* Tensors                                                                                   */
/* ---------------------------------------------------------------------------------------- */
typedef enum dsv4_dtype {
  DSV4_INT32 = 0,
  DSV4_FLOAT32 = 1,
  DSV4_BFLOAT16 = 2
} dsv4_dtype;

typedef struct dsv4_tensor {
  void* data;          /* base address in the plugin's memory space; may be NULL iff numel == 0 */
  int32_t dtype;       /* dsv4_dtype */
  int32_t ndim;        /* 1 or 2 */
  int64_t sizes[2];    /* sizes[1] unused when ndim == 1 */
  int64_t strides[2];  /* in elements; strides[ndim-1] must be 1 */
} dsv4_tensor;

/* ---------------------------------------------------------------------------------------- */
/* Capabilities                                                                              */
/* ---------------------------------------------------------------------------------------- */
typedef enum dsv4_memory_space {
  DSV4_MEMORY_CUDA_DEVICE = 0, /* pointers are cudaMalloc'd device memory */
  DSV4_MEMORY_HOST = 1         /* pointers are host memory (CPU implementations) */
} dsv4_memory_space;

/* Entry-point bits (dsv4_capabilities.entries); set iff the function is implemented. */
#define DSV4_ENTRY_TOPK_V2_PLAN            (1u << 0)
#define DSV4_ENTRY_TOPK_V2_PLAN_IS_WRITTEN (1u << 1)
#define DSV4_ENTRY_TOPK_V2_PAGED           (1u << 2)
#define DSV4_ENTRY_TOPK_V2_RAGGED          (1u << 3)
#define DSV4_ENTRY_TOPK_BF16_SMALL         (1u << 4)
#define DSV4_ENTRY_AMAX8_VARLEN            (1u << 5)
#define DSV4_ENTRY_SORT_CANDIDATE_BLOCKS   (1u << 6)
#define DSV4_ENTRY_MAX_ACTIVE_CLUSTERS     (1u << 7)
#define DSV4_ENTRY_CHECK_STATUS            (1u << 8)

/* Top-K v2 paged output modes (dsv4_capabilities.topk_v2_modes). */
#define DSV4_MODE_INDICES    (1u << 0) /* no page table, no raw output */
#define DSV4_MODE_PAGE_TABLE (1u << 1) /* page table, no raw output */
#define DSV4_MODE_DUAL       (1u << 2) /* page table and raw output */

/* Dispatch paths. Used for force_path (dsv4_config), the path mask of the capabilities and the
 * per-row path report (dsv4_read_row_paths). */
typedef enum dsv4_path {
  DSV4_PATH_AUTO = 0,       /* force_path only: automatic choice */
  DSV4_PATH_TRIVIAL = 1,    /* n <= K (report only) */
  DSV4_PATH_REGISTER2 = 2,
  DSV4_PATH_REGISTER4 = 3,
  DSV4_PATH_STREAMING = 4,
  DSV4_PATH_CLUSTER8 = 5,
  DSV4_PATH_CLUSTER16 = 6,
  DSV4_PATH_POOL = 7,
  DSV4_PATH_ROW_ERROR = 8,  /* report only: the row failed a device guard (codes 1-4) */
  DSV4_PATH_CLUSTER4 = 9,   /* a cluster of 4 CTAs per row (mid-size batches; added in ABI v1, */
  DSV4_PATH_CLUSTER2 = 10,  /* after the report-only values: earlier values keep their numbers) */
  DSV4_PATH_COUNT = 11
} dsv4_path;
#define DSV4_PATH_BIT(p) (1u << (p))

typedef struct dsv4_capabilities {
  uint32_t struct_size;        /* sizeof(dsv4_capabilities) as the PLUGIN knows it */
  char name[64];               /* self-reported implementation name */
  char version[64];            /* self-reported implementation version */
  int32_t memory_space;        /* dsv4_memory_space */
  uint32_t entries;            /* DSV4_ENTRY_* bits */
  uint32_t topk_v2_modes;      /* DSV4_MODE_* bits supported by the paged entry */
  uint32_t paths;              /* DSV4_PATH_BIT(p) for every Top-K v2 path that exists */
  int32_t can_force_path;      /* dsv4_config.force_path is honoured */
  int32_t nan_supported;       /* 0: NaN scores are declared out of contract (cases skipped) */
  int32_t writes_ragged_head;  /* topk_v2.md §8 compatibility mode */
  int32_t has_tunables;        /* dsv4_config tunables are honoured */
  int32_t has_row_path_report; /* dsv4_read_row_paths is meaningful */
  int32_t block_threads;       /* Top-K v2 kBlockThreads of this instantiation */
  int32_t bf16_block_threads;  /* bf16 small top-k threads per CTA */
  int32_t k_max;               /* largest K / k accepted (2048 for ours) */
  int32_t page_size_max;       /* largest page_size accepted (2^30 for ours) */
  int32_t bf16_len_max;        /* largest L of the bf16 small top-k (16384 at 512 threads) */
  int32_t candidate_capacity;  /* bitmap capacity (blocks) of sort_candidate_blocks */
  int32_t reserved[16];
} dsv4_capabilities;

/* ---------------------------------------------------------------------------------------- */
/* Configuration: the per-device snapshot of tunables, forced path and probe injections.     */
/* The harness changes it only between cases (never between a plan and its transform).       */
/* Every field < 0 means "default" unless noted.                                             */
/* ---------------------------------------------------------------------------------------- */
typedef struct dsv4_config {
  uint32_t struct_size;
  int32_t force_path;          /* dsv4_path; DSV4_PATH_AUTO (0) = automatic */
  int32_t tie_capacity;        /* kTieCapacity, 0..2048 */
  int32_t register2_max;       /* row capacity of Register2 (bounded by threads*2*4) */
  int32_t register4_max;       /* row capacity of Register4 (bounded by threads*4*4) */
  int32_t cluster_floor_small; /* F(B) for B <= small_batch_cut */
  int32_t cluster_floor_large; /* F(B) for B >  small_batch_cut */
  int32_t small_batch_cut;     /* 15 */
  int32_t cluster_max_batch;   /* 512 */
  int32_t plan_t_min;          /* 32768 */
  int32_t cluster_enable;      /* 0 = cluster paths off, 1 = on, <0 = by architecture */
  /* Probe injection (INJECT): value >= 0 replaces the probe answer (0 = "no schedulable
   * clusters"); -2 = the probe fails with a CUDA-style error; -1 = ask the device. */
  int32_t inject_probe_c8;     /* probe(8, o) used for the pool size P */
  int32_t inject_probe_c16;    /* probe(16, 1) used for C16 */
  int32_t early_read;          /* 1 = read seq_lens / plan before the PDL wait */
  int32_t mid_cluster_enable;  /* 0 = no Cluster-4 / Cluster-2 for batches above small_batch_cut
                                * (the upstream dispatch); <0 or 1 = where every cluster of the
                                * launch is co-resident (added in ABI v1 from reserved[0]) */
  int32_t rest_ring_off;       /* 1 = the one-read Streaming stage's rest walked through registers
                                * (tests); <= 0 or other = through the cp.async ring where it
                                * applies (added in ABI v1 from reserved[1]) */
  int32_t bf16_ctas_per_sm;    /* bf16 small top-k: 3 or 4 = that kernel instantiation (CTAs a SM
                                * its registers allow); other values = by batch: 4 where
                                * 3 * SMs < B <= 4 * SMs (added in ABI v1 from reserved[2]) */
  int32_t bf16_split_ranks;    /* bf16 small top-k: 1 = one CTA a row; 2 or 4 = each row split over
                                * a cluster of that many CTAs; other values = by batch: 1 in the
                                * default build (DSV4_BF16_SPLIT 0), else 4 where 4B <= 2 * SMs, 2
                                * where B <= SMs, 1 above; a forced bf16_ctas_per_sm without this
                                * field forced means 1 (added in ABI v1 from reserved[3]) */
  int32_t reserved[11];
} dsv4_config;

/* Device status block (spec README §4). code_mask bit c set iff code c was raised. */
#define DSV4_CODE_NEGATIVE_LENGTH         1
#define DSV4_CODE_LENGTH_EXCEEDS_WIDTH    2
#define DSV4_CODE_LENGTH_EXCEEDS_CAPACITY 3
#define DSV4_CODE_BAD_WINDOW_OR_OFFSET    4
#define DSV4_CODE_PAGE_ENTRY_OUT_OF_RANGE 5
#define DSV4_CODE_ID_OUT_OF_RANGE         6
#define DSV4_CODE_BAD_PLAN                7
#define DSV4_CODE_STALE_PLAN              16
#define DSV4_CODE_INCOMPLETE_TABLE        17

#define DSV4_KERNEL_TOPK_V2     1
#define DSV4_KERNEL_TOPK_BF16   2
#define DSV4_KERNEL_AMAX8       3
#define DSV4_KERNEL_CANDIDATES  4
#define DSV4_KERNEL_PLAN        5

typedef struct dsv4_device_status {
  uint32_t code_mask;  /* bit c (1..31) = code c raised since the last check */
  uint32_t count;      /* rows (codes 1-4, 16, 17), slots (5), ids (6), plan parts (7) */
  int32_t code;        /* one representative record: which one is unspecified */
  int32_t kernel;      /* DSV4_KERNEL_* */
  int32_t row;
  int32_t reserved;
  int64_t value;
} dsv4_device_status;

/* ---------------------------------------------------------------------------------------- */
/* Required                                                                                  */
/* ---------------------------------------------------------------------------------------- */
DSV4_EXPORT uint32_t dsv4_abi_version(void);
DSV4_EXPORT dsv4_result dsv4_query_capabilities(dsv4_capabilities* caps, dsv4_message* msg);

/* ---------------------------------------------------------------------------------------- */
/* Optional: configuration and status                                                        */
/* ---------------------------------------------------------------------------------------- */
/* Replace the configuration snapshot (NULL or all-default = defaults). */
DSV4_EXPORT dsv4_result dsv4_set_config(const dsv4_config* cfg, dsv4_message* msg);
/* Synchronize `stream`, copy the status block to *out and clear it (spec README §4). */
DSV4_EXPORT dsv4_result dsv4_check_status(void* stream, dsv4_device_status* out, dsv4_message* msg);
/* After the last Top-K v2 transform on `stream`: the dsv4_path taken by each of its first
 * `rows` rows (host array). Optional hook; fed to the fuzzer as coverage. */
DSV4_EXPORT dsv4_result dsv4_read_row_paths(void* stream, int32_t* host_paths, int64_t rows,
                                            dsv4_message* msg);

/* ---------------------------------------------------------------------------------------- */
/* Optional: entry points (spec files named in brackets)                                     */
/* ---------------------------------------------------------------------------------------- */
/* [topk_v2.md §2.1] metadata: int32 [B+1, 2]. static_threshold < 0: heuristic. */
DSV4_EXPORT dsv4_result dsv4_topk_v2_plan(const dsv4_tensor* seq_lens, dsv4_tensor* metadata,
                                          int32_t static_threshold, void* stream, int32_t validate,
                                          dsv4_message* msg);
/* [topk_v2.md §2.2] host-only; *written = 1 iff dsv4_topk_v2_plan writes for this batch size. */
DSV4_EXPORT dsv4_result dsv4_topk_v2_plan_is_written(int64_t batch, int32_t* written,
                                                     dsv4_message* msg);
/* [topk_v2.md §2.3] page_table / out_raw_indices may be NULL (mode table). metadata may be NULL
 * when plan_is_written(B) is false. */
DSV4_EXPORT dsv4_result dsv4_topk_v2_transform_paged(
    const dsv4_tensor* scores, const dsv4_tensor* seq_lens, const dsv4_tensor* page_table,
    dsv4_tensor* out_page_indices, int64_t page_size, const dsv4_tensor* metadata,
    dsv4_tensor* out_raw_indices, void* stream, int32_t validate, dsv4_message* msg);
/* [topk_v2.md §2.4] row_starts may be NULL (all 0). */
DSV4_EXPORT dsv4_result dsv4_topk_v2_transform_ragged(
    const dsv4_tensor* scores, const dsv4_tensor* seq_lens, const dsv4_tensor* out_offsets,
    const dsv4_tensor* row_starts, dsv4_tensor* out_indices, void* stream, int32_t validate,
    dsv4_message* msg);
/* [topk_bf16_small.md §2] k = out_page_indices->sizes[1]. */
DSV4_EXPORT dsv4_result dsv4_topk_bf16_small_transform(
    const dsv4_tensor* scores, const dsv4_tensor* seq_lens, const dsv4_tensor* page_table,
    dsv4_tensor* out_page_indices, int64_t page_size, void* stream, int32_t validate,
    dsv4_message* msg);
/* [block_amax.md §2] */
DSV4_EXPORT dsv4_result dsv4_amax8_varlen(const dsv4_tensor* scores, const dsv4_tensor* seq_lens,
                                          dsv4_tensor* out, int32_t topk, void* stream,
                                          int32_t validate, dsv4_message* msg);
/* [candidate_block_table.md §2] blocks is IN/OUT. */
DSV4_EXPORT dsv4_result dsv4_sort_candidate_blocks(dsv4_tensor* blocks, const dsv4_tensor* seq_lens,
                                                   const dsv4_tensor* page_table, int64_t page_size,
                                                   dsv4_tensor* out_pages, void* stream,
                                                   int32_t validate, dsv4_message* msg);
/* [occupancy_probe.md §1] host query; *out >= 1 on success. */
DSV4_EXPORT dsv4_result dsv4_get_max_active_clusters(int32_t cluster_size, int32_t occupancy,
                                                     int32_t* out, dsv4_message* msg);

/* Function-pointer types, for loaders (one per exported symbol). */
typedef uint32_t (*dsv4_abi_version_fn)(void);
typedef dsv4_result (*dsv4_query_capabilities_fn)(dsv4_capabilities*, dsv4_message*);
typedef dsv4_result (*dsv4_set_config_fn)(const dsv4_config*, dsv4_message*);
typedef dsv4_result (*dsv4_check_status_fn)(void*, dsv4_device_status*, dsv4_message*);
typedef dsv4_result (*dsv4_read_row_paths_fn)(void*, int32_t*, int64_t, dsv4_message*);
typedef dsv4_result (*dsv4_topk_v2_plan_fn)(const dsv4_tensor*, dsv4_tensor*, int32_t, void*,
                                            int32_t, dsv4_message*);
typedef dsv4_result (*dsv4_topk_v2_plan_is_written_fn)(int64_t, int32_t*, dsv4_message*);
typedef dsv4_result (*dsv4_topk_v2_transform_paged_fn)(const dsv4_tensor*, const dsv4_tensor*,
                                                       const dsv4_tensor*, dsv4_tensor*, int64_t,
                                                       const dsv4_tensor*, dsv4_tensor*, void*,
                                                       int32_t, dsv4_message*);
typedef dsv4_result (*dsv4_topk_v2_transform_ragged_fn)(const dsv4_tensor*, const dsv4_tensor*,
                                                        const dsv4_tensor*, const dsv4_tensor*,
                                                        dsv4_tensor*, void*, int32_t,
                                                        dsv4_message*);
typedef dsv4_result (*dsv4_topk_bf16_small_transform_fn)(const dsv4_tensor*, const dsv4_tensor*,
                                                         const dsv4_tensor*, dsv4_tensor*, int64_t,
                                                         void*, int32_t, dsv4_message*);
typedef dsv4_result (*dsv4_amax8_varlen_fn)(const dsv4_tensor*, const dsv4_tensor*, dsv4_tensor*,
                                            int32_t, void*, int32_t, dsv4_message*);
typedef dsv4_result (*dsv4_sort_candidate_blocks_fn)(dsv4_tensor*, const dsv4_tensor*,
                                                     const dsv4_tensor*, int64_t, dsv4_tensor*,
                                                     void*, int32_t, dsv4_message*);
typedef dsv4_result (*dsv4_get_max_active_clusters_fn)(int32_t, int32_t, int32_t*, dsv4_message*);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DSV4_INDEXER_ABI_H */
