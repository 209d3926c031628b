"""structcheck: rigid-body joint loads along a robot motion -> transient FE of every link -> verdict.

SI units throughout (m, kg, s, N, Pa, rad); arrays are time-first, shape ``(n_samples, ...)``.
"""
import os

# MKL (PARDISO) otherwise picks fewer threads on a busy machine, and a factorization on another thread count differs
# in its last digits: a run repeated, or re-run with `structcheck rerun`, would not be bit-identical under load
os.environ.setdefault("MKL_DYNAMIC", "FALSE")

from .errors import InputError, MeshError  # noqa: E402

__version__ = "0.1.0"
__all__ = ["InputError", "MeshError", "__version__"]


def __getattr__(name):
    # Lazy so that `import structcheck` stays cheap (gmsh, pyvista, skfem load on first use).
    lazy = {
        "MotionLaw": ("motion", "MotionLaw"),
        "Robot": ("model", "Robot"),
        "Link": ("model.robot", "Link"),
        "Joint": ("model.robot", "Joint"),
        "PointMass": ("model.robot", "PointMass"),
        "Part": ("fe", "Part"),
        "Material": ("model", "Material"),
        "get_material": ("model", "get_material"),
        "load_materials": ("model.materials", "load_materials"),
        "Region": ("fe.regions", "Region"),
        "haz_material": ("fe.regions", "haz_material"),
        "with_regions": ("fe.regions", "with_regions"),
        "volume_elements": ("fe.regions", "volume_elements"),
        "solve_ik": ("rigid", "solve_ik"),
        "forward_dynamics": ("rigid", "forward_dynamics"),
        "CartesianLine": ("motion", "CartesianLine"),
        "ClosedChain": ("rigid", "ClosedChain"),
        "CutJoint": ("rigid", "CutJoint"),
        "Study": ("study", "Study"),
        "PointForce": ("study", "PointForce"),
        "Payload": ("study", "Payload"),
        "Drive": ("drives.study", "Drive"),
        "Collision": ("cases.events", "Collision"),
        "PayloadRelease": ("cases.events", "PayloadRelease"),
        "PayloadPickup": ("cases.events", "PayloadPickup"),
        "Case": ("cases.case", "Case"),
        "CaseRole": ("cases.case", "CaseRole"),
        "run": ("study", "run"),
        "Fatigue": ("settings", "Fatigue"),
        "ArmSettings": ("settings", "ArmSettings"),
        "SignOff": ("settings", "SignOff"),
        "Flexibility": ("settings", "Flexibility"),
        "FatigueMethod": ("settings", "FatigueMethod"),
        "load": ("results", "load"),
    }
    if name in lazy:
        import importlib

        module, attr = lazy[name]
        return getattr(importlib.import_module(f".{module}", __name__), attr)
    raise AttributeError(f"module 'structcheck' has no attribute {name!r}")
