"""The NVIDIA command-line tools: ptxas (PTX -> cubin) and cuobjdump (cubin -> SASS).

Nothing here runs at import time: upstream Triton paid seconds of import time
for running `ptxas --version` eagerly (triton#1599), so tools are located and
queried on first use and the answers cached (keyed by path and mtime, so
replacing a binary is noticed).

Search order for a tool (first hit wins):
  1. an explicit path given to `set_tool_path` or the environment variable
     (`TRITON_PTXAS_PATH`, `TRITON_CUOBJDUMP_PATH`, `TRITON_NVDISASM_PATH`);
  2. the pip wheels: nvidia-cuda-nvcc (CUDA 13 puts it in `nvidia/cu13/bin`,
     CUDA 12 in `nvidia/cuda_nvcc/bin`) and the copy bundled with an
     installed upstream Triton;
  3. `$CUDA_HOME/bin`, `$CUDA_PATH/bin`;
  4. `PATH`, then `/usr/local/cuda/bin`.
"""
from __future__ import annotations

import functools
import importlib.util
import os
import re
import shlex
import shutil
import sys
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

from tritium.errors import OutOfResources, PTXASError

__all__ = [
    "find_tool", "find_ptxas", "find_cuobjdump", "set_tool_path", "tool_version",
    "ptxas_version", "ptx_version_for", "make_cubin", "parse_ptxas_log", "KernelInfo",
    "disassemble",
]

_ENV = {
    "ptxas": "TRITON_PTXAS_PATH",
    "cuobjdump": "TRITON_CUOBJDUMP_PATH",
    "nvdisasm": "TRITON_NVDISASM_PATH",
}
_explicit: Dict[str, str] = {}


def set_tool_path(tool: str, path: Optional[str]) -> None:
    """Pin `tool` ("ptxas", "cuobjdump", ...) to `path`; None restores the search."""
    if path is None:
        _explicit.pop(tool, None)
    else:
        _explicit[tool] = path
    _search.cache_clear()


def _package_dirs(package: str):
    """Directories of an installed package, found without importing it. `triton` is looked
    up on disk along sys.path: with compat installed `triton` is tritium's facade, and the
    tools found must not depend on that (a compile worker, a fresh interpreter, would
    otherwise find upstream's bundled ptxas where its caller did not)."""
    if package == "triton":
        for entry in sys.path:
            d = os.path.join(entry or os.getcwd(), package)
            if os.path.isfile(os.path.join(d, "__init__.py")):
                return [d]
        return []
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    return list(spec.submodule_search_locations)


def _wheel_dirs():
    dirs = []
    for root in _package_dirs("nvidia"):
        for sub in ("cu13", "cuda_nvcc", "cu12", "cuda_cuobjdump"):
            dirs.append(os.path.join(root, sub, "bin"))
    for root in _package_dirs("triton"):
        dirs.append(os.path.join(root, "backends", "nvidia", "bin"))
    return dirs


