"""`triton.experimental.gluon`: NOT IMPLEMENTED in tritium — there is no Gluon language,
`@gluon.jit` or layout-level code generation. Only two host-side data classes exist, with
upstream's fields and checks, so that code which builds them on the host (argument
specialisation, upstream's `runtime/test_specialize.py`) works:
`language._layouts.NVMMASharedLayout` and `nvidia.hopper.TensorDescriptor`."""
