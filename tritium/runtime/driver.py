"""`triton.runtime.driver`: the module holding `driver` (`driver.active`, `set_active`,
`reset_active`)."""
from .driver_registry import ActiveDriver, GPUTarget, driver  # noqa: F401


def __getattr__(name):
    # `triton.runtime.driver` may be this module or the object (upstream's attribute is the
    # object; importing the module by name through compat rebinds it): both answer `.active`.
    return getattr(driver, name)
