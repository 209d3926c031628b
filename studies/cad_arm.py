"""A small arm read from a CAD assembly: the parts of meshes/cad_example/arm.step (made by
meshes/make_cad_example.py, drawn at shoulder -20 deg, elbow 35 deg) given to their links by name, their joint
faces found where they touch, meshed and checked while the arm lifts a 3 kg payload and is pushed by a 40 N tool
force. The beams' sides meet the hubs in sharp corners (only their tops and bottoms are filleted): the run warns
that the peaks there are not converged, as it should. See docs/your_own_cad.md.

    python studies/cad_arm.py [--out DIR] [--payload-kg 3.0]
"""
import sys
import tempfile
import warnings
from pathlib import Path

from structcheck.cad import CadWarning
from structcheck.cli import main_for_study
from structcheck.geometry import import_assembly, on_plane
from structcheck.study import Payload, PointForce, Study, lazy_study

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "meshes"))
import make_cad_example as cad  # noqa: E402  (the assembly's script: the robot and the pose it is drawn in)

ASSEMBLY = ROOT / "meshes" / "cad_example" / "arm.step"
LINKS = {"base": ["base_plate", "base_post"], "upper": "upper_arm", "fore": ["forearm", "tool_plate"]}
MATERIALS = {"base": "structural_steel", "upper": "6061-T6", "fore": "6061-T6"}


def build(payload_kg: float = 3.0) -> Study:
    """The arm lifting a ``payload_kg`` [kg] payload at its tool plate."""
    robot = cad.robot()
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("error", CadWarning)  # this assembly needs no guess: fail if one is made
        parts = import_assembly(ASSEMBLY, robot, LINKS, materials=MATERIALS, q=cad.POSE, mesh_size=0.008,
                                surfaces={"fore": {"tool": on_plane(0, cad.FORE + 0.01)}}, out=tmp)
    return Study(
        name="cad_arm", robot=robot, parts=parts, t_end=2.0, n_frames=21,
        motion={"shoulder": "STEP(time, 0, 0, 1, -30d)", "elbow": "STEP(time, 0.5, 0, 1.5, 40d)"},
        payloads=(Payload("tool", payload_kg),),
        point_forces=(PointForce("tool", "STEP(time, 1.5, 0, 1.55, 40)", (0, 0, -1)),),
        tool_point="tool", required_safety_factor=1.5, parameters={"payload_kg": payload_kg})


__getattr__ = lazy_study(build)

if __name__ == "__main__":
    sys.exit(main_for_study(build))
