// fallback rate and staged lanes of the one-read guess vs margin sigma (scratch)
#include "kernels/topk_v2/topk_v2_keys.cuh"
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
#include <cstdlib>
namespace topk = dsv4::ours::topk;
int main(int argc, char** argv) {
  const int rows = atoi(argv[1]);
  const float sigmas[] = {5, 4, 3.5, 3, 2.5};
  const int kSample = 4096, kBins = 4096, kTop = kBins - 1;
  std::mt19937 g(7);
  std::normal_distribution<float> nd;
  for (int L : {24576, 32768, 65536})
    for (int K : {512, 2048}) {
      long long fb[5] = {}, staged_sum[5] = {}, ovf[5] = {};
      const long long cap = (long long)topk::stage_slots(K, L, 1024) * 1024;
      std::vector<int> bin(L);
      for (int r = 0; r < rows; ++r) {
        std::vector<long long> hs(kBins, 0), hr(kBins, 0);
        for (int i = 0; i < L; ++i) { int b = topk::coarse_bin(nd(g), 12); (i < kSample ? hs : hr)[b]++; }
        // full-row threshold bin
        long long s = 0; int t = 0;
        for (int b = kTop - 1; b >= 0; --b) if ((s += hs[b] + hr[b]) >= K) { t = b; break; }
        for (int j = 0; j < 5; ++j) {
          const float base = float(K) * kSample / float(L);
          const int target = std::max(1, (int)ceilf(base + sigmas[j] * sqrtf(base)));
          long long ss = 0; int gb = 0;
          for (int b = kTop - 1; b >= 0; --b) if ((ss += hs[b]) >= target) { gb = b; break; }
          long long st = 0;
          for (int b = gb; b < kTop; ++b) st += hs[b] + hr[b];
          staged_sum[j] += st;
          if (t < gb) ++fb[j];
          else if (st > cap) ++ovf[j];
        }
      }
      for (int j = 0; j < 5; ++j)
        printf("L %6d K %4d sigma %.1f: staged/K %.3f  guess-too-high %lld/%d  overflow %lld (cap %lld)\n", L, K,
               sigmas[j], double(staged_sum[j]) / rows / K, fb[j], rows, ovf[j], cap);
    }
}
