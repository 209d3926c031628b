"""Parametric link geometry with gmsh: kept here so ``structcheck.geometry.PartBuilder`` works as it always did;
the code lives in :mod:`structcheck.fe.geometry`."""
from .fe.geometry import PartBuilder, import_step, mesh_script, on_plane, write_part_meshes

__all__ = ["PartBuilder", "import_step", "mesh_script", "on_plane", "write_part_meshes"]
