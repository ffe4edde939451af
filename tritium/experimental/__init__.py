"""`triton.experimental`: only the host-side pieces of Gluon that code outside kernels
reaches for (see `gluon`)."""
