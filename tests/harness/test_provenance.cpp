// tests/harness/test_provenance.cpp -- case format v2 (provenance record): round trip, version-1
// files unchanged, clear rejections; the corpus writer overload; "recorded with / replayed with"
// in reports; and the Top-K v2 B = 0 forced-pool regression file in corpus/fuzz_topk_v2/.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/backend.hpp"
#include "harness/codec.hpp"
#include "harness/report.hpp"
#include "harness/runner.hpp"
#include "harness/sha1.hpp"

using namespace dsv4::harness;
namespace fs = std::filesystem;

namespace {

Provenance sample() {
  Provenance p;
  p.impl_path = "/opt/plugins/libvendor.so";
  p.abi_version = 1;
  p.impl_name = "vendor-topk";
  p.impl_version = "2.3.1";
  p.backend = "cuda";
  p.device = "NVIDIA H200";
  p.date = "2026-11-29T11:40:00Z";
  p.harness_version = "dsv4-harness 0.1.0";
  return p;
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    Provenance p;
    decode_case_strict(bytes.data(), bytes.size(), "f.case", &p);
  } catch (const CodecError& e) {
    return e.what();
  }
  return "";
}

Case topk_b0_pool() {  // the regression: B = 0 with force_path = 7 (pool) must be a no-op
  Case c = make_topk_paged(0, 64, 8, Dist::Randn, 1);
  c.knobs.force_path = 7;
  return c;
}

}  // namespace

TEST(Provenance, VersionTwoRoundTripsAndVersionOneIsUnchanged) {
  const Case c = make_topk_paged(3, 200, 16, Dist::Ties, 4);
  const auto v1 = encode_case(c);
  EXPECT_EQ(encode_case(c, Provenance{}), v1);  // no provenance: the version-1 bytes exactly
  EXPECT_EQ(v1[8], 1);
  const auto v2 = encode_case(c, sample());
  EXPECT_EQ(v2[8], 2);
  EXPECT_TRUE(std::equal(v1.begin() + 12, v1.end(), v2.begin() + 12));  // same payload
  Provenance got;
  EXPECT_EQ(decode_case_strict(v2.data(), v2.size(), "v2", &got), c);
  EXPECT_EQ(got, sample());
  EXPECT_EQ(decode_case_strict(v2, "v2"), c);  // the old overload accepts v2 and drops provenance
  got = sample();
  EXPECT_EQ(decode_case_strict(v1.data(), v1.size(), "v1", &got), c);
  EXPECT_TRUE(got.empty());
  Provenance partial;  // optional fields: only some present
  partial.impl_name = "x";
  EXPECT_EQ((decode_case_strict(encode_case(c, partial).data(), encode_case(c, partial).size(), "p", &got), got),
            partial);
}

TEST(Provenance, StrictDecodeRejectsEveryTruncationAndGarbage) {
  const auto v2 = encode_case(make_amax8(2, 64, Dist::Randn, 3), sample());
  for (size_t n = 0; n < v2.size(); ++n) {
    const std::string e = error_of(std::vector<uint8_t>(v2.begin(), v2.begin() + long(n)));
    ASSERT_FALSE(e.empty()) << "prefix " << n << " accepted";
    EXPECT_NE(e.find("f.case"), std::string::npos) << e;
  }
  auto longer = v2;
  longer.push_back(0);
  EXPECT_NE(error_of(longer).find("trailing"), std::string::npos) << error_of(longer);
  // The provenance section starts after the header (16) and the payload.
  const uint32_t len = uint32_t(v2[12]) | uint32_t(v2[13]) << 8 | uint32_t(v2[14]) << 16 | uint32_t(v2[15]) << 24;
  const size_t sec = 16 + len + 4;  // first field tag
  auto bad_tag = v2;
  bad_tag[sec] = 42;
  EXPECT_NE(error_of(bad_tag).find("unknown provenance tag 42"), std::string::npos) << error_of(bad_tag);
  auto nonprint = v2;
  nonprint[sec + 5] = 0x01;  // first byte of impl_path
  EXPECT_NE(error_of(nonprint).find("non-printable"), std::string::npos) << error_of(nonprint);
  auto v99 = v2;
  v99[8] = 99;
  EXPECT_NE(error_of(v99).find("reads 1 and 2"), std::string::npos) << error_of(v99);
  // a version-2 header with an empty section is garbage, not "no provenance"
  auto empty = encode_case(make_amax8(2, 64, Dist::Randn, 3));
  empty[8] = 2;
  for (int i = 0; i < 4; ++i) empty.push_back(0);
  EXPECT_NE(error_of(empty).find("empty provenance"), std::string::npos) << error_of(empty);
}

