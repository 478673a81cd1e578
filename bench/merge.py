#!/usr/bin/env python3
"""merge.py -- join the benchmark CSVs into one markdown table with ratios and the issue's goals.

Inputs: topk_v2_bench CSV (--ours), bf16_bench CSV (--bf16), torch_topk.py CSV (--torch), and
optionally design/performance_anchors.md (--anchors) for the upstream column.
Goals (issue text): Top-K v2 at least 10x faster than torch.topk for B <= 64 and L >= 24K (and,
when the anchors are given, at least 1.5x upstream there); within 2x of the launch + one-read
floor for B >= 64; bf16 small top-k at least 10x torch.topk.

usage: merge.py --ours topk_v2.csv --bf16 bf16.csv --torch torch.csv [--anchors FILE] [--out FILE]
"""
import argparse
import csv
import os
import re
import sys


def read_csv(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def read_anchors(path):
    """{(dtype, B, L, k): upstream_us} from the markdown tables of performance_anchors.md."""
    out = {}
    if not path or not os.path.exists(path):
        return out
    dtype = "fp32"
    for line in open(path, encoding="utf-8"):
        if line.startswith("## "):
            dtype = "bf16" if "bf16" in line else ("fp32" if "Top-K" in line or "fp32" in line else None)
        if dtype is None or not re.match(r"^\|\s*\d", line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        try:
            b, l, k = int(cells[0]), int(cells[1]), int(cells[2])
            up = float(cells[4] if dtype == "fp32" and len(cells) >= 6 else cells[3])
        except (ValueError, IndexError):
            continue
        out[(dtype, b, l, k)] = up
    return out


def fmt(x, spec="{:.1f}"):
    return "-" if x is None else spec.format(x)


def verdict(ok, text):
    return ("met " if ok else "MISSED ") + text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ours", required=True)
    ap.add_argument("--bf16")
    ap.add_argument("--torch")
    ap.add_argument("--anchors")
    ap.add_argument("--out")
    a = ap.parse_args()

    torch_us = {(r["dtype"], int(r["B"]), int(r["L"]), int(r["k"])): num(r["torch_us"]) for r in read_csv(a.torch)}
    anchors = read_anchors(a.anchors)
    met = missed = failed = 0
    lines = []

    # ---- Top-K v2 fp32 ------------------------------------------------------------------------
    rows = {}
    for r in read_csv(a.ours):
        key = (int(r["B"]), int(r["L"]), int(r["k"]))
        rows.setdefault(key, {})[r["mode"]] = r
    lines.append("## Top-K v2 (fp32, paged: page_size 64, random permutation page table; indices: no page table)\n")
    up_hdr = " upstream µs | upstream/ours |" if anchors else ""
    lines.append("| B | L | k | path | ours µs (paged) | ours µs (indices) | torch µs | torch/ours | floor µs | ours/floor |"
                 + up_hdr + " check | goals |")
    lines.append("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if anchors else "") + "---|---|")
    for (b, l, k), modes in sorted(rows.items()):
        paged, idx = modes.get("paged", {}), modes.get("indices", {})
        p_us, i_us = num(paged.get("ours_us")), num(idx.get("ours_us"))
        ours = p_us if p_us is not None else i_us
        main_row = paged if p_us is not None else idx
        floor = num(main_row.get("floor_us")) or num(paged.get("floor_us")) or num(idx.get("floor_us"))
        t = torch_us.get(("fp32", b, l, k))
        up = anchors.get(("fp32", b, l, k))
        t_ratio = t / ours if t and ours else None
        f_ratio = ours / floor if ours and floor else None
        u_ratio = up / ours if up and ours else None
        goals = []
        if b <= 64 and l >= 24576:
            goals.append(verdict(t_ratio is not None and t_ratio >= 10, "≥10× torch"))
            if anchors:
                goals.append(verdict(u_ratio is not None and u_ratio >= 1.5, "≥1.5× upstream"))
        if b >= 64:
            goals.append(verdict(f_ratio is not None and f_ratio <= 2, "≤2× floor"))
        met += sum(g.startswith("met") for g in goals)
        missed += sum(g.startswith("MISSED") for g in goals)
        checks = [m.get("check", "-") for m in (paged, idx) if m]
        errors = [m.get("error", "") for m in (paged, idx) if m and m.get("error")]
        bad = [c for c in checks if c not in ("OK", "-", "")]
        failed += bool(bad)
        check = "; ".join(bad) if bad else ("OK" if "OK" in checks else "-")
        if errors:
            check += " (" + "; ".join(errors) + ")"
        path = main_row.get("path") or "-"
        up_cells = f" {fmt(up)} | {fmt(u_ratio, '{:.2f}')} |" if anchors else ""
        lines.append(f"| {b} | {l} | {k} | {path} | {fmt(p_us)} | {fmt(i_us)} | {fmt(t)} | {fmt(t_ratio, '{:.1f}')} | "
                     f"{fmt(floor)} | {fmt(f_ratio, '{:.2f}')} |{up_cells} {check} | {', '.join(goals) or '-'} |")

    # ---- bf16 small top-k ---------------------------------------------------------------------
    bf = read_csv(a.bf16)
    if bf:
        lines.append("\n## bf16 small top-k (page_size 8, random permutation page table)\n")
        up_hdr = " upstream µs | upstream/ours |" if anchors else ""
        lines.append("| B | L | k | ours µs | torch µs | torch/ours | floor µs | ours/floor |" + up_hdr + " check | goals |")
        lines.append("|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if anchors else "") + "---|---|")
        for r in sorted(bf, key=lambda r: (int(r["B"]), int(r["L"]), int(r["k"]))):
            b, l, k = int(r["B"]), int(r["L"]), int(r["k"])
            ours, floor = num(r["ours_us"]), num(r["floor_us"])
            t = torch_us.get(("bf16", b, l, k))
            up = anchors.get(("bf16", b, l, k))
            t_ratio = t / ours if t and ours else None
            f_ratio = ours / floor if ours and floor else None
            g = verdict(t_ratio is not None and t_ratio >= 10, "≥10× torch")
            met += g.startswith("met")
            missed += g.startswith("MISSED")
            check = r.get("check") or "-"
            failed += check not in ("OK", "-")
            if r.get("error"):
                check += f" ({r['error']})"
            up_cells = f" {fmt(up)} | {fmt(up / ours if up and ours else None, '{:.2f}')} |" if anchors else ""
            lines.append(f"| {b} | {l} | {k} | {fmt(ours)} | {fmt(t)} | {fmt(t_ratio, '{:.1f}')} | {fmt(floor)} | "
                         f"{fmt(f_ratio, '{:.2f}')} |{up_cells} {check} | {g} |")

    lines.append(f"\nGoals: {met} met, {missed} missed. Correctness checks failed in {failed} row(s).")
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
