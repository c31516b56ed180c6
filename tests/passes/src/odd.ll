; odd.ll: IR shapes the corpus does not produce, for tests/passes/check_robust.py:
; the analysis must not crash on them, must print YAML, and must say "unknown"
; (with a reason) rather than guess. Hand-written; each kernel's comment says
; what the check expects.
target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@lds = internal addrspace(3) global [256 x i32] poison, align 16

; empty: no facts at all
define amdgpu_kernel void @empty() #0 {
  ret void
}

; a switch on the lane: three accesses, each conditional; lane stride 4
define amdgpu_kernel void @switchy(ptr addrspace(1) %p) #0 {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %k = and i32 %t, 3
  %g = getelementptr inbounds i32, ptr addrspace(1) %p, i32 %t
  switch i32 %k, label %d [ i32 0, label %a
                            i32 1, label %b ]
a:
  store i32 1, ptr addrspace(1) %g, align 4
  br label %d
b:
  store i32 2, ptr addrspace(1) %g, align 4
  br label %d
d:
  %v = load i32, ptr addrspace(1) %g, align 4
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}

; irreducible control flow (a cycle with two entries): no natural loop
define amdgpu_kernel void @irreducible(ptr addrspace(1) %p, i32 %n) #0 {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %x, label %y
x:
  %i = phi i32 [ 0, %entry ], [ %j1, %y ]
  %i1 = add i32 %i, 1
  %cx = icmp slt i32 %i1, %n
  br i1 %cx, label %y, label %done
y:
  %j = phi i32 [ 0, %entry ], [ %i1, %x ]
  %j1 = add i32 %j, 2
  %gp = getelementptr i32, ptr addrspace(1) %p, i32 %j
  store i32 %j, ptr addrspace(1) %gp, align 4
  %cy = icmp slt i32 %j1, %n
  br i1 %cy, label %x, label %done
done:
  ret void
}

; an infinite loop with a barrier, and an unreachable block
define amdgpu_kernel void @forever(ptr addrspace(3) %q) #0 {
entry:
  br label %l
l:
  call void @llvm.amdgcn.s.barrier()
  store i32 0, ptr addrspace(3) %q, align 4
  br label %l
dead:
  ret void
}

; flat and scratch: a generic pointer parameter, a private array indexed by the lane
define amdgpu_kernel void @flat_scratch(ptr %f, i32 %i) #0 {
  %a = alloca [64 x i32], align 4, addrspace(5)
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %s = getelementptr [64 x i32], ptr addrspace(5) %a, i32 0, i32 %i
  store volatile i32 %t, ptr addrspace(5) %s, align 4
  %v = load volatile i32, ptr addrspace(5) %s, align 4
  %fp = getelementptr i32, ptr %f, i32 %t
  store i32 %v, ptr %fp, align 4
  ret void
}

; atomics and memory intrinsics: cmpxchg, memcpy of a kernel-argument length
; (bytes_per_lane 0: not a constant), memset of 16 bytes
define amdgpu_kernel void @memops(ptr addrspace(1) %d, ptr addrspace(1) %s, i64 %n) #0 {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %d, i32 %t
  %x = cmpxchg ptr addrspace(1) %p, i32 0, i32 1 seq_cst seq_cst, align 4
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) %d, ptr addrspace(1) %s, i64 %n, i1 false)
  call void @llvm.memset.p1.i64(ptr addrspace(1) %s, i8 0, i64 16, i1 false)
  ret void
}

