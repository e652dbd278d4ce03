/* SPDX-License-Identifier: MIT */
/*
 * ptx.c - burn's kernels as PTX text, JIT-compiled by the driver at run time
 * (cuModuleLoadDataEx), so gpuscope needs no CUDA toolkit to build. Written
 * from NVIDIA's PTX ISA documentation; `gpuscope burn --print-ptx base|mma`
 * prints them, and tests/burn-ptxas.sh assembles them with ptxas when one is
 * installed (a local check, never a build dependency).
 *
 * What each kernel computes is specified in kernels.h, and computed again on
 * the CPU by ref.c: the two must agree bit for bit.
 */
#include "burn/kernels.h"

/*
 * The kernels repeat some steps (the loops are unrolled four times, and each
 * thread computes four values alike); these macros write each step once. The
 * text they make is exactly the PTX `--print-ptx` prints.
 */

/* k_p = (tid*4 + p + seed) & 0xffff is in %r8: x_p = 1 + k_p/2^16, y_p = 0.5 - k_p/2^17. */
#define ROT_START(ty, p, one_16, one, neg_17, half) \
    "    cvt.rn." #ty ".u32 %k, %r8;\n" \
    "    fma.rn." #ty " %x" #p ", %k, " #one_16 ", " #one ";\n" \
    "    fma.rn." #ty " %y" #p ", %k, " #neg_17 ", " #half ";\n"
#define ROT32_START(p) ROT_START(f32, p, 0f37800000, 0f3F800000, 0fB7000000, 0f3F000000)
#define ROT64_START(p) ROT_START(f64, p, 0d3EF0000000000000, 0d3FF0000000000000, 0dBEE0000000000000, 0d3FE0000000000000)
/* k_p for p = 1..3 from %r7 = tid*4 + seed */
#define ROT_K(p) \
    "    add.u32 %r8, %r7, " #p ";\n" \
    "    and.b32 %r8, %r8, 65535;\n"

/* One step of rotation p by the angle whose cos is c and sin s (ns = -s):
 * x' = x*c + y*ns, y' = y*c + x*s, through %t<ta> and %t<tb>. */
#define ROT(ty, p, ta, tb, ns, s, c) \
    "    mul.rn." #ty " %t" #ta ", %y" #p ", " #ns ";\n" \
    "    mul.rn." #ty " %t" #tb ", %x" #p ", " #s ";\n" \
    "    fma.rn." #ty " %x" #p ", %x" #p ", " #c ", %t" #ta ";\n" \
    "    fma.rn." #ty " %y" #p ", %y" #p ", " #c ", %t" #tb ";\n"
/* one step of each of the four rotations (cos and sin of 0.3 + 0.17 p; ref.c has them too) */
#define ROT32_STEP \
    ROT(f32, 0, 0, 1, 0fBE974E6D, 0f3E974E6D, 0f3F7490EF) \
    ROT(f32, 1, 2, 3, 0fBEE7E0B6, 0f3EE7E0B6, 0f3F643DD2) \
    ROT(f32, 2, 4, 5, 0fBF18E1CD, 0f3F18E1CD, 0f3F4D5626) \
    ROT(f32, 3, 6, 7, 0fBF396AE2, 0f3F396AE2, 0f3F3082F8)
#define ROT64_STEP \
    ROT(f64, 0, 0, 1, 0dBFD2E9CD95BABA33, 0d3FD2E9CD95BABA33, 0d3FEE921DD42F09BA) \
    ROT(f64, 1, 2, 3, 0dBFDCFC16C220A430, 0d3FDCFC16C220A430, 0d3FEC87BA37FE6375) \
    ROT(f64, 2, 4, 5, 0dBFE31C399D3F18A8, 0d3FE31C399D3F18A8, 0d3FE9AAC4B90BF2A8) \
    ROT(f64, 3, 6, 7, 0dBFE72D5C4BDA9FD7, 0d3FE72D5C4BDA9FD7, 0d3FE6105F048578D9)

