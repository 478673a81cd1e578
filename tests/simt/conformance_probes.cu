// tests/simt/conformance_probes.cu -- probe kernels for the emulator conformance suite, written
// only against simt/portable.h. Compiled twice: by nvcc into simt_conformance_gpu (writes the
// expected dumps on the H200: scripts/gpu/simt_conformance.sh) and, included by
// conformance_test.cpp, by the host compiler against simt/ (compared byte for byte).
// Every probe avoids undefined behaviour (shuffle sources stay inside the mask, atomics only
// dump order-independent results) so the GPU answer is the specification.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "simt/portable.h"

namespace probes {

// ------------------------------------------------------------------------------------------
// warp shuffles: blockIdx.x encodes (mode, width, arg, mask kind); one warp per block
constexpr int kShflModes = 4, kWidths = 6, kArgs = 9, kMaskKinds = 3;
constexpr int kShflConfigs = kShflModes * kWidths * kArgs * kMaskKinds;
SIMT_HD int shfl_width(int i) { return 1 << i; }  // 1..32
SIMT_HD int shfl_arg(int i) {
  const int a[kArgs] = {0, 1, 2, 3, 5, 16, 31, 33, 7};
  return a[i];
}
// Masks made of whole width-segments, so every valid source lane stays inside the mask.
SIMT_HD unsigned shfl_mask(int kind, int width) {
  if (kind == 0) return 0xffffffffu;
  unsigned seg = width == 32 ? 0xffffffffu : ((1u << width) - 1u);
  unsigned m = 0;
  for (int s = 0; s < 32; s += width)
    if (((s / width) % 2 == 0) == (kind == 1)) m |= seg << s;
  return m ? m : 0xffffffffu;
}

SIMT_KERNEL void probe_shfl(unsigned* out) {
  const int cfg = static_cast<int>(blockIdx.x);
  const int mode = cfg % kShflModes;
  const int width = shfl_width((cfg / kShflModes) % kWidths);
  int arg = shfl_arg((cfg / (kShflModes * kWidths)) % kArgs);
  const int mkind = cfg / (kShflModes * kWidths * kArgs);
  const unsigned mask = shfl_mask(mkind, width);
  const unsigned lane = threadIdx.x;
  if (mode == 3 && mkind != 0) arg &= width - 1;  // xor beyond the segment would leave the mask
  unsigned v = (lane * 0x01010101u) ^ 0xA5000000u ^ static_cast<unsigned>(cfg << 8);
  unsigned r = 0xDEADBEEFu;
  if ((mask >> lane) & 1u) {
    switch (mode) {
      case 0: r = __shfl_sync(mask, v, arg, width); break;
      case 1: r = __shfl_up_sync(mask, v, static_cast<unsigned>(arg), width); break;
      case 2: r = __shfl_down_sync(mask, v, static_cast<unsigned>(arg), width); break;
      default: r = __shfl_xor_sync(mask, v, arg, width); break;
    }
  }
  out[cfg * 32 + lane] = r;
}

// 64-bit, float and 16-bit shuffles (full mask), all modes and widths, arg = 3.
SIMT_KERNEL void probe_shfl_types(unsigned long long* out) {
  const int cfg = static_cast<int>(blockIdx.x);  // mode * 6 + width index
  const int mode = cfg % 4;
  const int width = 1 << (cfg / 4);
  const unsigned lane = threadIdx.x;
  const unsigned m = 0xffffffffu;
  double d = 1.5 * lane - 7.25;
  unsigned long long u = 0x0123456789ABCDEFull * (lane + 1);
  float f = 0.5f * lane + 0.125f;
  __half h = __float2half_rn(0.25f * lane - 2.0f);
  __nv_bfloat16 b = __float2bfloat16_rn(3.0f * lane + 0.5f);
  double rd = 0;
  unsigned long long ru = 0;
  float rf = 0;
  __half rh = h;
  __nv_bfloat16 rb = b;
  switch (mode) {
    case 0: rd = __shfl_sync(m, d, 3, width); ru = __shfl_sync(m, u, 3, width); rf = __shfl_sync(m, f, 3, width);
            rh = __shfl_sync(m, h, 3, width); rb = __shfl_sync(m, b, 3, width); break;
    case 1: rd = __shfl_up_sync(m, d, 3, width); ru = __shfl_up_sync(m, u, 3, width); rf = __shfl_up_sync(m, f, 3, width);
            rh = __shfl_up_sync(m, h, 3, width); rb = __shfl_up_sync(m, b, 3, width); break;
    case 2: rd = __shfl_down_sync(m, d, 3, width); ru = __shfl_down_sync(m, u, 3, width); rf = __shfl_down_sync(m, f, 3, width);
            rh = __shfl_down_sync(m, h, 3, width); rb = __shfl_down_sync(m, b, 3, width); break;
    default: rd = __shfl_xor_sync(m, d, 3, width); ru = __shfl_xor_sync(m, u, 3, width); rf = __shfl_xor_sync(m, f, 3, width);
             rh = __shfl_xor_sync(m, h, 3, width); rb = __shfl_xor_sync(m, b, 3, width); break;
  }
  unsigned long long* o = out + (cfg * 32 + lane) * 4;
  o[0] = static_cast<unsigned long long>(__double_as_longlong(rd));
  o[1] = ru;
  o[2] = __float_as_uint(rf);
  o[3] = (static_cast<unsigned long long>(__half_as_ushort(rh)) << 16) | __bfloat16_as_ushort(rb);
}

// ------------------------------------------------------------------------------------------
// votes, match, reduce with partial masks: blockIdx.x = mask index * kPreds + predicate index
constexpr int kVoteMasks = 8, kPreds = 6, kVoteOut = 16;
SIMT_HD unsigned vote_mask(int i) {
  const unsigned m[kVoteMasks] = {0xffffffffu, 0x0000ffffu, 0xffff0000u, 0x55555555u,
                                  0x80000001u, 0x00000001u, 0x7fffffffu, 0x0f0f0f0fu};
  return m[i];
}
SIMT_HD int vote_pred(int p, unsigned lane) {
  switch (p) {
    case 0: return lane % 2;
    case 1: return lane % 3 == 0;
    case 2: return lane > 10 ? 7 : 0;
    case 3: return 1;
    case 4: return 0;
    default: return lane == 31;
  }
}
SIMT_KERNEL void probe_vote(unsigned* out) {
  const int cfg = static_cast<int>(blockIdx.x);
  const unsigned mask = vote_mask(cfg / kPreds);
  const int p = cfg % kPreds;
  const unsigned lane = threadIdx.x;
  unsigned* o = out + (cfg * 32 + lane) * kVoteOut;
  for (int i = 0; i < kVoteOut; ++i) o[i] = 0xDEADBEEFu;
  if (!((mask >> lane) & 1u)) return;
  const int pred = vote_pred(p, lane);
  const unsigned key = (lane * 7u + static_cast<unsigned>(p)) % (static_cast<unsigned>(p) + 2u);
  const unsigned uval = lane * 2654435761u ^ static_cast<unsigned>(cfg * 977);
  const int sval = static_cast<int>(uval) >> (p % 4);
  o[0] = __ballot_sync(mask, pred);
  o[1] = static_cast<unsigned>(__any_sync(mask, pred));
  o[2] = static_cast<unsigned>(__all_sync(mask, pred));
  o[3] = __match_any_sync(mask, key);
  int mp = -1;
  o[4] = __match_all_sync(mask, p == 3 ? 5u : key, &mp);
  o[5] = static_cast<unsigned>(mp);
  o[6] = __reduce_add_sync(mask, uval);
  o[7] = __reduce_min_sync(mask, uval);
  o[8] = __reduce_max_sync(mask, uval);
  o[9] = static_cast<unsigned>(__reduce_min_sync(mask, sval));
  o[10] = static_cast<unsigned>(__reduce_max_sync(mask, sval));
  o[11] = __reduce_and_sync(mask, uval | 0x10000000u);
  o[12] = __reduce_or_sync(mask, uval & 0xF0F0F0F0u);
  o[13] = __reduce_xor_sync(mask, uval);
  o[14] = static_cast<unsigned>(__reduce_add_sync(mask, sval));
  unsigned long long key64 = (static_cast<unsigned long long>(key) << 40) | 0x5ull;
  o[15] = __match_any_sync(mask, key64);
}

// Disjoint divergent groups proceed independently (lanes 0-15 shuffle, 16-31 vote).
SIMT_KERNEL void probe_divergent(unsigned* out) {
  const unsigned lane = threadIdx.x;
  unsigned acc = lane;
  if (lane < 16) {
    for (int i = 0; i < 4; ++i) acc += __shfl_xor_sync(0x0000ffffu, acc, 1 << i);
  } else {
    for (int i = 0; i < 4; ++i) acc ^= __ballot_sync(0xffff0000u, ((acc >> i) & 1u) != 0);
  }
  __syncwarp();
  out[lane] = acc;
  out[32 + lane] = __ballot_sync(0xffffffffu, acc & 1u);
}

// ------------------------------------------------------------------------------------------
// block barriers: __syncthreads_count/_and/_or on a 3-D block, several predicate patterns
SIMT_KERNEL void probe_barrier(int* out) {
  const unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int* o = out + (blockIdx.x * (blockDim.x * blockDim.y * blockDim.z) + t) * 8;
  o[0] = __syncthreads_count(t % 3 == 0);
  o[1] = __syncthreads_and(t < 1000);
  o[2] = __syncthreads_and(t != 17);
  o[3] = __syncthreads_or(t == 95);
  o[4] = __syncthreads_or(0);
  o[5] = __syncthreads_count(static_cast<int>(blockIdx.x) == 1 ? 1 : (t & 1));
  auto block = simt_cg::this_thread_block();
  block.sync();
  o[6] = static_cast<int>(block.thread_rank());
  __syncthreads();
  o[7] = __syncthreads_count(threadIdx.y == 2);
}

// ------------------------------------------------------------------------------------------
// atomics on global and shared memory: only order-independent results are dumped
struct AtomicCells {
  int i_add, i_sub, i_min, i_max, i_and, i_or, i_xor, i_exch_sum, i_cas;
  unsigned u_add, u_sub, u_min, u_max, u_and, u_or, u_xor, u_inc, u_dec, u_exch_sum, pad0;
  unsigned long long ull_add, ull_min, ull_max, ull_and, ull_or, ull_xor, ull_cas;
  long long ll_min, ll_max;
  float f_add, pad1;
  double d_add;
};
SIMT_DEVICE void atomic_round(AtomicCells* c, unsigned g) {
  const int s = static_cast<int>(g * 2654435761u >> 7) - 0x00800000;
  atomicAdd(&c->i_add, s);
  atomicSub(&c->i_sub, s);
  atomicMin(&c->i_min, s);
  atomicMax(&c->i_max, s);
  atomicAnd(&c->i_and, ~(1 << (g % 31)));
  atomicOr(&c->i_or, 1 << (g % 29));
  atomicXor(&c->i_xor, s);
  const int old = atomicExch(&c->i_exch_sum, static_cast<int>(g));
  atomicAdd(&c->u_exch_sum, static_cast<unsigned>(old));
  int seen = c->i_cas, prev;
  do { prev = seen; seen = atomicCAS(&c->i_cas, prev, prev + 3); } while (seen != prev);
  const unsigned u = g * 40503u;
  atomicAdd(&c->u_add, u);
  atomicSub(&c->u_sub, u);
  atomicMin(&c->u_min, u ^ 0x80000000u);
  atomicMax(&c->u_max, u);
  atomicAnd(&c->u_and, ~(1u << (g % 32)));
  atomicOr(&c->u_or, 1u << (g % 27));
  atomicXor(&c->u_xor, u);
  atomicInc(&c->u_inc, 37u);
  atomicDec(&c->u_dec, 41u);
  const unsigned long long w = 0x9E3779B97F4A7C15ull * (g + 1);
  atomicAdd(&c->ull_add, w);
  atomicMin(&c->ull_min, w);
  atomicMax(&c->ull_max, w);
  atomicAnd(&c->ull_and, ~(1ull << (g % 64)));
  atomicOr(&c->ull_or, 1ull << (g % 61));
  atomicXor(&c->ull_xor, w);
  unsigned long long useen = c->ull_cas, uprev;
  do { uprev = useen; useen = atomicCAS(&c->ull_cas, uprev, uprev + 5); } while (useen != uprev);
  atomicMin(&c->ll_min, static_cast<long long>(w));
  atomicMax(&c->ll_max, static_cast<long long>(w));
  atomicAdd(&c->f_add, static_cast<float>(g % 64) * 0.25f);   // exact: order-independent
  atomicAdd(&c->d_add, static_cast<double>(g % 1000) * 0.5);
}
SIMT_DEVICE void atomic_init(AtomicCells* c) {
  c->i_add = 5; c->i_sub = -3; c->i_min = 0x7fffffff; c->i_max = -0x7fffffff; c->i_and = -1; c->i_or = 0;
  c->i_xor = 0x1234; c->i_exch_sum = 0; c->i_cas = 0;
  c->u_add = 1; c->u_sub = 0; c->u_min = 0xffffffffu; c->u_max = 0; c->u_and = 0xffffffffu; c->u_or = 0;
  c->u_xor = 0; c->u_inc = 0; c->u_dec = 0; c->u_exch_sum = 0; c->pad0 = 0; c->pad1 = 0.0f;
  c->ull_add = 0; c->ull_min = ~0ull; c->ull_max = 0; c->ull_and = ~0ull; c->ull_or = 0; c->ull_xor = 0;
  c->ull_cas = 0; c->ll_min = 0x7fffffffffffffffll; c->ll_max = -0x7fffffffffffffffll; c->f_add = 0.0f;
  c->d_add = 0.0;
}
SIMT_KERNEL void probe_atomics(AtomicCells* global_cells, AtomicCells* shared_out) {
  SIMT_SHARED(AtomicCells, cells, );
  if (threadIdx.x == 0) atomic_init(&cells);
  __syncthreads();
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  atomic_round(global_cells, g);
  atomic_round(&cells, g);
  __syncthreads();
  if (threadIdx.x == 0) {
    cells.u_exch_sum += static_cast<unsigned>(cells.i_exch_sum);  // returns + final: order-free
    cells.i_exch_sum = 0;
    shared_out[blockIdx.x] = cells;
  }
}

// ------------------------------------------------------------------------------------------
// dynamic shared memory: alignment, byte pattern through a barrier, typed views
SIMT_KERNEL void probe_dyn_smem(unsigned* out, unsigned bytes) {
  SIMT_DYN_SHARED(unsigned char, raw);
  const unsigned t = threadIdx.x;
  for (unsigned i = t; i < bytes; i += blockDim.x) raw[i] = static_cast<unsigned char>((i * 31u + blockIdx.x) & 0xFF);
  __syncthreads();
  unsigned acc = static_cast<unsigned>(reinterpret_cast<uintptr_t>(raw) % 16);
  for (unsigned i = t; i < bytes; i += blockDim.x) acc = acc * 131u + raw[bytes - 1 - i];
  const unsigned* words = reinterpret_cast<const unsigned*>(raw);
  out[blockIdx.x * blockDim.x + t] = acc ^ words[t % (bytes / 4)];
}

// ------------------------------------------------------------------------------------------
// cluster DSMEM exchange: clusters of 4 (static + dynamic shared memory), rank queries
SIMT_KERNEL void probe_cluster(int* out) {
  SIMT_SHARED(int, mine, [64]);
  SIMT_DYN_SHARED(int, dyn);
  auto cluster = simt_cg::this_cluster();
  const unsigned r = cluster.block_rank();
  const unsigned t = threadIdx.x;
  mine[t] = static_cast<int>(blockIdx.x * 1000 + t);
  dyn[t] = static_cast<int>(r * 77 + t * 3);
  cluster.sync();
  const unsigned n = cluster.num_blocks();
  int* next = cluster.map_shared_rank(&mine[0], (r + 1) % n);
  int* prev = cluster.map_shared_rank(dyn, (r + n - 1) % n);
  int* o = out + (blockIdx.x * blockDim.x + t) * 8;
  o[0] = next[(t + 5) % 64];
  o[1] = prev[t];
  o[2] = static_cast<int>(r);
  o[3] = static_cast<int>(n);
  o[4] = static_cast<int>(cluster.dim_blocks().x * 100 + cluster.dim_blocks().y * 10 + cluster.dim_blocks().z);
  o[5] = static_cast<int>(cluster.block_index().x);
  cluster.barrier_arrive();
  o[6] = static_cast<int>(cluster.thread_rank());
  cluster.barrier_wait();
  if (t == 0) atomicAdd(cluster.map_shared_rank(&mine[0], 0), 1);
  cluster.sync();
  o[7] = mine[0];
  cluster.sync();
}

// ------------------------------------------------------------------------------------------
// fp16 / bf16 conversions and device-only functions (grid-stride loops)
SIMT_KERNEL void probe_half_all(unsigned* out) {  // all 65536 patterns -> 8 words each
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < 65536u; i += gridDim.x * blockDim.x) {
    const __half h = __ushort_as_half(static_cast<unsigned short>(i));
    const __nv_bfloat16 b = __ushort_as_bfloat16(static_cast<unsigned short>(i));
    unsigned* o = out + i * 8;
    o[0] = __float_as_uint(__half2float(h));
    o[1] = __float_as_uint(__bfloat162float(b));
    o[2] = static_cast<unsigned>(__half2int_rn(h));
    o[3] = static_cast<unsigned>(__half2int_rd(h));
    o[4] = static_cast<unsigned>(__half2int_ru(h));
    o[5] = static_cast<unsigned>(__half2int_rz(h));
    o[6] = static_cast<unsigned>(__bfloat162int_rn(b));
    o[7] = __half2uint_rn(h);
  }
}
SIMT_KERNEL void probe_float_to_16(const unsigned* in, unsigned* out, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float f = __uint_as_float(in[i]);
    out[i * 2] = (static_cast<unsigned>(__half_as_ushort(__float2half_rn(f))) << 16) |
                 __bfloat16_as_ushort(__float2bfloat16_rn(f));
    out[i * 2 + 1] = (static_cast<unsigned>(__half_as_ushort(__float2half(f))) << 16) |
                     __bfloat16_as_ushort(__float2bfloat16_rz(f));
  }
}
SIMT_KERNEL void probe_hfma(const unsigned* in, unsigned* out, unsigned n) {  // in: 3 x u16 per item
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned short a = static_cast<unsigned short>(in[i * 2] & 0xFFFF);
    const unsigned short b = static_cast<unsigned short>(in[i * 2] >> 16);
    const unsigned short c = static_cast<unsigned short>(in[i * 2 + 1] & 0xFFFF);
    const __half hr = __hfma(__ushort_as_half(a), __ushort_as_half(b), __ushort_as_half(c));
    const __nv_bfloat16 br = __hfma(__ushort_as_bfloat16(a), __ushort_as_bfloat16(b), __ushort_as_bfloat16(c));
    out[i] = (static_cast<unsigned>(__half_as_ushort(hr)) << 16) | __bfloat16_as_ushort(br);
  }
}
SIMT_KERNEL void probe_int_intrinsics(const unsigned* in, unsigned* out, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned x = in[i], y = in[(i + 1) % n];
    const unsigned long long xl = (static_cast<unsigned long long>(x) << 32) | y;
    const float f = __uint_as_float(x), g = __uint_as_float(y);
    unsigned* o = out + i * 16;
    o[0] = static_cast<unsigned>(__popc(x));
    o[1] = static_cast<unsigned>(__clz(static_cast<int>(x)));
    o[2] = static_cast<unsigned>(__ffs(static_cast<int>(x)));
    o[3] = __brev(x);
    o[4] = __byte_perm(x, y, y & 0x7777u);
    o[5] = __funnelshift_l(x, y, y) ^ __funnelshift_r(y, x, x);
    o[6] = __umulhi(x, y);
    o[7] = static_cast<unsigned>(__float2int_rn(f));
    o[8] = static_cast<unsigned>(__float2int_rd(f) ^ __float2int_ru(f) ^ __float2int_rz(f));
    o[9] = __float_as_uint(__fmaf_rn(f, g, 1.0f));
    o[10] = __float2uint_rn(g);
    o[11] = static_cast<unsigned>(__popcll(xl) + 64 * __clzll(static_cast<long long>(xl)));
    o[12] = static_cast<unsigned>(__ffsll(static_cast<long long>(xl)));
    o[13] = static_cast<unsigned>(__brevll(xl) >> 13);
    o[14] = static_cast<unsigned>(max(static_cast<int>(x), static_cast<int>(y)) ^ min(x, y));
    o[15] = __float_as_uint(fmaxf(f, g)) ^ __float_as_uint(__int2float_rn(static_cast<int>(x)));
  }
}


