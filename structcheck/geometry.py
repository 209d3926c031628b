"""Parametric link geometry with gmsh: kept here so ``structcheck.geometry.PartBuilder`` works as it always did;
the code lives in :mod:`structcheck.fe.geometry`."""
from .fe.geometry import PartBuilder, import_step, on_plane

__all__ = ["PartBuilder", "import_step", "on_plane"]
