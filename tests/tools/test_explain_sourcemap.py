"""Source maps of each stage's text, on hand-written inputs."""
from tritium.tools.explain.sourcemap import (SourceSpan, map_host_asm, map_llir, map_mlir,
                                             map_plain, map_ptx, map_sass)

SPAN = SourceSpan("/src/k.py", 10, 14)


def test_mlir_locations_region_ops_and_callsites():
    text = "\n".join([
        "module {",
        "  tt.func public @k(%arg0: i32) {",
        '    %0 = "tt.reduce"(%x) ({',
        "    ^bb0(%a: f32, %b: f32):",
        '      %1 = arith.addf %a, %b : f32 loc(callsite("/lib/standard.py":5:1 at "/src/k.py":12:3))',
        '      tt.reduce.return %1 : f32 loc("/lib/standard.py":6:1)',
        '    }) {axis = 0 : i32} : (tensor<4xf32>) -> f32 loc(callsite("/lib/standard.py":7:1 at '
        'callsite("/lib/standard.py":9:2 at "/src/k.py":12:3)))',
        '    %2 = arith.muli %arg0, %arg0 : i32 loc("/src/k.py":13:8)',
        '    %3 = arith.muli %arg0, %arg0 : i32 loc("/src/other.py":13:8)',
        '    tt.return loc("/src/k.py":20:0)',
        '  } loc("/src/k.py":10:0)',
        "}"])
    m = map_mlir(text, SPAN)
    assert m.src == [0, 10, 12, 0, 12, 0, 12, 13, 0, 0, 10, 0]
    assert all(" loc(" not in line for line in m.lines)
    assert m.lines[7] == "    %2 = arith.muli %arg0, %arg0 : i32"


def test_llir_dbg_tags_and_metadata_hidden():
    text = "\n".join([
        "define ptx_kernel void @k(i32 %arg0) !dbg !3 {",
        "entry:",
        "  %v.1 = add i32 %arg0, 1, !dbg !4",
        "  %v.2 = mul i32 %v.1, 3, !dbg !5",
        "  %v.3 = mul i32 %v.2, 3",
        "  ret void, !dbg !6",
        "}",
        "",
        "!llvm.dbg.cu = !{!0}",
        "!llvm.module.flags = !{!7, !8}",
        '!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: "tritium")',
        '!1 = !DIFile(filename: "k.py", directory: "/src")',
        "!4 = !DILocation(line: 11, column: 4, scope: !3)",
        "!5 = !DILocation(line: 13, column: 4, scope: !3)",
        "!6 = !DILocation(line: 99, column: 0, scope: !3)",
        '!7 = !{i32 2, !"Debug Info Version", i32 3}',
        '!8 = !{i32 2, !"Dwarf Version", i32 4}'])
    m = map_llir(text, SPAN)
    assert m.lines == ["define ptx_kernel void @k(i32 %arg0) {", "entry:",
                       "  %v.1 = add i32 %arg0, 1", "  %v.2 = mul i32 %v.1, 3",
                       "  %v.3 = mul i32 %v.2, 3", "  ret void", "}"]
    assert m.src == [0, 0, 11, 13, 0, 0, 0]


def test_ptx_loc_holds_until_the_next_and_is_hidden():
    text = "\n".join([
        ".version 8.0",
        ".visible .entry k(",
        "\t.param .u32 k_param_0",
        ")",
        "{",
        "\t.reg .b32 \t%r<4>;",
        "\t.loc\t1 11 4",
        "$L__tmp0:",
        "\tld.param.b32 \t%r1, [k_param_0];",
        "\t// begin inline asm",
        "\t@%p1 st.global.b32 [ %rd1 + 0 ], %r1;",
        "\t// end inline asm",
        "\t.loc\t2 12 0",
        "\tadd.s32 \t%r2, %r1, 1;",
        "\t.loc\t1 14 1",
        "\tret;",
        "}",
        "\t.file\t1 \"/src/k.py\"",
        "\t.file\t2 \"/lib/standard.py\"",
        "\t.section\t.debug_abbrev",
        "\t{",
        ".b8 1",
        "\t}",
        "\t.section\t.debug_macinfo\t{\t}"])
    m = map_ptx(text, SPAN)
    assert [l.strip() for l in m.lines] == [
        ".version 8.0", ".visible .entry k(", ".param .u32 k_param_0", ")", "{",
        ".reg .b32 \t%r<4>;", "ld.param.b32 \t%r1, [k_param_0];", "// begin inline asm",
        "@%p1 st.global.b32 [ %rd1 + 0 ], %r1;", "// end inline asm",
        "add.s32 \t%r2, %r1, 1;", "ret;", "}"]
    assert m.src == [0, 0, 0, 0, 0, 0, 11, 11, 11, 11, 0, 14, 0]
    assert "11 line-table lines hidden" in m.note  # 3 .loc, a label, 2 .file, 5 DWARF