/* The pattern's value at the word index in %rd10 into %r<reg> (kernels.h's mode 0 or 1). */
#define PATTERN_WORD(reg) \
    "    cvt.u32.u64 %r7, %rd10;\n" \
    "    shr.u64 %rd11, %rd10, 32;\n" \
    "    cvt.u32.u64 %r8, %rd11;\n" \
    "    mul.lo.u32 %r8, %r8, -1640531527;\n" \
    "    xor.b32 %r9, %r7, %r8;\n" \
    "    xor.b32 %r9, %r9, %r1;\n" \
    "    selp.u32 %r" #reg ", %r9, %r1, %p1;\n"
/* the four words of the vector whose first word index is %rd6, into %r10..%r13 */
#define PATTERN_VECTOR \
    "    mov.u64 %rd10, %rd6;\n" PATTERN_WORD(10) \
    "    add.s64 %rd10, %rd6, 1;\n" PATTERN_WORD(11) \
    "    add.s64 %rd10, %rd6, 2;\n" PATTERN_WORD(12) \
    "    add.s64 %rd10, %rd6, 3;\n" PATTERN_WORD(13)
/* %r25 += (%r<got> != %r<want>) */
#define COUNT_MISMATCH(got, want) \
    "    setp.ne.u32 %p3, %r" #got ", %r" #want ";\n" \
    "    selp.u32 %r21, 1, 0, %p3;\n" \
    "    add.u32 %r25, %r25, %r21;\n"

/* The mma kernel's f16 entries: A[.][k] with k = 2t + dk into %h<h>; B[k][n] likewise
 * (5n in %r13); C[.][n] as f32 into %g<g>. */
#define MMA_A(dk, h) \
    "    add.u32 %r11, %r10, " #dk ";\n" \
    "    mad.lo.u32 %r12, %r11, 5, %r2;\n" \
    "    rem.u32 %r12, %r12, 7;\n" \
    "    sub.s32 %r12, %r12, 3;\n" \
    "    cvt.rn.f32.s32 %g0, %r12;\n" \
    "    cvt.rn.f16.f32 %h" #h ", %g0;\n"
#define MMA_B(dk, h) \
    "    add.u32 %r11, %r10, " #dk ";\n" \
    "    mad.lo.u32 %r12, %r11, 3, %r13;\n" \
    "    add.u32 %r12, %r12, %r2;\n" \
    "    rem.u32 %r12, %r12, 7;\n" \
    "    sub.s32 %r12, %r12, 3;\n" \
    "    cvt.rn.f32.s32 %g0, %r12;\n" \
    "    cvt.rn.f16.f32 %h" #h ", %g0;\n"
#define MMA_C(dk, g) \
    "    add.u32 %r11, %r10, " #dk ";\n" \
    "    mad.lo.u32 %r12, %r11, 11, %r2;\n" \
    "    rem.u32 %r12, %r12, 9;\n" \
    "    sub.s32 %r12, %r12, 4;\n" \
    "    cvt.rn.f32.s32 %g" #g ", %r12;\n"
/* one accumulator set {%f<a>..%f<d>} += A * {B in %r<b0>, %r<b1>} */
#define MMA(a, b, c, d, b0, b1) \
    "    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f" #a ", %f" #b ", %f" #c ", %f" #d "}, " \
    "{%r20, %r20, %r21, %r21}, {%r" #b0 ", %r" #b1 "}, {%f" #a ", %f" #b ", %f" #c ", %f" #d "};\n"
#define MMA4(b0, b1) MMA(0, 1, 2, 3, b0, b1) MMA(4, 5, 6, 7, b0, b1) MMA(8, 9, 10, 11, b0, b1) MMA(12, 13, 14, 15, b0, b1)
/* accumulator set i starts as C: %f<2i> = %g0, %f<2i+1> = %g1 */
#define MMA_INIT(e, o) \
    "    mov.f32 %f" #e ", %g0;\n" \
    "    mov.f32 %f" #o ", %g1;\n"

