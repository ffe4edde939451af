"""`KernelInterface`: what every launchable kernel object (`JITFunction`, `Autotuner`,
`Heuristics`) is, so `kernel[grid](*args)` means `kernel.run(*args, grid=grid)`."""


class KernelInterface:
    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)
