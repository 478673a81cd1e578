# Upper bound of the one-read guess's fallback rate (guess too high) per normal row: the sample
# (4096 elements) holds >= target of the row's top K elements; X ~ Hypergeometric(L, K, 4096).
import math
def lpmf(x, N, K, n):
    lc = lambda a, b: math.lgamma(a+1) - math.lgamma(b+1) - math.lgamma(a-b+1)
    return lc(K, x) + lc(N-K, n-x) - lc(N, n)
S = 4096
print("| L | K | sigma | target | P(row falls back) <= | P(B=512 launch has one) <= |")
print("|---:|---:|---:|---:|---:|---:|")
for L in (24576, 32768, 65536, 131072):
    for K in (512, 2048):
        for sig in (5, 4, 3.5, 3):
            base = K * S / L
            t = max(1, math.ceil(base + sig * math.sqrt(base)))
            p = sum(math.exp(lpmf(x, L, K, S)) for x in range(t, min(K, S) + 1))
            print(f"| {L} | {K} | {sig} | {t} | {p:.2e} | {1-(1-p)**512:.2e} |")
