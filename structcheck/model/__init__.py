"""The robot model: links, joints and named points (D-H tables, URDF) and the materials of its parts."""
from .materials import MATERIALS, Material, get_material
from .robot import Joint, Link, PointMass, Robot, build_dh_robot, read_urdf

__all__ = ["Joint", "Link", "MATERIALS", "Material", "PointMass", "Robot", "build_dh_robot", "get_material",
           "read_urdf"]
