#!/usr/bin/env python3
"""torch_topk.py -- time torch.topk(x, k, dim=1, sorted=False) on the benchmark shapes.

Same method as topk_v2_bench / bf16_bench (design/performance_anchors.md): the GPU is kept busy by
torch.cuda._sleep before the start event, CUDA events around one call, 10 warm-up + 60 timed calls,
median. fp32 grid: B in {1, 15, 16, 64, 512} x L in {4096, 16384, 24576, 30720, 32768, 65536,
131072} x k in {512, 2048}; bf16 grid: B in {1, 64, 512} x L = 16384 x k in {512, 2048}.
Scores are randn. Writes CSV: bench,dtype,B,L,k,torch_us,error.

usage: torch_topk.py --csv OUT.csv [--quick] [--warmup N] [--iters N] [--spin-us X]
"""
import argparse
import csv
import statistics
import sys

FP32_B = [1, 15, 16, 64, 512]
FP32_L = [4096, 16384, 24576, 30720, 32768, 65536, 131072]
BF16_B = [1, 64, 512]
BF16_L = [16384]
KS = [512, 2048]


def spin_cycles(torch, spin_us):
    """Cycles for torch.cuda._sleep to cover about spin_us microseconds (calibrated with events)."""
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    probe = 2_000_000
    torch.cuda._sleep(probe)  # warm up
    start.record()
    torch.cuda._sleep(probe)
    stop.record()
    stop.synchronize()
    us = max(start.elapsed_time(stop) * 1000.0, 1.0)
    return max(1000, int(probe * spin_us / us))


def time_median_us(torch, fn, warmup, iters, cycles):
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    times = []
    for i in range(warmup + iters):
        torch.cuda._sleep(cycles)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        if i >= warmup:
            times.append(start.elapsed_time(stop) * 1000.0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--quick", action="store_true", help="small subset (smoke test)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--iters", type=int, default=60)
    ap.add_argument("--spin-us", type=float, default=100.0)
    args = ap.parse_args()
    try:
        import torch
    except ImportError as e:
        print(f"torch_topk.py: torch is not available: {e}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_topk.py: no CUDA device", file=sys.stderr)
        return 2

    fp32_b, fp32_l, bf16_b = FP32_B, FP32_L, BF16_B
    if args.quick:
        fp32_b, fp32_l, bf16_b = [1, 64], [4096, 65536], [1, 64]
    shapes = [("fp32", b, l, k) for b in fp32_b for l in fp32_l for k in KS]
    shapes += [("bf16", b, l, k) for b in bf16_b for l in BF16_L for k in KS]
    cycles = spin_cycles(torch, args.spin_us)
    gen = torch.Generator(device="cuda")
    print(f"# torch_topk.py: torch {torch.__version__} on {torch.cuda.get_device_name(0)}; "
          f"{args.warmup} warm-up + {args.iters} timed calls, median; _sleep({cycles}) before each start event")
    print("| dtype | B | L | k | torch.topk µs |\n|---|---:|---:|---:|---:|")
    with open(args.csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["bench", "dtype", "B", "L", "k", "torch_us", "error"])
        for dtype, b, l, k in shapes:
            us, err = "", ""
            try:
                gen.manual_seed(b * 1000003 + l)
                x = torch.randn(b, l, device="cuda", dtype=torch.float32, generator=gen)
                if dtype == "bf16":
                    x = x.to(torch.bfloat16)
                t = time_median_us(torch, lambda: torch.topk(x, k, dim=1, sorted=False),
                                   args.warmup, args.iters, cycles)
                us = f"{t:.1f}"
                del x
            except Exception as e:  # keep going: one failed shape must not lose the others
                err = f"{type(e).__name__}: {e}".replace("\n", " ")[:300]
            bench = "topk_v2" if dtype == "fp32" else "bf16_small"
            w.writerow([bench, dtype, b, l, k, us, err])
            f.flush()
            print(f"| {dtype} | {b} | {l} | {k} | {us or '-'}{' — ' + err if err else ''} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
