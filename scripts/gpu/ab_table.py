#!/usr/bin/env python3
"""scripts/gpu/ab_table.py -- the timing tables of the A/B scripts (topk_v2_ab.sh, bf16_ab.sh).

  ab_table.py topk DIR NAME...   DIR/t_<run>.txt of the smoke binary's --timing ("| B | L | K | us |")
  ab_table.py bf16 DIR NAME...   DIR/bench_<variant>_<run>.txt of indexer_kernels_gpu bench ("<what>: <us> us")

Prints one markdown table: base and new (topk) or default (bf16) with their two runs, then one
column per variant NAME (run 1). A missing value prints as -1.0.
"""
import os
import re
import sys

PATTERNS = {
    "topk": (re.compile(r"\| (\d+) \| (\d+) \| (\d+) \| ([-\d.]+) \|"), lambda m: m.group(1, 2, 3), 4),
    "bf16": (re.compile(r"\s*(\S.*?):\s*([\d.]+) us"), lambda m: m.group(1), 2),
}


def read(directory, name, kind):
    """{key: microseconds} of one timing file (empty when it does not exist)."""
    rx, key, col = PATTERNS[kind]
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return {}
    out = {}
    with open(path) as f:
        for line in f:
            m = rx.match(line)
            if m:
                out[key(m)] = float(m.group(col))
    return out


def main(kind, directory, names):
    if kind == "topk":
        t = {r: read(directory, f"t_{r}.txt", kind) for r in ["base_1", "base_2", "new_1", "new_2"]}
        v = {n: read(directory, f"t_{n}_1.txt", kind) for n in names}
        print("| B | L | K | base us (run1/run2) | new us (run1/run2) | new/base (min) | " + " | ".join(names) + " |")
        print("|---:|---:|---:|---:|---:|---:|" + "---:|" * len(names))
        for k in t["base_1"]:
            b = [t["base_1"].get(k, -1), t["base_2"].get(k, -1)]
            n = [t["new_1"].get(k, -1), t["new_2"].get(k, -1)]
            pos_b, pos_n = [x for x in b if x > 0], [x for x in n if x > 0]
            ratio = min(pos_n) / min(pos_b) if pos_b and pos_n else -1
            cells = " | ".join(f"{v[x].get(k, -1):.1f}" for x in names)
            print(f"| {k[0]} | {k[1]} | {k[2]} | {b[0]:.1f}/{b[1]:.1f} | {n[0]:.1f}/{n[1]:.1f} | {ratio:.2f} | {cells} |")
    else:
        d1, d2 = read(directory, "bench_default_1.txt", kind), read(directory, "bench_default_2.txt", kind)
        v = {n: read(directory, f"bench_{n}_1.txt", kind) for n in names if n != "default"}
        others = [n for n in names if n != "default"]
        print("| bench line | default us (run1/run2) | " + " | ".join(others) + " |")
        print("|---|---:|" + "---:|" * len(others))
        for k in d1:
            cells = " | ".join(f"{v[x].get(k, -1):.1f}" for x in others)
            print(f"| {k} | {d1[k]:.1f}/{d2.get(k, -1):.1f} | {cells} |")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in PATTERNS:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