/* The rotation kernel (kernels.h: rot32 and rot64), in one float type ty of bytes bytes. */
#define ROT_KERNEL(bits, ty, bytes, START, STEP) \
    ".visible .entry gs_burn_rot" #bits "(\n" \
    "    .param .u64 out,\n" \
    "    .param .u32 iters,\n" \
    "    .param .u32 seed)\n" \
    "{\n" \
    "    .reg .pred %p;\n" \
    "    .reg .b32 %r<12>;\n" \
    "    .reg ." #ty " %x<4>;\n" \
    "    .reg ." #ty " %y<4>;\n" \
    "    .reg ." #ty " %t<8>;\n" \
    "    .reg ." #ty " %k;\n" \
    "    .reg .b64 %rd<4>;\n" \
    "\n" \
    "    ld.param.u64 %rd1, [out];\n" \
    "    cvta.to.global.u64 %rd1, %rd1;\n" \
    "    ld.param.u32 %r1, [iters];\n" \
    "    ld.param.u32 %r2, [seed];\n" \
    "    mov.u32 %r3, %tid.x;\n" \
    "    mov.u32 %r4, %ctaid.x;\n" \
    "    mov.u32 %r5, %ntid.x;\n" \
    "    mad.lo.u32 %r6, %r4, %r5, %r3;\n" \
    "    // k_p = (tid*4 + p + seed) & 0xffff; x_p = 1 + k_p/2^16, y_p = 0.5 - k_p/2^17\n" \
    "    shl.b32 %r7, %r3, 2;\n" \
    "    add.u32 %r7, %r7, %r2;\n" \
    "    and.b32 %r8, %r7, 65535;\n" \
    START(0) \
    ROT_K(1) START(1) \
    ROT_K(2) START(2) \
    ROT_K(3) START(3) \
    "    mov.u32 %r9, 0;\n" \
    "ROT" #bits "_LOOP:\n" \
    "    setp.ge.u32 %p, %r9, %r1;\n" \
    "    @%p bra ROT" #bits "_DONE;\n" \
    "    // four steps of each rotation per trip\n" \
    STEP STEP STEP STEP \
    "    add.u32 %r9, %r9, 1;\n" \
    "    bra ROT" #bits "_LOOP;\n" \
    "ROT" #bits "_DONE:\n" \
    "    add.rn." #ty " %t0, %x0, %y0;\n" \
    "    add.rn." #ty " %t1, %x1, %y1;\n" \
    "    add.rn." #ty " %t2, %x2, %y2;\n" \
    "    add.rn." #ty " %t3, %x3, %y3;\n" \
    "    add.rn." #ty " %t0, %t0, %t1;\n" \
    "    add.rn." #ty " %t2, %t2, %t3;\n" \
    "    add.rn." #ty " %t0, %t0, %t2;\n" \
    "    mul.wide.u32 %rd2, %r6, " #bytes ";\n" \
    "    add.s64 %rd3, %rd1, %rd2;\n" \
    "    st.global." #ty " [%rd3], %t0;\n" \
    "    ret;\n" \
    "}\n" \
    "\n"

