"""`gl.nvidia`: NVIDIA-specific Gluon builtins (`hopper`: TMA, mbarriers, wgmma;
`ampere`: mma.sync) — see each module for what exists."""
