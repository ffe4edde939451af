"""The package version, in a module of its own so that subpackages can read it without
importing `tritium` itself."""
__version__ = "0.1.0"
