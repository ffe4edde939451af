"""`triton._C`: upstream's compiled extension. Tritium has no C++ core; the few names user
programs reach for live here, written in Python (see `libtriton`)."""
