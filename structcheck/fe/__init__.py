"""Finite elements of one link: meshes and their checks, the Part (quadratic tetrahedra) with its assembly, interface
loads, supports and stress recovery, sparse solvers, modes and transients, and a link's stress response along a
motion."""
from . import entities
from .mesh import MassProperties, TetMesh, mass_properties, read_mesh
from .part import Part

entities.install()  # skfem's edges and facets by integer keys: the same arrays, in a fraction of the time

__all__ = ["MassProperties", "Part", "TetMesh", "mass_properties", "read_mesh"]