def test_sass_markers():
    text = "\n".join([
        "//--------------------- .text.k --------------------------",
        "k:",
        '\t//## File "/src/k.py", line 11',
        "        /*0000*/                   LDC R1, c[0x0][0x28] ;",
        ".L_x_1:",
        "        /*0010*/                   IADD3 R2, R0, 0x80, RZ ;",
        '\t//## File "/lib/standard.py", line 3',
        "        /*0020*/                   EXIT ;",
        "//--------------------- SYMBOLS --------------------------",
        "        /*0030*/                   NOP;"])
    m = map_sass(text, SPAN)
    assert len(m.lines) == 8 and not any("//##" in l for l in m.lines)
    assert m.src == [0, 0, 11, 0, 11, 0, 0, 0]
    assert map_plain("a\nb").src == [0, 0]


def test_host_asm_loc_line_zero_and_dwarf_hidden():
    text = "\n".join([
        '\t.file\t"<string>"',
        "\t.section\t.rodata.cst4,\"aM\",@progbits,4",
        ".LCPI0_0:",
        "\t.long\t16",
        "\t.section\t.ltext,\"axl\",@progbits",
        "\t.globl\tk",
        "k:",
        ".Lfunc_begin0:",
        '\t.file\t1 "/src" "k.py"',
        '\t.file\t2 "/lib/standard.py"',
        "\t.loc\t1 10 0",
        "\t.cfi_startproc",
        "\tpushq\t%rbp",
        "\t.loc\t1 11 4 prologue_end",
        "\tmovl\t16(%rdi), %ecx",
        "\t.loc\t1 0 0 is_stmt 0",
        ".Ltmp0:",
        ".LBB0_1:",
        "\tincl\t%eax",
        "\t.loc\t1 13 8 is_stmt 1",
        "\tvaddps\t%zmm1, %zmm0, %zmm0",
        "\t.loc\t2 3 1",
        "\tvmaxps\t%zmm1, %zmm0, %zmm0",
        "\t.loc\t1 14 1",
        "\tretq",
        ".Lfunc_end0:",
        "\t.size\tk, .Lfunc_end0-k",
        "\t.cfi_endproc",
        "",
        "\t.section\t.debug_abbrev,\"\",@progbits",
        "\t.byte\t1",
        "\t.section\t\".note.GNU-stack\",\"\",@progbits",
        "\t.section\t.debug_line,\"\",@progbits",
        ".Lline_table_start0:"])
    m = map_host_asm(text, SPAN)
    assert [l.strip() for l in m.lines] == [
        '.file\t"<string>"', '.section\t.rodata.cst4,"aM",@progbits,4', ".LCPI0_0:",
        ".long\t16", '.section\t.ltext,"axl",@progbits', ".globl\tk", "k:",
        ".Lfunc_begin0:", "pushq\t%rbp", "movl\t16(%rdi), %ecx", ".LBB0_1:", "incl\t%eax",
        "vaddps\t%zmm1, %zmm0, %zmm0", "vmaxps\t%zmm1, %zmm0, %zmm0", "retq",
        ".Lfunc_end0:", ".size\tk, .Lfunc_end0-k", ""]
    # line 0 is no line; file 2 is outside the kernel; directives and labels map nowhere
    assert m.src == [0, 0, 0, 0, 0, 0, 0, 0, 10, 11, 0, 0, 13, 0, 14, 0, 0, 0]
    assert m.note.startswith("16 ")  # 2 .file, 6 .loc, a label, 2 CFI, 5 DWARF/note lines
