"""`triton.experimental.gluon.nvidia`: host-side NVIDIA objects for Gluon kernels —
`hopper.TensorDescriptor` (a TMA descriptor naming its shared-memory layout)."""
