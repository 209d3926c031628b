"""The robot model: links, joints and named points (D-H tables, URDF) and the materials of its parts."""
from .materials import MATERIALS, Material, get_material
from .robot import Joint, Link, PointMass, Robot

__all__ = ["Joint", "Link", "MATERIALS", "Material", "PointMass", "Robot", "get_material"]