// ------------------------------------------------------------------------------------------
// driver: runs every probe through simt::rt and returns named byte records
struct Record {
  std::string name;
  std::vector<unsigned char> bytes;
};

inline uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline std::vector<unsigned> float_inputs() {
  std::vector<unsigned> v = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u,
                             0x7f800001u, 0x7fbfffffu, 0x477fe000u, 0x477fefffu, 0x477ff000u, 0x477ff001u,
                             0xc77ff000u, 0x33800000u, 0x33000000u, 0x33000001u, 0xb3000000u, 0x33c00000u,
                             0x387fc000u, 0x38800000u, 0x387fe000u, 0x3f808000u, 0x3f818000u, 0x3f808001u,
                             0x7f7fffffu, 0xff7fffffu, 0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u,
                             0x3f800000u, 0xbf800000u, 0x7f7f8000u, 0x7f7f7fffu, 0x3fffe000u, 0x3fffefffu};
  uint64_t s = 0x5EED0001;
  for (int i = 0; i < (1 << 19); ++i) v.push_back(static_cast<unsigned>(splitmix(s)));
  for (int i = 0; i < (1 << 17); ++i) {  // values near half/bf16 rounding boundaries
    uint64_t r = splitmix(s);
    unsigned h = static_cast<unsigned>(r & 0x7FFF) | (static_cast<unsigned>(r >> 16) & 0x8000u);
    const int e = static_cast<int>((h >> 10) & 31);
    unsigned f;
    if (e == 31) continue;
    if (e == 0) f = static_cast<unsigned>((h & 0x8000u) << 16);
    else f = ((h & 0x8000u) << 16) | (static_cast<unsigned>(e - 15 + 127) << 23) | ((h & 0x3FFu) << 13);
    const unsigned delta[6] = {0x1000u, 0xFFFu, 0x1001u, 0x2000u, 1u, 0x3000u};
    v.push_back(f + delta[(r >> 32) % 6]);
    v.push_back((static_cast<unsigned>(r >> 40) & 0xFFFF0000u) | 0x8000u | (static_cast<unsigned>(r >> 36) & 1u));
  }
  return v;
}

