#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gemm_tc_mma_layout.py — the index math of src/gemm/gemm_tc_mma.cu checked
on the CPU (no GPU needed): the XOR-swizzled shared tiles that cp.async fills
(a_off, b_off: the same formulas as the kernel), ldmatrix.x4 (op(A)) and
ldmatrix.x4.trans (B, k-major) as the PTX ISA defines them (lane 8 q + r gives
the address of row r of matrix q; register q of lane t holds row t / 4,
elements 2 (t % 4) and 2 (t % 4) + 1, or with .trans the column t / 4), the
m16n8k16 fragment layouts of mma.sync, and the epilogue's (row, column) of
each accumulator element: every warp's 64 x 32 result must equal the plain
product of a 128 x 32 by 32 x 128 tile. Also asserts that each 8-row phase of
every ldmatrix reads 8 different 16-byte bank groups (no conflicts). If the
kernel's constants or formulas change, change them here too."""
import random
random.seed(1)
def a_off(r,c): return (r*4 + (c ^ ((r>>1)&3)))*16
def b_off(r,c): return (r*16 + (c ^ (r&7)))*16
MB,NB,KB=128,128,32
A=[[random.randint(-3,3) for k in range(KB)] for i in range(MB)]
B=[[random.randint(-3,3) for n in range(NB)] for k in range(KB)]
smA={}; smB={}
for i in range(MB):
    for k in range(KB):
        off=a_off(i,k//8)+(k%8)*2; assert off not in smA; smA[off]=A[i][k]
for k in range(KB):
    for n in range(NB):
        off=b_off(k,n//8)+(n%8)*2; assert off not in smB; smB[off]=B[k][n]
# bank check for ldmatrix phases: 8 lanes each 16B
def banks(addrs): return [ (a//4)%32 for a in addrs]
def ldsm(mem, addrs, trans):
    # addrs[lane] = row address of matrix lane//8, row lane%8
    mats=[[ [mem[addrs[q*8+r]+2*c] for c in range(8)] for r in range(8)] for q in range(4)]
    # conflict check per matrix phase
    for q in range(4):
        bs=set()
        for r in range(8):
            b=(addrs[q*8+r]//16)%8  # 16B chunk slot within 128B
            assert b not in bs, "bank conflict"; bs.add(b)
    out=[]
    for t in range(32):
        regs=[]
        for q in range(4):
            M=mats[q]
            if not trans: regs.append((M[t//4][2*(t%4)], M[t//4][2*(t%4)+1]))
            else: regs.append((M[2*(t%4)][t//4], M[2*(t%4)+1][t//4]))
        out.append(regs)
    return out
for warp in range(8):
    wm,wn=warp//4,warp%4
    acc={}
    for kk in range(KB//16):
        fa=[ldsm(smA,[a_off(wm*64+x*16+l%16, kk*2+l//16) for l in range(32)],False) for x in range(4)]
        fb=[ldsm(smB,[b_off(kk*16+l%16,(wn*32+y*16)//8+l//16) for l in range(32)],True) for y in range(2)]
        for x in range(4):
            for y in range(4):
                # mma: build A 16x16 and B 16x8 from fragments
                Am=[[None]*16 for _ in range(16)]; Bm=[[None]*8 for _ in range(16)]
                for t in range(32):
                    g,c=t//4,t%4
                    a=fa[x][t]
                    for j in range(2):
                        Am[g][2*c+j]=a[0][j]; Am[g+8][2*c+j]=a[1][j]; Am[g][2*c+8+j]=a[2][j]; Am[g+8][2*c+8+j]=a[3][j]
                    b=fb[y//2][t]; b0=b[(y%2)*2]; b1=b[(y%2)*2+1]
                    for j in range(2):
                        Bm[2*c+j][g]=b0[j]; Bm[2*c+8+j][g]=b1[j]
                for t in range(32):
                    g,c=t//4,t%4
                    for e in range(4):
                        r=g+8*(e//2); n=2*c+e%2
                        s=sum(Am[r][k]*Bm[k][n] for k in range(16))
                        key=(x,y,t,e); acc[key]=acc.get(key,0)+s
    for (x,y,t,e),v in acc.items():
        i=wm*64+x*16+t//4+8*(e//2); j=wn*32+y*8+2*(t%4)+e%2
        exp=sum(A[i][k]*B[k][j] for k in range(KB))
        assert v==exp,(warp,x,y,t,e,v,exp)
print("ok: fragments, swizzles (conflict-free phases) and epilogue mapping agree")