; buffers: an old-style <4 x i32> resource made from a pointer, and a struct
; buffer whose record stride is not a constant (unknown stride, with a reason)
define amdgpu_kernel void @buffers(ptr addrspace(1) %base, i16 %stride, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %pi = ptrtoint ptr addrspace(1) %base to i64
  %lo = trunc i64 %pi to i32
  %hi64 = lshr i64 %pi, 32
  %hi = trunc i64 %hi64 to i32
  %r0 = insertelement <4 x i32> poison, i32 %lo, i32 0
  %r1 = insertelement <4 x i32> %r0, i32 %hi, i32 1
  %r2 = insertelement <4 x i32> %r1, i32 -1, i32 2
  %r3 = insertelement <4 x i32> %r2, i32 159744, i32 3
  %off = shl i32 %t, 3
  %v = call <2 x i32> @llvm.amdgcn.raw.buffer.load.v2i32(<4 x i32> %r3, i32 %off, i32 0, i32 0)
  %rs = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %base, i16 %stride, i64 4096, i32 0)
  %w = call i32 @llvm.amdgcn.struct.ptr.buffer.load.i32(ptr addrspace(8) %rs, i32 %t, i32 0, i32 0, i32 0)
  %e = extractelement <2 x i32> %v, i32 0
  %sum = add i32 %e, %w
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %sum, ptr addrspace(1) %o, align 4
  ret void
}

; cross-lane odds: readlane of a non-constant lane, dpp8, permlane64, ballot,
; the wave.reduce intrinsic, an update.dpp whose old is not the identity
define amdgpu_kernel void @xodd(ptr addrspace(1) %p, i32 %l) #0 {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %a = call i32 @llvm.amdgcn.readlane.i32(i32 %t, i32 %l)
  %b = call i32 @llvm.amdgcn.mov.dpp8.i32(i32 %t, i32 16434824)
  %c = call i32 @llvm.amdgcn.permlane64.i32(i32 %t)
  %cmp = icmp eq i32 %t, 0
  %m = call i64 @llvm.amdgcn.ballot.i64(i1 %cmp)
  %r = call i32 @llvm.amdgcn.wave.reduce.umin.i32(i32 %t, i32 0)
  %d = call i32 @llvm.amdgcn.update.dpp.i32(i32 7, i32 %t, i32 273, i32 15, i32 15, i1 false)
  %e = add i32 %t, %d
  %s1 = add i32 %a, %b
  %s2 = add i32 %s1, %c
  %m32 = trunc i64 %m to i32
  %s3 = add i32 %s2, %m32
  %s4 = add i32 %s3, %r
  %s5 = add i32 %s4, %e
  %o = getelementptr i32, ptr addrspace(1) %p, i32 %t
  store i32 %s5, ptr addrspace(1) %o, align 4
  ret void
}

; a long chain of lane-dependent arithmetic feeding an LDS index: the lane
; evaluator's budget ends it (lane stride from SCEV: 4 bytes)
define amdgpu_kernel void @deep(ptr addrspace(1) %p) #0 {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
;DEEP-CHAIN
  %idx = and i32 %x300, 255
  %g = getelementptr [256 x i32], ptr addrspace(3) @lds, i32 0, i32 %idx
  store i32 1, ptr addrspace(3) %g, align 4
  ret void
}

; inline asm in LLVM's operand syntax: the text comes back in the source's
; (GCC) syntax: "s_nop 0 ; %v0 %1 $"
define amdgpu_kernel void @asmsyntax() #0 {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  call void asm sideeffect "s_nop 0 ; ${0:v} $1 $$", "v,v"(i32 %t, i32 %t)
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
declare void @llvm.memcpy.p1.p1.i64(ptr addrspace(1), ptr addrspace(1), i64, i1)
declare void @llvm.memset.p1.i64(ptr addrspace(1), i8, i64, i1)
declare <2 x i32> @llvm.amdgcn.raw.buffer.load.v2i32(<4 x i32>, i32, i32, i32)
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
declare i32 @llvm.amdgcn.struct.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32, i32)
declare i32 @llvm.amdgcn.readlane.i32(i32, i32)
declare i32 @llvm.amdgcn.mov.dpp8.i32(i32, i32)
declare i32 @llvm.amdgcn.permlane64.i32(i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare i32 @llvm.amdgcn.wave.reduce.umin.i32(i32, i32)
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)

attributes #0 = { "target-cpu"="gfx942" "amdgpu-flat-work-group-size"="1,256" }