const char gs_burn_ptx_base[] =
    "//\n"
    "// gpuscope burn: the compute and memory kernels (PTX ISA 6.4, sm_52 and newer)\n"
    "//\n"
    ".version 6.4\n"
    ".target sm_52\n"
    ".address_size 64\n"
    "\n"
    ROT_KERNEL(32, f32, 4, ROT32_START, ROT32_STEP)
    ROT_KERNEL(64, f64, 8, ROT64_START, ROT64_STEP)
    "// The memory word a pattern puts at 32-bit word index w (mode 0: the pattern\n"
    "// itself; mode 1: address in address, lo(w) ^ hi(w)*0x9E3779B9 ^ pattern).\n"
    "// buf holds nvec 16-byte vectors; each thread does a grid-stride loop.\n"
    ".visible .entry gs_burn_mem_fill(\n"
    "    .param .u64 buf,\n"
    "    .param .u64 nvec,\n"
    "    .param .u32 pattern,\n"
    "    .param .u32 mode)\n"
    "{\n"
    "    .reg .pred %p<3>;\n"
    "    .reg .b32 %r<20>;\n"
    "    .reg .b64 %rd<12>;\n"
    "\n"
    "    ld.param.u64 %rd1, [buf];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    ld.param.u64 %rd2, [nvec];\n"
    "    ld.param.u32 %r1, [pattern];\n"
    "    ld.param.u32 %r2, [mode];\n"
    "    setp.ne.u32 %p1, %r2, 0;\n"
    "    mov.u32 %r3, %tid.x;\n"
    "    mov.u32 %r4, %ctaid.x;\n"
    "    mov.u32 %r5, %ntid.x;\n"
    "    mov.u32 %r6, %nctaid.x;\n"
    "    mul.wide.u32 %rd3, %r4, %r5;\n"
    "    cvt.u64.u32 %rd4, %r3;\n"
    "    add.s64 %rd3, %rd3, %rd4;        // vector index\n"
    "    mul.wide.u32 %rd5, %r5, %r6;     // grid stride\n"
    "FILL_LOOP:\n"
    "    setp.ge.u64 %p2, %rd3, %rd2;\n"
    "    @%p2 bra FILL_DONE;\n"
    "    shl.b64 %rd6, %rd3, 2;           // first word index\n"
    PATTERN_VECTOR
    "    shl.b64 %rd7, %rd3, 4;\n"
    "    add.s64 %rd8, %rd1, %rd7;\n"
    "    st.global.v4.u32 [%rd8], {%r10, %r11, %r12, %r13};\n"
    "    add.s64 %rd3, %rd3, %rd5;\n"
    "    bra FILL_LOOP;\n"
    "FILL_DONE:\n"
    "    ret;\n"
    "}\n"
    "\n"
    "// Moving inversions: check that every word holds the value of `pattern`,\n"
    "// count the words that do not into *errors, and write the value of `next`.\n"
    ".visible .entry gs_burn_mem_check(\n"
    "    .param .u64 buf,\n"
    "    .param .u64 nvec,\n"
    "    .param .u32 pattern,\n"
    "    .param .u32 mode,\n"
    "    .param .u32 next,\n"
    "    .param .u64 errors)\n"
    "{\n"
    "    .reg .pred %p<8>;\n"
    "    .reg .b32 %r<30>;\n"
    "    .reg .b64 %rd<12>;\n"
    "\n"
    "    ld.param.u64 %rd1, [buf];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    ld.param.u64 %rd2, [nvec];\n"
    "    ld.param.u32 %r1, [pattern];\n"
    "    ld.param.u32 %r2, [mode];\n"
    "    ld.param.u32 %r20, [next];\n"
    "    ld.param.u64 %rd9, [errors];\n"
    "    cvta.to.global.u64 %rd9, %rd9;\n"
    "    setp.ne.u32 %p1, %r2, 0;\n"
    "    mov.u32 %r3, %tid.x;\n"
    "    mov.u32 %r4, %ctaid.x;\n"
    "    mov.u32 %r5, %ntid.x;\n"
    "    mov.u32 %r6, %nctaid.x;\n"
    "    mul.wide.u32 %rd3, %r4, %r5;\n"
    "    cvt.u64.u32 %rd4, %r3;\n"
    "    add.s64 %rd3, %rd3, %rd4;\n"
    "    mul.wide.u32 %rd5, %r5, %r6;\n"
    "    mov.u32 %r25, 0;                 // mismatches seen by this thread\n"
    "CHECK_LOOP:\n"
    "    setp.ge.u64 %p2, %rd3, %rd2;\n"
    "    @%p2 bra CHECK_DONE;\n"
    "    shl.b64 %rd6, %rd3, 2;\n"
    "    shl.b64 %rd7, %rd3, 4;\n"
    "    add.s64 %rd8, %rd1, %rd7;\n"
    "    ld.global.v4.u32 {%r14, %r15, %r16, %r17}, [%rd8];\n"
    PATTERN_VECTOR
    COUNT_MISMATCH(14, 10) COUNT_MISMATCH(15, 11) COUNT_MISMATCH(16, 12) COUNT_MISMATCH(17, 13)
    "    // the next pattern's values: the same function with `next`\n"
    "    xor.b32 %r22, %r1, %r20;         // pattern ^ next flips the same bits in every word\n"
    "    xor.b32 %r10, %r10, %r22;\n"
    "    xor.b32 %r11, %r11, %r22;\n"
    "    xor.b32 %r12, %r12, %r22;\n"
    "    xor.b32 %r13, %r13, %r22;\n"
    "    st.global.v4.u32 [%rd8], {%r10, %r11, %r12, %r13};\n"
    "    add.s64 %rd3, %rd3, %rd5;\n"
    "    bra CHECK_LOOP;\n"
    "CHECK_DONE:\n"
    "    setp.eq.u32 %p4, %r25, 0;\n"
    "    @%p4 bra CHECK_RET;\n"
    "    atom.global.add.u32 %r26, [%rd9], %r25;\n"
    "CHECK_RET:\n"
    "    ret;\n"
    "}\n"
    "\n"
    "// Count the words of out (nwords) that differ from ref[i % refwords]: every\n"
    "// launch's output against block 0 of the first launch.\n"
    ".visible .entry gs_burn_cmp(\n"
    "    .param .u64 out,\n"
    "    .param .u64 ref,\n"
    "    .param .u32 nwords,\n"
    "    .param .u32 refwords,\n"
    "    .param .u64 errors)\n"
    "{\n"
    "    .reg .pred %p<4>;\n"
    "    .reg .b32 %r<20>;\n"
    "    .reg .b64 %rd<10>;\n"
    "\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    ld.param.u64 %rd2, [ref];\n"
    "    cvta.to.global.u64 %rd2, %rd2;\n"
    "    ld.param.u32 %r1, [nwords];\n"
    "    ld.param.u32 %r2, [refwords];\n"
    "    ld.param.u64 %rd3, [errors];\n"
    "    cvta.to.global.u64 %rd3, %rd3;\n"
    "    mov.u32 %r3, %tid.x;\n"
    "    mov.u32 %r4, %ctaid.x;\n"
    "    mov.u32 %r5, %ntid.x;\n"
    "    mov.u32 %r6, %nctaid.x;\n"
    "    mad.lo.u32 %r7, %r4, %r5, %r3;\n"
    "    mul.lo.u32 %r8, %r5, %r6;\n"
    "    mov.u32 %r15, 0;\n"
    "CMP_LOOP:\n"
    "    setp.ge.u32 %p1, %r7, %r1;\n"
    "    @%p1 bra CMP_DONE;\n"
    "    rem.u32 %r9, %r7, %r2;\n"
    "    mul.wide.u32 %rd4, %r7, 4;\n"
    "    add.s64 %rd5, %rd1, %rd4;\n"
    "    ld.global.u32 %r10, [%rd5];\n"
    "    mul.wide.u32 %rd6, %r9, 4;\n"
    "    add.s64 %rd7, %rd2, %rd6;\n"
    "    ld.global.u32 %r11, [%rd7];\n"
    "    setp.ne.u32 %p2, %r10, %r11;\n"
    "    selp.u32 %r12, 1, 0, %p2;\n"
    "    add.u32 %r15, %r15, %r12;\n"
    "    add.u32 %r7, %r7, %r8;\n"
    "    bra CMP_LOOP;\n"
    "CMP_DONE:\n"
    "    setp.eq.u32 %p3, %r15, 0;\n"
    "    @%p3 bra CMP_RET;\n"
    "    atom.global.add.u32 %r16, [%rd3], %r15;\n"
    "CMP_RET:\n"
    "    ret;\n"
    "}\n";

