// ENV: TRITIUM_REDUCE_SHUFFLE_TREE=1
// Row softmax: in-thread fold, a 5-step shfl.sync.bfly butterfly, then the 4 warps combine
// through shared memory (st.shared, bar.sync, one ld.shared.v4). The first reduction needs
// no barrier before its stores (nothing used shared memory yet); the second one does.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @softmax(%out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %in: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ip = tt.splat %in : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %ia = tt.addptr %ip, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %x = tt.load %ia : tensor<1024x!tt.ptr<f32>, #blocked>
    %mx = "tt.reduce"(%x) ({
    ^bb0(%a: f32, %b: f32):
      %m = arith.maxnumf %a, %b : f32
      tt.reduce.return %m : f32
    }) {axis = 0 : i32, allocation.offset = 0 : i32} : (tensor<1024xf32, #blocked>) -> f32
    %mxs = tt.splat %mx : f32 -> tensor<1024xf32, #blocked>
    %d = arith.subf %x, %mxs : tensor<1024xf32, #blocked>
    %e = math.exp %d : tensor<1024xf32, #blocked>
    %s = "tt.reduce"(%e) ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.reduce.return %t : f32
    }) {axis = 0 : i32, allocation.offset = 0 : i32} : (tensor<1024xf32, #blocked>) -> f32
    %ss = tt.splat %s : f32 -> tensor<1024xf32, #blocked>
    %y = arith.divf %e, %ss : tensor<1024xf32, #blocked>
    %op = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %oa = tt.addptr %op, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %oa, %y : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
// LLIR: @global_smem = external addrspace(3) global [0 x i8], align 16
// LLIR: call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %{{.*}}, i32 16, i32 31)
// LLIR-NOT: barrier0
// LLIR: store float
// LLIR: call void @llvm.nvvm.barrier0()
// LLIR: load <4 x float>, ptr addrspace(3) @global_smem, align 16
// PTX: max.f32
// PTX-COUNT-5: shfl.sync.bfly.b32
// PTX-NOT: bar.sync
// PTX: st.shared.b32
// PTX: bar.sync 0;
// PTX: ld.shared.v4.b32
// PTX: ex2.approx.f32
// PTX-COUNT-5: shfl.sync.bfly.b32
// PTX: bar.sync 0;
// PTX: st.shared.b32
// PTX: bar.sync 0;
// PTX: ld.shared.v4.b32
// PTX: div.full.f32
