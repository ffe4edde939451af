"""`triton.experimental.gluon.nvidia`: only `hopper.TensorDescriptor` (host side) exists;
Gluon itself is not implemented in tritium."""
