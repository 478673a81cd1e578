#!/usr/bin/env python3
# scripts/gpu/sass_ops.py -- the synchronization and cross-CTA operations of each kernel in
# `cuobjdump -sass` output (stdin or FILE), one line a kernel: counts of the static instructions
# whose opcode names a barrier, fence, mbarrier (SYNCS.*) or DSMEM / async operation. Used to
# check what ptxas made of a spelling, e.g. that a cluster kernel has no MEMBAR.ALL.GPU left.
#   cuobjdump -sass BINARY | python3 scripts/gpu/sass_ops.py [--filter SUBSTRING]
import re, sys
args = sys.argv[1:]
filt = None
if args[:1] == ["--filter"]:
    filt, args = args[1], args[2:]
src = open(args[0]) if args else sys.stdin
KEEP = re.compile(r"^(MEMBAR|BAR|UCGABAR|CGAERRBAR|ERRBAR|CCTL|FENCE|SYNCS|ATOMS|REDAS|STAS|ATOM|RED|WARPSYNC)")
kernels, cur = {}, None
for line in src:
    m = re.search(r"Function : (\S+)", line)
    if m:
        cur = m.group(1)
        kernels.setdefault(cur, {})
        continue
    m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
    if cur is None or not m:
        continue
    op = m.group(1)
    if KEEP.match(op):
        kernels[cur][op] = kernels[cur].get(op, 0) + 1
for k in sorted(kernels):
    if filt and filt not in k:
        continue
    ops = kernels[k]
    print(k, " ".join(f"{o}={n}" for o, n in sorted(ops.items())) or "(none)")