inline std::vector<unsigned> hfma_inputs() {
  std::vector<unsigned> v;
  uint64_t s = 0x5EED0002;
  for (int i = 0; i < (1 << 18); ++i) {
    uint64_t r = splitmix(s);
    unsigned a = static_cast<unsigned>(r & 0xFFFF), b = static_cast<unsigned>((r >> 16) & 0xFFFF);
    unsigned c = static_cast<unsigned>((r >> 32) & 0xFFFF);
    if (i % 4 == 1) a = (a & 0x83FFu) | 0x3C00u;                  // |a| in [1, 2)
    if (i % 4 == 2) { a = (a & 0xBFFFu) | 0x3000u; b = (b & 0xBFFFu) | 0x3000u; c ^= 0x8000u; }
    if (i % 4 == 3) c = (a ^ 0x8000u);                             // cancellation
    v.push_back(a | (b << 16));
    v.push_back(c);
  }
  return v;
}

template <typename T>
inline bool fetch(std::vector<Record>& recs, const char* name, const T* dev, size_t count) {
  Record r;
  r.name = name;
  r.bytes.resize(count * sizeof(T));
  if (simt::rt::memcpy_d2h(r.bytes.data(), dev, r.bytes.size(), nullptr) != simt::rt::kSuccess) return false;
  recs.push_back(std::move(r));
  return true;
}

