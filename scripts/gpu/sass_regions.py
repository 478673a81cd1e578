#!/usr/bin/env python3
# scripts/gpu/sass_regions.py -- a per-SASS-instruction ncu source page (CSV: `ncu -i REP --page source --csv
# --print-source sass`, as scripts/gpu/topk_v2_profile.sh writes it) split into the regions between
# barriers (BAR.SYNC, UCGABAR_WAIT): per region its stall samples, executed instructions, warp executions
# of the memory / synchronization ops and the top stall reasons. Usage: sass_regions.py FILE.csv
import csv, sys, re
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[1]; data=rows[2:]
iS=hdr.index('Warp Stall Sampling (All Samples)'); iE=hdr.index('Instructions Executed')
st=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
idx=[hdr.index(h) for h in st]
reg=[]; cur={'start':None,'samp':0,'ops':{},'reasons':{},'n':0,'wex':0}
def flush(end):
    global cur
    if cur['start'] is not None: reg.append((cur,end))
    cur={'start':None,'samp':0,'ops':{},'reasons':{},'n':0,'wex':0}
for k,r in enumerate(data):
    if not r[iE].isdigit() or int(r[iE])==0: continue
    if cur['start'] is None: cur['start']=k
    s=int(r[iS]) if r[iS].isdigit() else 0
    cur['samp']+=s; cur['n']+=1; cur['wex']+=int(r[iE])
    ins=r[1].strip(); op=re.sub(r'^@!?U?P\w+\s+','',ins).split()[0]
    key=op.split('.')[0]
    if key in ('ATOMS','ATOM','RED','REDG','LDS','STS','SHFL','LDG','STG','LDL','STL','BAR','UCGABAR_WAIT','UCGABAR_ARV','ERRBAR','MEMBAR','F2FP','POPC','VOTE','ATOMG','LD','ST','REDAS','MATCH'):
        cur['ops'][key]=cur['ops'].get(key,0)+int(r[iE])
    for h,i in zip(st,idx):
        if r[i].isdigit() and int(r[i])>0: cur['reasons'][h[6:]]=cur['reasons'].get(h[6:],0)+int(r[i])
    if key in ('BAR','UCGABAR_WAIT'):
        flush(k)
flush(len(data))
tot=sum(c['samp'] for c,_ in reg)
for c,end in reg:
    if c['samp']<tot*0.004: continue
    rs=sorted(c['reasons'].items(),key=lambda x:-x[1])[:3]
    print(f"[{c['start']:6d},{end:6d}] samp {c['samp']:5d} ({100*c['samp']/tot:4.1f}%) instr {c['n']:4d} warp-exec {c['wex']:7d} ops {dict(sorted(c['ops'].items()))} {rs}")
