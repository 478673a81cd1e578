// tests/harness/case_gen.hpp -- a structural RapidCheck generator of ANY field combination of a
// Case (not a realistic one: the codec must carry every value, in and out of contract).
#pragma once

#include <rapidcheck.h>

#include "harness/case.hpp"

namespace dsv4::harness::testgen {

inline rc::Gen<Injection> anyInjection() {
  return rc::gen::exec([] {
    Injection j;
    j.kind = InjKind(*rc::gen::inRange(0, kInjKindCount));
    j.pos = *rc::gen::arbitrary<int32_t>();
    j.count = *rc::gen::arbitrary<int32_t>();
    j.arg = *rc::gen::arbitrary<int32_t>();
    j.delta = *rc::gen::arbitrary<int32_t>();
    j.bits = *rc::gen::arbitrary<uint32_t>();
    return j;
  });
}

inline rc::Gen<RowRecipe> anyRecipe() {
  return rc::gen::exec([] {
    RowRecipe r;
    r.dist = Dist(*rc::gen::inRange(0, kDistCount));
    r.seed = *rc::gen::arbitrary<uint64_t>();
    r.param = *rc::gen::arbitrary<uint32_t>();
    r.injections = *rc::gen::container<std::vector<Injection>>(*rc::gen::inRange(0, 4), anyInjection());
    r.literal = *rc::gen::container<std::vector<uint32_t>>(*rc::gen::inRange(0, 6), rc::gen::arbitrary<uint32_t>());
    return r;
  });
}

inline rc::Gen<Case> anyCase() {
  return rc::gen::exec([] {
    Case c;
    c.kernel = KernelId(*rc::gen::inRange(0, kKernelIdCount));
    Shape& s = c.shape;
    s.batch = *rc::gen::inRange(0, 9);
    s.width = *rc::gen::inRange(0, 5000);
    s.stride_pad = *rc::gen::inRange(0, 9);
    s.k = *rc::gen::inRange(-3, 2100);
    s.k2 = *rc::gen::inRange(0, 2100);
    s.page_size = *rc::gen::arbitrary<int64_t>();
    s.base_offset = *rc::gen::inRange(0, 8);
    s.width_delta = *rc::gen::arbitrary<int32_t>();
    s.out_pad = *rc::gen::inRange(-2, 9);
    c.seq_lens = *rc::gen::container<std::vector<int32_t>>(size_t(s.batch), rc::gen::arbitrary<int32_t>());
    c.has_row_starts = *rc::gen::arbitrary<bool>();
    c.row_starts = *rc::gen::container<std::vector<int32_t>>(*rc::gen::inRange(0, 9), rc::gen::arbitrary<int32_t>());
    c.out_offsets = *rc::gen::container<std::vector<int32_t>>(*rc::gen::inRange(0, 9), rc::gen::arbitrary<int32_t>());
    c.mode = PagedMode(*rc::gen::inRange(0, kPagedModeCount));
    c.table_kind = TableKind(*rc::gen::inRange(0, kTableKindCount));
    c.table_seed = *rc::gen::arbitrary<uint64_t>();
    const int nti = *rc::gen::inRange(0, 3);
    for (int i = 0; i < nti; ++i) {
      TableInjection t;
      t.row = *rc::gen::arbitrary<int32_t>();
      t.col = *rc::gen::arbitrary<int32_t>();
      t.entry = TableEntry(*rc::gen::inRange(0, kTableEntryCount));
      t.value = *rc::gen::arbitrary<int32_t>();
      c.table_injections.push_back(t);
    }
    c.rows = *rc::gen::container<std::vector<RowRecipe>>(*rc::gen::inRange(0, 4), anyRecipe());
    c.poison = Poison(*rc::gen::inRange(0, kPoisonCount));
    Knobs& k = c.knobs;
    k.validate = *rc::gen::arbitrary<bool>();
    for (int32_t* f : {&k.force_path, &k.tie_capacity, &k.register2_max, &k.register4_max,
                       &k.cluster_floor_small, &k.cluster_floor_large, &k.small_batch_cut,
                       &k.cluster_max_batch, &k.plan_t_min, &k.cluster_enable, &k.inject_probe_c8,
                       &k.inject_probe_c16, &k.early_read, &k.static_threshold, &k.amax_topk})
      *f = *rc::gen::arbitrary<int32_t>();
    c.schedule.policy = uint8_t(*rc::gen::inRange(0, kSchedulePolicyCount));
    c.schedule.seed = *rc::gen::arbitrary<uint64_t>();
    return c;
  });
}

}  // namespace dsv4::harness::testgen