template <typename T>
inline T* dalloc(size_t count) {
  void* p = nullptr;
  if (simt::rt::device_malloc(&p, count * sizeof(T)) != simt::rt::kSuccess) return nullptr;
  simt::rt::memset_async(p, 0, count * sizeof(T), nullptr);
  return static_cast<T*>(p);
}

#define PROBE_CHECK(x)                                                                        \
  do {                                                                                        \
    simt::rt::error_t e_ = (x);                                                               \
    if (e_ != simt::rt::kSuccess) {                                                           \
      std::fprintf(stderr, "probe step failed: %s -> %s\n", #x, simt::rt::error_string(e_));  \
      return false;                                                                           \
    }                                                                                         \
  } while (0)

// Runs every probe; `group` selects "warp", "block" or "numeric" ("" = all).
inline bool run_probes(std::vector<Record>& recs, const std::string& group = "") {
  using simt::rt::LaunchConfig;
  const bool all = group.empty();
  if (all || group == "warp") {
    LaunchConfig c;
    c.block = dim3(32);
    unsigned* o = dalloc<unsigned>(kShflConfigs * 32);
    c.grid = dim3(kShflConfigs);
    PROBE_CHECK(simt::rt::launch(c, probe_shfl, o));
    PROBE_CHECK(simt::rt::stream_sync(nullptr));
    if (!fetch(recs, "shfl", o, kShflConfigs * 32)) return false;
    unsigned long long* o64 = dalloc<unsigned long long>(24 * 32 * 4);
    c.grid = dim3(24);
    PROBE_CHECK(simt::rt::launch(c, probe_shfl_types, o64));
    PROBE_CHECK(simt::rt::stream_sync(nullptr));
    if (!fetch(recs, "shfl_types", o64, 24 * 32 * 4)) return false;
    unsigned* ov = dalloc<unsigned>(kVoteMasks * kPreds * 32 * kVoteOut);
    c.grid = dim3(kVoteMasks * kPreds);
    PROBE_CHECK(simt::rt::launch(c, probe_vote, ov));
    PROBE_CHECK(simt::rt::stream_sync(nullptr));
    if (!fetch(recs, "vote_match_reduce", ov, kVoteMasks * kPreds * 32 * kVoteOut)) return false;
    unsigned* od = dalloc<unsigned>(64);
    c.grid = dim3(1);
    PROBE_CHECK(simt::rt::launch(c, probe_divergent, od));
    PROBE_CHECK(simt::rt::stream_sync(nullptr));
    if (!fetch(recs, "divergent_groups", od, 64)) return false;
    simt::rt::device_free(o);
    simt::rt::device_free(o64);
    simt::rt::device_free(ov);
    simt::rt::device_free(od);
  }
  if (all || group == "block") {
    LaunchConfig c;
    c.grid = dim3(3);
    c.block = dim3(8, 4, 3);
    int* ob = dalloc<int>(3 * 96 * 8);
    PROBE_CHECK(simt::rt::launch(c, probe_barrier, ob));
    PROBE_CHECK(simt::rt::stream_sync(nullptr));
    if (!fetch(recs, "barrier", ob, 3 * 96 * 8)) return false;

    AtomicCells* gc = dalloc<AtomicCells>(1);
    AtomicCells* sc = dalloc<AtomicCells>(4);
    AtomicCells init;
    std::memset(&init, 0, sizeof init);
    init.i_add = 5; init.i_sub = -3; init.i_min = 0x7fffffff; init.i_max = -0x7fffffff; init.i_and = -1;
    init.i_xor = 0x1234; init.u_add = 1; init.u_min = 0xffffffffu; init.u_and = 0xffffffffu;
    init.ull_min = ~0ull; init.ull_and = ~0ull; init.ll_min = 0x7fffffffffffffffll;
    init.ll_max = -0x7fffffffffffffffll;
    PROBE_CHECK(simt::rt::memcpy_h2d(gc, &init, sizeof init, nullptr));
    c.grid = dim3(4);
    c.block = dim3(128);
    PROBE_CHECK(simt::rt::launch(c, probe_atomics, gc, sc));
    PROBE_CHECK(simt::rt::stream_sync(nullptr));
    AtomicCells got;
    PROBE_CHECK(simt::rt::memcpy_d2h(&got, gc, sizeof got, nullptr));
    got.u_exch_sum += static_cast<unsigned>(got.i_exch_sum);
    got.i_exch_sum = 0;
    PROBE_CHECK(simt::rt::memcpy_h2d(gc, &got, sizeof got, nullptr));
    if (!fetch(recs, "atomics_global", gc, 1)) return false;
    if (!fetch(recs, "atomics_shared", sc, 4)) return false;

    unsigned* odyn = dalloc<unsigned>(3 * 96);
    c.grid = dim3(3);
    c.block = dim3(96);
    c.dynamic_smem = 3000;
    PROBE_CHECK(simt::rt::launch(c, probe_dyn_smem, odyn, 3000u));
    PROBE_CHECK(simt::rt::stream_sync(nullptr));
    if (!fetch(recs, "dynamic_smem", odyn, 3 * 96)) return false;

    int* ocl = dalloc<int>(8 * 64 * 8);
    c.grid = dim3(8);
    c.block = dim3(64);
    c.cluster = dim3(4);
    c.dynamic_smem = 64 * sizeof(int);
    PROBE_CHECK(simt::rt::launch(c, probe_cluster, ocl));
    PROBE_CHECK(simt::rt::stream_sync(nullptr));
    if (!fetch(recs, "cluster_dsmem", ocl, 8 * 64 * 8)) return false;
    simt::rt::device_free(ob);
    simt::rt::device_free(gc);
    simt::rt::device_free(sc);
    simt::rt::device_free(odyn);
    simt::rt::device_free(ocl);
  }
  if (all || group == "numeric") {
    LaunchConfig c;
    c.grid = dim3(64);
    c.block = dim3(256);
    unsigned* oh = dalloc<unsigned>(65536 * 8);
    PROBE_CHECK(simt::rt::launch(c, probe_half_all, oh));
    PROBE_CHECK(simt::rt::stream_sync(nullptr));
    if (!fetch(recs, "half_bf16_all_patterns", oh, 65536 * 8)) return false;

    std::vector<unsigned> fin = float_inputs();
    const unsigned nf = static_cast<unsigned>(fin.size());
    unsigned* din = dalloc<unsigned>(nf);
    unsigned* dout = dalloc<unsigned>(nf * 2);
    PROBE_CHECK(simt::rt::memcpy_h2d(din, fin.data(), nf * 4, nullptr));
    PROBE_CHECK(simt::rt::launch(c, probe_float_to_16, static_cast<const unsigned*>(din), dout, nf));
    PROBE_CHECK(simt::rt::stream_sync(nullptr));
    if (!fetch(recs, "float_to_half_bf16", dout, nf * 2)) return false;
    unsigned* dint = dalloc<unsigned>(static_cast<size_t>(4096) * 16);
    PROBE_CHECK(simt::rt::launch(c, probe_int_intrinsics, static_cast<const unsigned*>(din), dint, 4096u));
    PROBE_CHECK(simt::rt::stream_sync(nullptr));
    if (!fetch(recs, "int_float_intrinsics", dint, static_cast<size_t>(4096) * 16)) return false;

    std::vector<unsigned> hin = hfma_inputs();
    const unsigned nh = static_cast<unsigned>(hin.size() / 2);
    unsigned* dhin = dalloc<unsigned>(hin.size());
    unsigned* dhout = dalloc<unsigned>(nh);
    PROBE_CHECK(simt::rt::memcpy_h2d(dhin, hin.data(), hin.size() * 4, nullptr));
    PROBE_CHECK(simt::rt::launch(c, probe_hfma, static_cast<const unsigned*>(dhin), dhout, nh));
    PROBE_CHECK(simt::rt::stream_sync(nullptr));
    if (!fetch(recs, "hfma_half_bf16", dhout, nh)) return false;
    simt::rt::device_free(oh);
    simt::rt::device_free(din);
    simt::rt::device_free(dout);
    simt::rt::device_free(dint);
    simt::rt::device_free(dhin);
    simt::rt::device_free(dhout);
  }
  return true;
}

// File format (little endian): "SIMTPRB1", then per record: u32 name length, name, u64 size, bytes.
inline bool write_records(const std::string& path, const std::vector<Record>& recs) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  std::fwrite("SIMTPRB1", 1, 8, f);
  for (const Record& r : recs) {
    uint32_t n = static_cast<uint32_t>(r.name.size());
    uint64_t sz = r.bytes.size();
    std::fwrite(&n, 4, 1, f);
    std::fwrite(r.name.data(), 1, n, f);
    std::fwrite(&sz, 8, 1, f);
    std::fwrite(r.bytes.data(), 1, r.bytes.size(), f);
  }
  return std::fclose(f) == 0;
}

