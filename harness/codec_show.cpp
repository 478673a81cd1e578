// harness/codec_show.cpp -- readable text dump of a case (`dsv4-harness show`) and a one-line summary.
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "codec.hpp"

namespace dsv4::harness {
namespace {

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

template <class T> std::string list(const std::vector<T>& v, size_t max = 64) {
  std::ostringstream o;
  o << "[";
  for (size_t i = 0; i < v.size() && i < max; ++i) o << (i ? ", " : "") << v[i];
  if (v.size() > max) o << ", ... (" << v.size() << " total)";
  o << "]";
  return o.str();
}

}  // namespace

std::string summarize_case(const Case& c) {
  std::ostringstream o;
  o << kernel_name(c.kernel) << " B=" << c.shape.batch << " L=" << c.shape.width;
  if (c.shape.stride_pad) o << " S=" << row_stride(c);
  if (c.kernel != KernelId::Amax8 && c.kernel != KernelId::TopkV2Plan) o << " k=" << c.shape.k;
  if (c.kernel == KernelId::Pipeline) o << " k2=" << c.shape.k2;
  if (c.kernel == KernelId::TopkV2Paged) o << " mode=" << mode_name(c.mode);
  if (c.shape.page_size != 1) o << " page_size=" << c.shape.page_size;
  if (!c.rows.empty()) o << " dist=" << dist_name(c.rows[0].dist);
  if (c.knobs.force_path) o << " force_path=" << c.knobs.force_path;
  o << (c.knobs.validate ? " checked" : " unchecked");
  return o.str();
}

std::string show_case(const Case& c) {
  std::ostringstream o;
  const Shape& s = c.shape;
  o << "case format v" << kCaseVersion << "\n";
  o << "kernel           " << kernel_name(c.kernel) << "\n";
  o << "batch            " << s.batch << "\n";
  o << "width L          " << s.width << "\n";
  o << "row stride S     " << row_stride(c) << " (stride_pad " << s.stride_pad << ")\n";
  o << "k                " << s.k << "\n";
  if (c.kernel == KernelId::Pipeline) o << "block k (k2)     " << s.k2 << "\n";
  o << "page_size        " << s.page_size << "\n";
  o << "base_offset      " << s.base_offset << " elements\n";
  o << "width_delta      " << s.width_delta << (c.kernel == KernelId::Amax8 ? " (key width)" : " (table width)") << "\n";
  o << "out_pad          " << s.out_pad << " guard columns per output row\n";
  o << "seq_lens         " << list(c.seq_lens) << "\n";
  if (c.kernel == KernelId::TopkV2Ragged) {
    o << "row_starts       " << (c.has_row_starts ? list(c.row_starts) : std::string("absent (all 0)")) << "\n";
    o << "out_offsets      " << list(c.out_offsets) << "\n";
  }
  o << "mode             " << mode_name(c.mode) << "\n";
  o << "table            " << table_kind_name(c.table_kind) << " seed " << c.table_seed << "\n";
  for (const auto& t : c.table_injections)
    o << "  table entry    row " << t.row << " col " << t.col << " = " << table_entry_name(t.entry)
      << (t.entry == TableEntry::Literal ? " " + std::to_string(t.value) : std::string()) << "\n";
  o << "poison           " << poison_name(c.poison) << "\n";
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const RowRecipe& r = c.rows[i];
    o << "recipe " << i << "         " << dist_name(r.dist) << " seed " << r.seed << " param " << r.param << "\n";
    for (const auto& in : r.injections)
      o << "  inject         " << inj_name(in.kind) << " pos " << in.pos << " count " << in.count << " arg "
        << in.arg << " delta " << in.delta << " bits " << hex32(in.bits) << "\n";
    if (!r.literal.empty()) {
      o << "  literal        [";
      for (size_t j = 0; j < r.literal.size() && j < 32; ++j) o << (j ? " " : "") << hex32(r.literal[j]);
      if (r.literal.size() > 32) o << " ... (" << r.literal.size() << " total)";
      o << "]\n";
    }
  }
  const Knobs& k = c.knobs;
  o << "validate         " << (k.validate ? "checked" : "unchecked") << "\n";
  o << "config           force_path " << k.force_path << " tie_capacity " << k.tie_capacity
    << " register2_max " << k.register2_max << " register4_max " << k.register4_max
    << " cluster_floor " << k.cluster_floor_small << "/" << k.cluster_floor_large << " small_batch_cut "
    << k.small_batch_cut << " cluster_max_batch " << k.cluster_max_batch << " plan_t_min " << k.plan_t_min
    << " cluster_enable " << k.cluster_enable << " probe c8/c16 " << k.inject_probe_c8 << "/"
    << k.inject_probe_c16 << " early_read " << k.early_read << "\n";
  o << "static_threshold " << k.static_threshold << "\n";
  o << "amax topk        " << k.amax_topk << "\n";
  o << "schedule         policy " << int(c.schedule.policy) << " seed " << c.schedule.seed << "\n";
  return o.str();
}

}  // namespace dsv4::harness
