// Row-major to column-major blocked layouts cross warps: bar.sync, swizzled 16-byte
// st.shared, bar.sync, 16-byte ld.shared at the op's allocation.offset.
#row = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.shared" = 32768 : i32} {
  tt.func private @cvt(%x: tensor<64x64xf32, #row>) -> tensor<64x64xf32, #col> {
    %y = ttg.convert_layout %x {allocation.offset = 16384 : i32} : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
    tt.return %y : tensor<64x64xf32, #col>
  }
}
// LLIR: call void @llvm.nvvm.barrier0()
// LLIR: getelementptr i8, ptr addrspace(3) @global_smem
// LLIR: store <4 x float>
// LLIR: call void @llvm.nvvm.barrier0()
// LLIR: load <4 x float>