const char gs_burn_ptx_mma[] =
    "//\n"
    "// gpuscope burn: the tensor-core kernel (PTX ISA 7.0, mma.sync.m16n8k16, sm_80 and newer)\n"
    "//\n"
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    "// Each warp multiplies fixed 16x16 (A) by 16x8 (B) f16 matrices into four f32\n"
    "// accumulator sets, alternately adding A*B and A*(-B), then A*B once more.\n"
    "// The entries are small integers, so every product and partial sum is exact\n"
    "// in f32 whatever order the tensor core sums in: the result is\n"
    "// 4 * (C + A*B) exactly, which the CPU computes from the same formulas.\n"
    "// A[i][k] = ((5k + seed) % 7) - 3 (the same in every row), B[k][n] =\n"
    "// ((3k + 5n + seed) % 7) - 3, C[i][n] = ((11n + seed) % 9) - 4.\n"
    "// Fragment layout (PTX ISA, \"Matrix Fragments for mma.m16n8k16\"): lane =\n"
    "// 4*group + t; a0..a7 hold columns k = 2t + (i & 1) + 8*(i >= 4); b0..b3 rows\n"
    "// k = 2t + (i & 1) + 8*(i >= 2), column n = group; c0..c3 column 2t + (i & 1).\n"
    ".visible .entry gs_burn_mma(\n"
    "    .param .u64 out,\n"
    "    .param .u32 iters,\n"
    "    .param .u32 seed)\n"
    "{\n"
    "    .reg .pred %p;\n"
    "    .reg .b32 %r<40>;\n"
    "    .reg .b16 %h<8>;\n"
    "    .reg .f32 %f<24>;\n"
    "    .reg .f32 %g<2>;\n"
    "    .reg .b64 %rd<4>;\n"
    "\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    ld.param.u32 %r1, [iters];\n"
    "    ld.param.u32 %r2, [seed];\n"
    "    mov.u32 %r3, %tid.x;\n"
    "    mov.u32 %r4, %ctaid.x;\n"
    "    mov.u32 %r5, %ntid.x;\n"
    "    mad.lo.u32 %r6, %r4, %r5, %r3;      // global thread index\n"
    "    and.b32 %r7, %r3, 31;               // lane\n"
    "    shr.u32 %r8, %r7, 2;                // group: the B column n\n"
    "    and.b32 %r9, %r7, 3;                // t\n"
    "    shl.b32 %r10, %r9, 1;               // 2t\n"
    MMA_A(0, 0) MMA_A(1, 1) MMA_A(8, 2) MMA_A(9, 3)
    "    mov.b32 %r20, {%h0, %h1};          // a0,a1 (= a2,a3)\n"
    "    mov.b32 %r21, {%h2, %h3};          // a4,a5 (= a6,a7)\n"
    "    mul.lo.u32 %r13, %r8, 5;            // 5n\n"
    MMA_B(0, 4) MMA_B(1, 5) MMA_B(8, 6) MMA_B(9, 7)
    "    mov.b32 %r22, {%h4, %h5};          // b0,b1\n"
    "    mov.b32 %r23, {%h6, %h7};          // b2,b3\n"
    "    xor.b32 %r24, %r22, -2147450880;   // -B: flip both halves' sign bits (0x80008000)\n"
    "    xor.b32 %r25, %r23, -2147450880;\n"
    MMA_C(0, 0) MMA_C(1, 1)
    MMA_INIT(0, 1) MMA_INIT(2, 3) MMA_INIT(4, 5) MMA_INIT(6, 7)
    MMA_INIT(8, 9) MMA_INIT(10, 11) MMA_INIT(12, 13) MMA_INIT(14, 15)
    "    mov.u32 %r30, 0;\n"
    "MMA_LOOP:\n"
    "    setp.ge.u32 %p, %r30, %r1;\n"
    "    @%p bra MMA_DONE;\n"
    MMA4(22, 23)
    MMA4(24, 25)
    "    add.u32 %r30, %r30, 1;\n"
    "    bra MMA_LOOP;\n"
    "MMA_DONE:\n"
    MMA4(22, 23)
    "    add.rn.f32 %f16, %f0, %f4;\n"
    "    add.rn.f32 %f20, %f8, %f12;\n"
    "    add.rn.f32 %f16, %f16, %f20;\n"
    "    add.rn.f32 %f17, %f1, %f5;\n"
    "    add.rn.f32 %f21, %f9, %f13;\n"
    "    add.rn.f32 %f17, %f17, %f21;\n"
    "    add.rn.f32 %f18, %f2, %f6;\n"
    "    add.rn.f32 %f22, %f10, %f14;\n"
    "    add.rn.f32 %f18, %f18, %f22;\n"
    "    add.rn.f32 %f19, %f3, %f7;\n"
    "    add.rn.f32 %f23, %f11, %f15;\n"
    "    add.rn.f32 %f19, %f19, %f23;\n"
    "    mul.wide.u32 %rd2, %r6, 16;\n"
    "    add.s64 %rd3, %rd1, %rd2;\n"
    "    st.global.v4.f32 [%rd3], {%f16, %f17, %f18, %f19};\n"
    "    ret;\n"
    "}\n";