TEST(Provenance, CorpusWriterRecordsTheRunAndKeepsTheCaseName) {
  const fs::path dir = fs::temp_directory_path() / "dsv4_prov_corpus";
  fs::remove_all(dir);
  const Case c = make_topk_paged(2, 64, 8, Dist::Randn, 1);
  auto impl = Impl::load_plugin(FAKE_PLUGIN_OK);
  auto be = make_backend_for(*impl);
  const Provenance p = make_provenance(*impl, *be);
  EXPECT_EQ(p.impl_path, FAKE_PLUGIN_OK);
  EXPECT_EQ(p.impl_name, "fake-host");
  EXPECT_EQ(p.impl_version, "test");
  EXPECT_EQ(p.abi_version, uint32_t(DSV4_ABI_VERSION));
  EXPECT_EQ(p.backend, "host");
  EXPECT_EQ(p.device, "cpu (simt)");
  EXPECT_EQ(p.date.size(), 20u) << p.date;
  EXPECT_NE(p.harness_version.find("dsv4-harness"), std::string::npos);
  const std::string path = write_corpus_file(dir.string(), c, p);
  const auto v1 = encode_case(c);
  EXPECT_EQ(fs::path(path).filename().string(), sha1_hex(v1.data(), v1.size()));
  EXPECT_EQ(write_corpus_file(dir.string(), c), path);  // same name with or without provenance
  write_corpus_file(dir.string(), c, p);
  Provenance got;
  EXPECT_EQ(read_case_file(path, &got), c);
  EXPECT_EQ(got, p);
  // The report of a replay shows both, and flags a different implementation.
  const Outcome o = run_case(c, *impl, *be);
  ReportContext ctx;
  ctx.recorded = p;
  std::string r = format_report(c, o, *impl, *be, ctx);
  EXPECT_NE(r.find("recorded with:   fake-host test (" FAKE_PLUGIN_OK ", ABI v1) on host: cpu (simt)"), std::string::npos) << r;
  EXPECT_NE(r.find("replayed with:   fake-host test"), std::string::npos) << r;
  EXPECT_EQ(r.find("differs"), std::string::npos) << r;
  ctx.recorded = sample();
  r = format_report(c, o, *impl, *be, ctx);
  EXPECT_NE(r.find("recorded with:   vendor-topk 2.3.1 (/opt/plugins/libvendor.so, ABI v1) on cuda: NVIDIA H200"),
            std::string::npos) << r;
  EXPECT_NE(r.find("differs"), std::string::npos) << r;
  EXPECT_EQ(format_report(c, o, *impl, *be).find("recorded with"), std::string::npos);
  fs::remove_all(dir);
}

TEST(RegressionCorpus, TopkV2BatchZeroForcedPoolIsInTheCorpus) {
  const Case c = topk_b0_pool();
  const fs::path file = fs::path(DSV4_SOURCE_DIR) / "corpus" / "fuzz_topk_v2" / corpus_file_name(c);
  ASSERT_TRUE(fs::exists(file)) << file;
  EXPECT_EQ(read_file_bytes(file.string()), encode_case(c));  // version 1, no provenance: stable name
  // dsv4_harness links the simt kernels: a throw here (fails the test) means the replay is gone
  const std::shared_ptr<Impl> simt = Impl::ours_simt();
  auto be = make_backend_for(*simt);
  const Outcome o = run_case(read_case_file(file.string()), *simt, *be);
  EXPECT_EQ(o.verdict, Verdict::Pass) << format_report(c, o, *simt, *be);
}
