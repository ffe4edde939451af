"""`triton.experimental.gluon.language`: Gluon's language is not implemented in tritium;
only `_layouts.NVMMASharedLayout` (a host-side data class) exists."""
