"""A robot's link parts from a CAD assembly: a STEP file with every solid placed in one frame at a known pose.

:func:`import_assembly` reads the solids and their names (:mod:`.step`), joins each link's solids, moves them into
the link frame, finds the joint interfaces (:mod:`.interfaces`), sizes the mesh at fillets (:mod:`.sizing`) and
meshes every link (:mod:`.assembly`); ``structcheck import-cad`` (:mod:`.starter`) does the same from the command
line and writes a starter study. See docs/your_own_cad.md.
"""
from .assembly import CadWarning, FaceChoice, ImportedAssembly, import_assembly, read_assembly
from .sizing import MeshSizing
from .step import write_step_assembly

__all__ = ["CadWarning", "FaceChoice", "ImportedAssembly", "MeshSizing", "import_assembly", "read_assembly",
           "write_step_assembly"]
