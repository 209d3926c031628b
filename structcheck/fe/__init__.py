"""Finite elements of one link: meshes and their checks, the Part (quadratic tetrahedra: stiffness, mass, loads,
supports, stresses), sparse solvers, modes and transients, and a link's stress response along a motion."""
from .mesh import MassProperties, TetMesh, mass_properties, read_mesh
from .part import Part, body_coefficients

__all__ = ["MassProperties", "Part", "TetMesh", "body_coefficients", "mass_properties", "read_mesh"]