inline bool read_records(const std::string& path, std::vector<Record>& recs) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[8];
  bool ok = std::fread(magic, 1, 8, f) == 8 && std::memcmp(magic, "SIMTPRB1", 8) == 0;
  while (ok) {
    uint32_t n;
    if (std::fread(&n, 4, 1, f) != 1) break;
    Record r;
    r.name.resize(n);
    uint64_t sz = 0;
    ok = n < 4096 && std::fread(&r.name[0], 1, n, f) == n && std::fread(&sz, 8, 1, f) == 1 && sz < (1ull << 26);
    if (!ok) break;
    r.bytes.resize(sz);
    ok = std::fread(r.bytes.data(), 1, sz, f) == sz;
    recs.push_back(std::move(r));
  }
  std::fclose(f);
  return ok;
}

}  // namespace probes

#if defined(__CUDACC__)
// GPU executable: simt_conformance_gpu OUT_DIR -> OUT_DIR/simt_conformance_{warp,block,numeric}.bin
int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const char* groups[] = {"warp", "block", "numeric"};
  for (const char* g : groups) {
    std::vector<probes::Record> recs;
    if (!probes::run_probes(recs, g)) {
      std::fprintf(stderr, "probe group %s failed\n", g);
      return 1;
    }
    const std::string path = dir + "/simt_conformance_" + g + ".bin";
    if (!probes::write_records(path, recs)) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    std::printf("wrote %s (%zu probes)\n", path.c_str(), recs.size());
  }
  return 0;
}
#endif