def _is_exe(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


@functools.lru_cache(maxsize=None)
def _search(tool: str, env_value: Optional[str]) -> Optional[str]:
    explicit = _explicit.get(tool) or env_value
    if explicit:
        # An explicit choice that does not exist is a user error worth seeing,
        # not something to paper over by silently picking another binary.
        if not _is_exe(explicit):
            raise FileNotFoundError(f"{_ENV.get(tool, tool)}={explicit!r} is not an executable file")
        return explicit
    candidates = list(_wheel_dirs())
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            candidates.append(os.path.join(os.environ[var], "bin"))
    for d in candidates:
        p = os.path.join(d, tool)
        if _is_exe(p):
            return p
    p = shutil.which(tool)
    if p:
        return p
    p = os.path.join("/usr/local/cuda/bin", tool)
    return p if _is_exe(p) else None


def find_tool(tool: str) -> Optional[str]:
    """Absolute path of an NVIDIA tool, or None when it is not installed."""
    import tritium.knobs as knobs
    return _search(tool, knobs.nvidia_tool_setting(tool) if tool in _ENV else None)


def find_ptxas() -> Optional[str]:
    return find_tool("ptxas")


def find_cuobjdump() -> Optional[str]:
    return find_tool("cuobjdump")


@functools.lru_cache(maxsize=None)
def _version_of(path: str, mtime: float) -> Optional[Tuple[int, int]]:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"release (\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def tool_version(path: Optional[str]) -> Optional[Tuple[int, int]]:
    """CUDA release (major, minor) a tool belongs to, e.g. (13, 5); cached per binary."""
    if not path:
        return None
    try:
        mtime = os.path.getmtime(path)
    except OSError:
        return None
    return _version_of(path, mtime)


def ptxas_version() -> Optional[Tuple[int, int]]:
    return tool_version(find_ptxas())


def ptx_version_for(cuda_version) -> int:
    """Newest PTX ISA version (as 10*major+minor) a CUDA release's ptxas accepts.

    CUDA 12.0-12.5 shipped PTX 8.0-8.5; 12.6 did not bump the ISA, so from
    there on the PTX minor is one behind (12.8 -> 8.7). 13.x ships 9.x, 11.x 7.x.
    Accepts (major, minor), "12.4" or a float-ish string.
    """
    if isinstance(cuda_version, str):
        major, minor = (int(p) for p in cuda_version.split(".")[:2])
    else:
        major, minor = int(cuda_version[0]), int(cuda_version[1])
    if major >= 13:
        return 90 + 10 * (major - 13) + minor
    if major == 12:
        return 80 + minor if minor < 6 else 80 + minor - 1
    if major == 11:
        return 70 + minor
    raise ValueError(f"CUDA {major}.{minor} is too old for tritium (needs 11.0 or newer)")


# ---------------------------------------------------------------------------
# ptxas


@dataclass
class KernelInfo:
    """What `ptxas -v` said about one function."""
    name: str
    registers: Optional[int] = None
    stack: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    shared: int = 0           # static shared memory (bytes)
    barriers: Optional[int] = None
    entry: bool = False

    @property
    def spills(self) -> int:
        return self.spill_stores + self.spill_loads


@dataclass
class CubinInfo:
    """Result summary of one ptxas run; `kernel` is the first entry function."""
    kernel: Optional[KernelInfo]
    functions: Dict[str, KernelInfo] = field(default_factory=dict)
    log: str = ""
    command: str = ""
    ptxas_version: Optional[Tuple[int, int]] = None

    # Flat accessors, so callers can write info.registers like upstream metadata.
    def __getattr__(self, item):
        kernel = self.__dict__.get("kernel")
        if kernel is not None and item in ("name", "registers", "stack", "spill_stores",
                                           "spill_loads", "shared", "barriers", "spills"):
            return getattr(kernel, item)
        raise AttributeError(item)


_RE_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_RE_PROPS = re.compile(r"Function properties for (\S+)")
_RE_STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_RE_USED = re.compile(r"Used (\d+) registers")
_RE_SMEM = re.compile(r"(\d+) bytes smem")
_RE_BAR = re.compile(r"used (\d+) barriers")


def parse_ptxas_log(log: str) -> Dict[str, KernelInfo]:
    """Per-function resource usage from `ptxas -v` output (stderr or stdout)."""
    funcs: Dict[str, KernelInfo] = {}
    cur: Optional[KernelInfo] = None
    for line in log.splitlines():
        m = _RE_ENTRY.search(line)
        if m:
            cur = funcs.setdefault(m.group(1), KernelInfo(m.group(1)))
            cur.entry = True
            continue
        m = _RE_PROPS.search(line)
        if m:
            cur = funcs.setdefault(m.group(1), KernelInfo(m.group(1)))
            continue
        if cur is None:
            continue
        m = _RE_STACK.search(line)
        if m:
            cur.stack, cur.spill_stores, cur.spill_loads = (int(g) for g in m.groups())
        m = _RE_USED.search(line)
        if m:
            cur.registers = int(m.group(1))
            s = _RE_SMEM.search(line)
            cur.shared = int(s.group(1)) if s else 0
            b = _RE_BAR.search(line)
            cur.barriers = int(b.group(1)) if b else None
    return funcs


def _failure_reason(returncode: int) -> str:
    if returncode == 255:
        return "ptxas rejected the PTX (internal tritium PTX codegen error)"
    if returncode < 0 or returncode > 128:
        sig = -returncode if returncode < 0 else returncode - 128
        return f"ptxas was killed by signal {sig}"
    return f"ptxas failed with exit code {returncode}"


_TOO_MUCH_SHARED = re.compile(r"uses too much shared data \((0x[0-9a-fA-F]+) bytes, (0x[0-9a-fA-F]+) max\)")


def _out_of_resources(log: str) -> Optional[OutOfResources]:
    """ptxas refusing a kernel for its static shared memory is a resource limit, which
    autotuners skip by catching OutOfResources, not a codegen error."""
    m = _TOO_MUCH_SHARED.search(log)
    if m is None:
        return None
    return OutOfResources(int(m.group(1), 16), int(m.group(2), 16), "shared memory")


def _unknown_arch_hint(log: str, arch: str, ptxas: str) -> str:
    """Why ptxas refused `--gpu-name`: CUDA 13 dropped sm_50..sm_72 (upstream Triton bundles
    a CUDA 12 ptxas, which still has them)."""
    if "is not defined for option 'gpu-name'" not in log:
        return ""
    v = tool_version(ptxas)
    have = f"ptxas {v[0]}.{v[1]}" if v else "this ptxas"
    return (f"{have} cannot assemble for {arch} (CUDA 13 dropped the architectures before "
            f"sm_75): set TRITON_PTXAS_PATH to a CUDA 12 ptxas to compile for it.\n")


def make_cubin(ptx: str, arch: str = "sm_90a", opt: Optional[int] = None, *,
               enable_fp_fusion: bool = True, lineinfo: bool = True, maxnreg: Optional[int] = None,
               options=(), ptxas: Optional[str] = None) -> Tuple[bytes, CubinInfo]:
    """Assemble PTX into a cubin with `ptxas -v`; returns (cubin bytes, resource info).

    `opt` is ptxas' --opt-level (None keeps ptxas' default, 3). On failure the
    PTX is left on disk and `PTXASError` names its path and the command to
    rerun by hand.
    """
    ptxas = ptxas or find_ptxas()
    if ptxas is None:
        raise FileNotFoundError(
            "ptxas not found: pip install nvidia-cuda-nvcc, set TRITON_PTXAS_PATH, or put CUDA's bin/ on PATH")
    tmp = tempfile.mkdtemp(prefix="tritium-ptxas-")
    src = os.path.join(tmp, "kernel.ptx")
    out = os.path.join(tmp, "kernel.cubin")
    with open(src, "w") as f:
        f.write(ptx)
    cmd = [ptxas, "-v", f"--gpu-name={arch}"]
    if lineinfo:
        cmd.append("-lineinfo")
    if not enable_fp_fusion:
        cmd.append("--fmad=false")
    if opt is not None:
        cmd += ["--opt-level", str(int(opt))]
    if maxnreg is not None:
        cmd += [f"--maxrregcount={int(maxnreg)}"]
    cmd += list(options)
    cmd += [src, "-o", out]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise PTXASError(f"could not run {ptxas}: {e}. PTX kept at {src}") from None
    log = (proc.stdout or "") + (proc.stderr or "")
    repro = " ".join(shlex.quote(c) for c in cmd)
    if proc.returncode != 0:
        oor = _out_of_resources(log)
        if oor is not None:
            shutil.rmtree(tmp, ignore_errors=True)
            raise oor
        # Keep the directory: the PTX is the one artefact needed to report or
        # debug the failure, and the message tells where it is.
        raise PTXASError(f"{_failure_reason(proc.returncode)}\n`ptxas` output:\n{log.rstrip()}\n"
                         f"{_unknown_arch_hint(log, arch, ptxas)}"
                         f"PTX kept at: {src}\nRepro command: {repro}\n")
    with open(out, "rb") as f:
        cubin = f.read()
    shutil.rmtree(tmp, ignore_errors=True)
    funcs = parse_ptxas_log(log)
    entries = [k for k in funcs.values() if k.entry]
    kernel = entries[0] if entries else next(iter(funcs.values()), None)
    return cubin, CubinInfo(kernel, funcs, log, repro, tool_version(ptxas))


# ---------------------------------------------------------------------------
# disassembly


def disassemble(cubin: bytes, cuobjdump: Optional[str] = None, fun: Optional[str] = None) -> str:
    """SASS text of a cubin (upstream's `kernel.asm["sass"]`): `cuobjdump -sass` (of
    function `fun` only, if given), which runs nvdisasm, or nvdisasm alone."""
    tool = cuobjdump or find_cuobjdump()
    nvdisasm = find_tool("nvdisasm")
    if tool is None and nvdisasm is None:
        raise FileNotFoundError("cuobjdump not found: set TRITON_CUOBJDUMP_PATH or install the "
                                "CUDA toolkit (or the nvidia-cuda-cuobjdump wheel)")
    env = dict(os.environ)
    if nvdisasm is not None:  # cuobjdump looks nvdisasm up on PATH
        env["PATH"] = os.path.dirname(nvdisasm) + os.pathsep + env.get("PATH", "")
    with tempfile.TemporaryDirectory(prefix="tritium-sass-") as tmp:
        path = os.path.join(tmp, "kernel.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        if tool is not None:
            cmd = [tool, "-sass"] + (["-fun", fun] if fun else []) + [path]
        else:
            cmd = [nvdisasm, "-c", path]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{os.path.basename(cmd[0])} failed ({proc.returncode}): "
                           f"{proc.stderr.strip()}")
    return proc.stdout
