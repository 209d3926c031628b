"""Link geometry with gmsh: parametric parts (``PartBuilder``, code in :mod:`structcheck.fe.geometry`) and parts
read from a CAD assembly (``import_assembly``, code in :mod:`structcheck.cad`)."""
from .cad import MeshSizing, import_assembly, read_assembly, write_step_assembly
from .fe.geometry import PartBuilder, import_step, mesh_script, on_plane, write_part_meshes

__all__ = ["MeshSizing", "PartBuilder", "import_assembly", "import_step", "mesh_script", "on_plane", "read_assembly",
           "write_part_meshes", "write_step_assembly"]
