// ENV: TRITIUM_REDUCE_SHUFFLE_TREE=1
// Row max of a [2, 2048] tile over 16 warps (Inductor's softmax: XBLOCK=2, R0_BLOCK=2048,
// num_warps=16), with Inductor's NaN-propagating combine. After the in-thread fold and the
// 5-step lane butterfly, the 16 per-warp partials of each row go through shared memory and
// a 4-level shuffle tree (distances 1, 2, 4, 8) run by one warp's 32 lanes (2 rows x 16
// partials; the other 15 warps branch past it), whose group leaders write the row maxima
// back; no thread folds 16 partials serially (no ld.shared.v4 of partials). As the
// kernel's first use of shared memory, the partials' stores need no barrier before them.
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 16], order = [1, 0]}>
#rows = #ttg.slice<{dim = 1, parent = #blocked}>
#cols = #ttg.slice<{dim = 0, parent = #blocked}>
module attributes {"ttg.num-warps" = 16 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rowmax(%in: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %c = tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32, #cols>
    %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<2048xi32, #cols> -> tensor<1x2048xi32, #blocked>
    %r = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32, #rows>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<2xi32, #rows> -> tensor<2x1xi32, #blocked>
    %k = arith.constant dense<2048> : tensor<2x1xi32, #blocked>
    %rs = arith.muli %r2, %k : tensor<2x1xi32, #blocked>
    %rb = tt.broadcast %rs : tensor<2x1xi32, #blocked> -> tensor<2x2048xi32, #blocked>
    %cb = tt.broadcast %c2 : tensor<1x2048xi32, #blocked> -> tensor<2x2048xi32, #blocked>
    %off = arith.addi %rb, %cb : tensor<2x2048xi32, #blocked>
    %p = tt.splat %in : !tt.ptr<f32> -> tensor<2x2048x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %p, %off : tensor<2x2048x!tt.ptr<f32>, #blocked>, tensor<2x2048xi32, #blocked>
    %x = tt.load %pa : tensor<2x2048x!tt.ptr<f32>, #blocked>
    %m = "tt.reduce"(%x) ({
    ^bb0(%a: f32, %b: f32):
      %gt = arith.cmpf ogt, %a, %b : f32
      %nan = arith.cmpf une, %a, %a : f32
      %pick = arith.ori %gt, %nan : i1
      %v = arith.select %pick, %a, %b : f32
      tt.reduce.return %v : f32
    }) {axis = 1 : i32, allocation.offset = 0 : i32} : (tensor<2x2048xf32, #blocked>) -> tensor<2xf32, #rows>
    %op = tt.splat %out : !tt.ptr<f32> -> tensor<2x!tt.ptr<f32>, #rows>
    %oa = tt.addptr %op, %r : tensor<2x!tt.ptr<f32>, #rows>, tensor<2xi32, #rows>
    tt.store %oa, %m : tensor<2x!tt.ptr<f32>, #rows>
    tt.return
  }
}
// LLIR: define ptx_kernel void @rowmax(
// LLIR-NOT: barrier0
// LLIR: store float
// LLIR: call void @llvm.nvvm.barrier0()
// LLIR-NEXT: br i1 %{{.*}}, label %red_tree{{[0-9]+}}, label %red_tree_done
// LLIR-NOT: load <4 x float>
// LLIR: load float, ptr addrspace(3)
// LLIR: @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %{{.*}}, i32 1, i32 31)
// LLIR: @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %{{.*}}, i32 2, i32 31)
// LLIR: @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %{{.*}}, i32 4, i32 31)
// LLIR: @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %{{.*}}, i32 8, i32 31)
// LLIR-NOT: shfl.sync
// LLIR: br i1 %{{.*}}, label %red_st
// LLIR: red_st{{[0-9]+}}:
// LLIR: store float
// LLIR-NEXT: br label %red_done
// LLIR: red_tree_done{{[0-9]+}}:
// LLIR-NEXT: call void @llvm.nvvm.barrier0()
// LLIR-NOT: load <4 x float>
// LLIR: load float, ptr addrspace(3) @global_smem,
// LLIR: getelementptr i8, ptr addrspace(3) @global_smem, i32 64
// LLIR-NEXT: load float, ptr addrspace(3)
// PTX-COUNT-10: shfl.sync.bfly.b32
// PTX-NOT: bar.sync
// PTX: st.shared.b32
// PTX: st.shared.b32
// PTX: bar.sync 0;
// PTX-NOT: ld.shared.v4
// PTX: ld.shared.b32
// PTX-NEXT: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// PTX: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// PTX: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// PTX: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// PTX-NOT: shfl.sync
// PTX: st.shared.b32
// PTX: bar.sync 0;
// PTX-NOT: ld.shared.v4
// PTX: ld.shared.b32
// PTX: ld.shared.b32
// PTX-NOT: ld.shared
