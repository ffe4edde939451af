"""Combine functions the CPU reduction tests share: Inductor's NaN-propagating max2 /
min2 (`where(a > b or a is NaN, a, b)`), bitwise or and plain addition."""
import tritium as triton
import tritium.language as tl


@triton.jit
def nan_max(a, b):
    return tl.where((a > b) | (a != a), a, b)


@triton.jit
def nan_min(a, b):
    return tl.where((a < b) | (a != a), a, b)


@triton.jit
def bit_or(a, b):
    return a | b


@triton.jit
def add(a, b):
    return a + b
