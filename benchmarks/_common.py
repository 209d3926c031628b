"""Pieces the benchmarks share: paths, timing and memory helpers, paper 004's robot for the dynamics, and the
upper-arm link with its load history for the finite-element benchmarks.

Not a benchmark itself; ``bench_*.py`` and ``run.py`` import it (they run as scripts from this folder).
"""
from __future__ import annotations

import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"  # gitignored
CACHE = Path.home() / ".cache" / "structcheck" / "bench_fe"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# paper 004, Table 1: modified D-H rows (alpha_{i-1} [rad], a_{i-1} [m], d_i [m])
DH = [(0.0, 0.0, 0.250), (np.pi / 2, 0.0, 0.0), (0.0, 0.385, 0.0),
      (0.0, 0.392, 0.0), (-np.pi / 2, 0.0, 0.0), (0.0, 0.0, 0.188)]
MASS = (12.0, 9.0, 6.0, 3.0, 1.5, 1.0)  # [kg], link 1 (waist) to 6 (gripper)
A2 = 0.385  # shoulder-to-elbow length of the upper arm [m] (paper 004, Table 1)
REF = (0.016, 45066)  # (mesh size [m], DOF) of the shipped upper-arm mesh: DOF ~ size^-3


# ---------------------------------------------------------------------------------------------- environment
def environment() -> dict:
    """Versions, CPUs, the sparse solver and the 1-minute load average (the machine is shared)."""
    import scipy

    from structcheck.fe.solvers import available_backends

    return {"solver": os.environ.get("STRUCTCHECK_SOLVER") or available_backends()[0], "cpus": os.cpu_count(),
            "load_average_1min": os.getloadavg()[0], "python": platform.python_version(),
            "numpy": np.__version__, "scipy": scipy.__version__}


def emit(out: dict, name: str, write: bool = True, also: str | None = None) -> None:
    """Print ``out`` with the environment as JSON; write it to results/``name``.json (if ``write``) and to the path
    ``also``."""
    text = json.dumps({**out, "environment": environment()}, indent=2)
    print(text)
    if write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / f"{name}.json").write_text(text)
    if also:
        Path(also).write_text(text)


# ---------------------------------------------------------------------------------------------- timing
def faults() -> int:
    """Minor page faults of this process so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def timed(fn, args, repeats: int):
    """Best and median seconds per call of ``fn(*args)`` over ``repeats`` calls after one untimed call, and the
    minor page faults of the last call."""
    fn(*args)
    times, f_last = [], 0
    for _ in range(repeats):
        f0 = faults()
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
        f_last = faults() - f0
    return min(times), float(np.median(times)), f_last


# ---------------------------------------------------------------------------------------------- memory
def status_kb(key: str) -> float:
    """A field of /proc/self/status in kB (VmHWM: peak RSS, VmRSS: current), NaN where there is none."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return float(line.split()[1])
    except OSError:
        pass
    return float("nan")


def reset_peak() -> bool:
    """Reset the process's peak RSS (Linux >= 4.0: write 5 to /proc/self/clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def peak_rss_mb() -> float:
    """This process's peak resident memory [MB] since start (or since the last :func:`reset_peak`)."""
    hwm = status_kb("VmHWM")
    if not np.isfinite(hwm):
        hwm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kB on Linux
    return hwm / 1024


class Phases(dict):
    """Phase name -> seconds; records the peak RSS [MB] of each phase as it is stored (also when
    ``build_basis`` stores its sub-phases here), then resets the peak for the next phase."""

    def __init__(self):
        super().__init__()
        self.peak_mb = {}
        self.can_reset = reset_peak()

    def __setitem__(self, name, seconds):
        self.peak_mb[name] = max(self.peak_mb.get(name, 0.0), peak_rss_mb())
        super().__setitem__(name, seconds)
        reset_peak()

    def timed(self, name):
        phases = self

        class _T:
            def __enter__(self):
                reset_peak()
                self.t0 = time.perf_counter()

            def __exit__(self, *exc):
                if exc[0] is None:
                    phases[name] = time.perf_counter() - self.t0
        return _T()


# ---------------------------------------------------------------------------------------------- robot
def paper004_robot():
    """Paper 004's 6-DOF arm (Table 1's modified D-H table) with inertial parameters of the right order for a
    20 kg-payload arm (the paper gives none; they do not change the arithmetic of the dynamics)."""
    from structcheck.model.robot import Robot

    inertials = [dict(mass=m, com=(0.02 * (i % 2), 0.01, 0.05), inertia=np.diag([0.4, 0.5, 0.3]) * m / 12)
                 for i, m in enumerate(MASS)]
    return Robot.from_modified_dh(DH, inertials=inertials, name="paper004")


