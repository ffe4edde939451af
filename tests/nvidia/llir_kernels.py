"""Hand-written LLVM IR kernels shared by the toolchain and launch tests."""

ADD_KERNEL = r"""
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

define ptx_kernel void @add_kernel(ptr addrspace(1) %x, ptr addrspace(1) %y, ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %bid, 128
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %body, label %exit
body:
  %idx = sext i32 %i to i64
  %px = getelementptr float, ptr addrspace(1) %x, i64 %idx
  %py = getelementptr float, ptr addrspace(1) %y, i64 %idx
  %po = getelementptr float, ptr addrspace(1) %out, i64 %idx
  %a = load float, ptr addrspace(1) %px
  %b = load float, ptr addrspace(1) %py
  %s = fadd float %a, %b
  store float %s, ptr addrspace(1) %po
  br label %exit
exit:
  ret void
}
"""
