// tests/harness/test_codec.cpp -- the case codec: round trip, total decoding, clear rejections.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <filesystem>

#include "case_gen.hpp"
#include "harness/codec.hpp"
#include "harness/materialize.hpp"
#include "harness/report.hpp"
#include "harness/sha1.hpp"

using namespace dsv4::harness;

RC_GTEST_PROP(Codec, EncodeDecodeIsIdentity, ()) {
  const Case c = *testgen::anyCase();
  const std::vector<uint8_t> bytes = encode_case(c);
  const Case d = decode_case_strict(bytes, "roundtrip");
  RC_ASSERT(d == c);
  RC_ASSERT(encode_case(d) == bytes);  // canonical: one encoding per case
}

RC_GTEST_PROP(Codec, AnyBytesDecodeTotallyToAValidBoundedCase, (const std::vector<uint8_t>& bytes)) {
  const TotalLimits lim;
  const Case c = decode_case_total(bytes.data(), bytes.size(), lim);
  RC_ASSERT(c.shape.batch <= lim.max_batch);
  RC_ASSERT(c.shape.width <= lim.max_width);
  RC_ASSERT(c.shape.k <= lim.max_k);
  // valid: it materializes, and survives a strict round trip
  const Materialized m = materialize(c);
  RC_ASSERT(m.batch == c.shape.batch);
  RC_ASSERT(decode_case_strict(encode_case(c), "total") == c);
  // forcing the kernel id works for every id
  const int k = *rc::gen::inRange(0, kKernelIdCount);
  RC_ASSERT(int(decode_case_total(bytes.data(), bytes.size(), lim, k).kernel) == k);
}

TEST(Codec, TotalDecodeIsDeterministicAndUsesTheBytes) {
  const uint8_t a[] = {0, 3, 0x40, 0x01, 0, 7, 9, 1, 2, 3};
  EXPECT_EQ(decode_case_total(a, sizeof a), decode_case_total(a, sizeof a));
  uint8_t b[sizeof a];
  std::copy(a, a + sizeof a, b);
  b[1] = 5;  // batch byte
  EXPECT_NE(decode_case_total(a, sizeof a).shape.batch, decode_case_total(b, sizeof b).shape.batch);
  EXPECT_NO_THROW(decode_case_total(nullptr, 0));
}

namespace {
std::string error_of(const std::vector<uint8_t>& bytes, const std::string& src = "corpus/x.case") {
  try {
    decode_case_strict(bytes, src);
  } catch (const CodecError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Codec, RejectsBadMagicWithTheFileName) {
  auto bytes = encode_case(make_topk_paged(2, 64, 8, Dist::Randn, 1));
  bytes[0] = 'X';
  const std::string e = error_of(bytes);
  EXPECT_NE(e.find("corpus/x.case"), std::string::npos) << e;
  EXPECT_NE(e.find("bad magic"), std::string::npos) << e;
}

TEST(Codec, RejectsUnsupportedVersion) {
  auto bytes = encode_case(make_topk_paged(2, 64, 8, Dist::Randn, 1));
  bytes[8] = 99;
  const std::string e = error_of(bytes);
  EXPECT_NE(e.find("unsupported case version 99"), std::string::npos) << e;
}

TEST(Codec, RejectsEveryTruncation) {
  const auto bytes = encode_case(make_bf16(3, 600, 512, Dist::Ties, 4));
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::string e = error_of(std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(n)));
    ASSERT_FALSE(e.empty()) << "prefix " << n << " accepted";
    EXPECT_NE(e.find("corpus/x.case"), std::string::npos) << e;
  }
}

TEST(Codec, RejectsTrailingBytesAndOutOfRangeFields) {
  auto bytes = encode_case(make_amax8(1, 64, Dist::Randn, 1));
  auto longer = bytes;
  longer.push_back(0);
  EXPECT_NE(error_of(longer).find("trailing"), std::string::npos) << error_of(longer);
  auto bad_kernel = bytes;
  bad_kernel[16] = 200;  // first payload byte = kernel id
  EXPECT_NE(error_of(bad_kernel).find("kernel = 200 out of range"), std::string::npos) << error_of(bad_kernel);
  Case c = make_topk_paged(1, 8, 4, Dist::Randn, 1);
  c.shape.batch = 70000;  // beyond kMaxBatch
  EXPECT_NE(error_of(encode_case(c)).find("shape.batch"), std::string::npos);
}

TEST(Codec, ShowNamesEveryField) {
  Case c = make_topk_ragged(2, 64, 8, Dist::NegInf, 7);
  c.has_row_starts = true;
  c.row_starts = {5, 0};
  c.rows[0].injections.push_back({InjKind::RneMidpoint, 0, 4, 12, 0, 1024});
  const std::string s = show_case(c);
  for (const char* want : {"topk_v2_ragged", "neg-inf", "rne-midpoint", "row_starts       [5, 0]", "poison", "schedule"})
    EXPECT_NE(s.find(want), std::string::npos) << want << "\n" << s;
}

TEST(Codec, FilesRoundTripAndCorpusNamesAreSha1OfTheBytes) {
  const auto dir = std::filesystem::temp_directory_path() / "dsv4_harness_test_corpus";
  std::filesystem::remove_all(dir);
  const Case c = make_candidates(2, 40000, 256, 64, Dist::CandClustered, 9);
  const std::string path = write_corpus_file(dir.string(), c);
  const auto bytes = encode_case(c);
  EXPECT_EQ(std::filesystem::path(path).filename().string(), sha1_hex(bytes.data(), bytes.size()));
  EXPECT_EQ(read_case_file(path), c);
  EXPECT_EQ(write_corpus_file(dir.string(), c), path);  // idempotent
  std::filesystem::remove_all(dir);
  try {
    read_case_file((dir / "missing").string());
    FAIL() << "missing file accepted";
  } catch (const CodecError& e) {
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos);
  }
}

TEST(Sha1, KnownVectors) {
  auto h = [](const std::string& s) { return sha1_hex(reinterpret_cast<const uint8_t*>(s.data()), s.size()); };
  EXPECT_EQ(h(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(h("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(h("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(h(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}
