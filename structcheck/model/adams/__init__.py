"""ADAMS/Solver datasets (.adm): :func:`read_adm` into the project's robot, laws and loads; :func:`write_adm` a
study back into one. See docs/from_adams.md."""
from .model import AdamsModel
from .read import read_adm

__all__ = ["AdamsModel", "read_adm", "write_adm"]


def __getattr__(name):
    if name == "write_adm":
        from .write import write_adm

        return write_adm
    raise AttributeError(f"module 'structcheck.model.adams' has no attribute {name!r}")
