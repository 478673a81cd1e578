// simt/host/cluster.hpp -- simt_cg: the small cooperative-groups subset kernels use
// (this_thread_block, this_cluster) on the emulator.
#pragma once

#include "simt/host/core.hpp"

namespace simt_cg {

class thread_block {
 public:
  void sync(::simt::Site s = ::simt::Site::here()) const { ::simt::detail::block_barrier(0, 1, s); }
  unsigned thread_rank() const {
    const auto* t = ::simt::detail::cur();
    return (t->tid.z * t->bdim.y + t->tid.y) * t->bdim.x + t->tid.x;
  }
  unsigned size() const { return num_threads(); }
  unsigned num_threads() const {
    const auto* t = ::simt::detail::cur();
    return t->bdim.x * t->bdim.y * t->bdim.z;
  }
  dim3 group_index() const { const auto* t = ::simt::detail::cur(); return dim3(t->bid.x, t->bid.y, t->bid.z); }
  dim3 thread_index() const { const auto* t = ::simt::detail::cur(); return dim3(t->tid.x, t->tid.y, t->tid.z); }
  dim3 dim_threads() const { return ::simt::detail::cur()->bdim; }
};

class cluster_group {
 public:
  void sync(::simt::Site s = ::simt::Site::here()) const {
    ::simt::detail::cluster_arrive(s);
    ::simt::detail::cluster_wait(s);
  }
  void barrier_arrive(::simt::Site s = ::simt::Site::here()) const { ::simt::detail::cluster_arrive(s); }
  void barrier_wait(::simt::Site s = ::simt::Site::here()) const { ::simt::detail::cluster_wait(s); }
  template <typename T>
  T* map_shared_rank(T* addr, unsigned rank, ::simt::Site s = ::simt::Site::here()) const {
    return static_cast<T*>(::simt::detail::cluster_map_shared(addr, rank, s));
  }
  unsigned block_rank() const { return ::simt::detail::cluster_block_rank(); }
  unsigned num_blocks() const { return ::simt::detail::cluster_num_blocks(); }
  dim3 dim_blocks() const { return ::simt::detail::cluster_dims(); }
  dim3 block_index() const {
    uint3 b = ::simt::detail::cluster_block_index();
    return dim3(b.x, b.y, b.z);
  }
  unsigned thread_rank() const {
    return block_rank() * thread_block().num_threads() + thread_block().thread_rank();
  }
  unsigned num_threads() const { return num_blocks() * thread_block().num_threads(); }
  unsigned size() const { return num_threads(); }
};

inline thread_block this_thread_block() { return thread_block(); }
inline cluster_group this_cluster() { return cluster_group(); }

}  // namespace simt_cg
