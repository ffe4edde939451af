// fp32 vector add: 4 contiguous registers per thread and 16-byte aligned pointers give
// one 16-byte load/store per operand per thread, the mask is the predicate.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @add_kernel(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %c512 = arith.constant 512 : i32
    %pid = tt.get_program_id x : i32
    %s = arith.muli %pid, %c512 : i32
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %ss = tt.splat %s : i32 -> tensor<512xi32, #blocked>
    %off = arith.addi %ss, %r : tensor<512xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<512xi32, #blocked>
    %m = arith.cmpi slt, %off, %ns : tensor<512xi32, #blocked>
    %xp = tt.splat %x : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %xa = tt.addptr %xp, %off : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %xv = tt.load %xa, %m : tensor<512x!tt.ptr<f32>, #blocked>
    %yp = tt.splat %y : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %ya = tt.addptr %yp, %off : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %yv = tt.load %ya, %m : tensor<512x!tt.ptr<f32>, #blocked>
    %z = arith.addf %xv, %yv : tensor<512xf32, #blocked>
    %op = tt.splat %o : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %oa = tt.addptr %op, %off : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    tt.store %oa, %z, %m : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
// LLIR: define ptx_kernel void @add_kernel(ptr addrspace(1) %arg0, ptr addrspace(1) %arg1, ptr addrspace(1) %arg2, i32 %arg3) "nvvm.reqntid"="128"
// LLIR: call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// LLIR: ld.global.v4.b32
// LLIR: ld.global.v4.b32
// LLIR: fadd float
// LLIR: st.global.v4.b32
// PTX: .reqntid 128
// PTX-COUNT-2: @%p{{[0-9]+}} ld.global.v4.b32 { %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}} }
// PTX-COUNT-4: add.f32
// PTX: @%p{{[0-9]+}} st.global.v4.b32
// PTX-NOT: ld.global.b32
// PTX-NOT: local