# ---------------------------------------------------------------------------------------------- one FE link
def mesh_link(dofs: int, phases: Phases | None = None) -> tuple[Path, float]:
    """Paper 004's upper arm meshed to about ``dofs`` quadratic-tet DOF (cached by mesh size in
    ~/.cache/structcheck/bench_fe); returns the .msh path and the mesh size [m]."""
    sys.path.insert(0, str(ROOT / "meshes"))
    import make_paper004_meshes as m004

    from structcheck.geometry import PartBuilder

    phases = Phases() if phases is None else phases
    h = REF[0] * (REF[1] / dofs) ** (1 / 3)
    for _ in range(4):
        path = CACHE / f"upper_arm_h{h * 1e3:.4f}mm.msh"
        if not path.is_file():
            CACHE.mkdir(parents=True, exist_ok=True)
            with phases.timed("mesh (gmsh)"):
                with PartBuilder("upper_arm", h) as b:
                    m004.upper_arm(b, {"wall": m004.DEFAULT_WALL_MM})
                    b.build(None)
                    b.write(path.with_suffix(".tmp.msh"))
            path.with_suffix(".tmp.msh").replace(path)
        n = p2_dofs(path)
        if abs(n / dofs - 1) < 0.08:
            return path, h
        h *= (n / dofs) ** (1 / 3)
    return path, h


def p2_dofs(path: Path) -> int:
    """3 x the number of quadratic-tet nodes of the mesh in ``path``: those of its ``tetra10`` cells, or vertices +
    edges of its linear ``tetra`` cells."""
    import meshio

    cells = meshio.read(path).cells_dict
    if "tetra10" in cells:
        return 3 * len(np.unique(cells["tetra10"]))
    tets = cells["tetra"]
    edges = np.unique(np.sort(tets[:, [0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3]].reshape(-1, 2), axis=1), axis=0)
    return 3 * (len(np.unique(tets)) + len(edges))


def load_history(n_steps: int, t_end: float = 2.0):
    """Time samples (n_steps + 1,) on [0, t_end] [s] and the load coefficients (n_t, 18) on them
    (:func:`load_coefficients`)."""
    t = np.linspace(0.0, t_end, n_steps + 1)
    return t, load_coefficients(t)


def load_coefficients(t: np.ndarray) -> np.ndarray:
    """Coefficients (n_t, 18) at times ``t`` (n_t,) [s] of the upper arm's 12 body loads and its 6 elbow-wrench
    loads: the arm swings 75 deg about its shoulder axis z between 0.2 s and 1.2 s (ADAMS STEP law) under
    gravity in its x-y plane, carrying at the elbow a 30 kg forearm + payload whose centre is 0.3 m beyond the
    elbow, and a 196 N gripping force 0.6 m beyond it applied over 10 ms at 1.5 s."""
    from structcheck.loads import body_coefficients

    t0, t1, amp = 0.2, 1.2, np.radians(75.0)
    D = np.clip((t - t0) / (t1 - t0), 0, 1)
    inside = (t > t0) & (t < t1)
    th = amp * D * D * (3 - 2 * D)
    thd = np.where(inside, amp * 6 * D * (1 - D) / (t1 - t0), 0.0)
    thdd = np.where(inside, amp * (6 - 12 * D) / (t1 - t0) ** 2, 0.0)
    z = np.zeros_like(t)
    g = 9.81 * np.column_stack([-np.sin(th), -np.cos(th), z])  # world gravity in link axes
    w = np.column_stack([z, z, thd])
    al = np.column_stack([z, z, thdd])
    body = body_coefficients(g, np.zeros(3), w, al)  # (n_t, 12)

    p = np.array([A2, 0.0, 0.0])  # elbow: the wrench's reference point

    def inertia_force(mass, r):
        a = np.cross(al, r) + np.cross(w, np.cross(w, r))
        return mass * (g - a)  # what the carried mass exerts on the arm

    r_c, r_tip = p + [0.3, 0.0, 0.0], p + [0.6, 0.0, 0.0]
    F_c = inertia_force(30.0, r_c)
    grip = 196.0 * np.clip((t - 1.5) / 0.01, 0, 1)
    F_tip = grip[:, None] * np.column_stack([-np.sin(th), -np.cos(th), z])  # along gravity
    F = F_c + F_tip
    M = np.cross(r_c - p, F_c) + np.cross(r_tip - p, F_tip)
    return np.hstack([body, F, M])


def upper_arm_part(path: Path):
    """The upper arm read from ``path`` (6061-O) and its 18 unit loads (n_dof, 18): 12 body loads and the 6
    loads of a wrench at the elbow (``joint3``, reference point (A2, 0, 0)); support: ``joint2``."""
    from structcheck.fe.part import Part

    part = Part.from_mesh(path, material="6061-O")
    F = np.hstack([part.body_load_basis(), part.wrench_basis("joint3", [A2, 0.0, 0.0])])
    return part, F
