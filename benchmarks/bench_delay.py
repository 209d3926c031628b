"""How far a study delayed in time stays from itself (issue 30: the robot at rest before its motion), on the arm model.

    python benchmarks/bench_delay.py [--max-step S] [--flexibility arm|link] [--json FILE]

The two-beam arm and the cases of tests/study/test_initial_state.py (CASES: an acceleration jump at t = 0; a smooth
start with a force ramp at t = 0; EVENT_CASES: a payload held, then released), each run as it is and delayed by
13.7, 123.4 and 371.1 ms (laws shifted, the arm at rest before). Prints, per case, the largest relative difference
over the delays of each link's peak von Mises, node envelope (relative to its largest value), largest deformation
and fatigue damage, and of the tool's largest deflection, with the analysis samples and the run time. Also the peaks
of the arm of tests/report/test_peak_instant.py (its link1 and link2 peak von Mises [MPa] and their times [s]),
which README.md quotes.
Results: benchmarks/results/bench_delay.json. The test holds both models to 1e-4 on their default grids.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, ROOT, environment  # noqa: E402

sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "study"), str(ROOT / "tests" / "report")]

DELAYS_S = (0.0137, 0.1234, 0.3711)


def case_differences(study, delayed) -> dict:
    """Largest relative differences between ``study`` and its delayed copies (DELAYS_S)."""
    from structcheck.study import run

    clock = time.perf_counter()
    ref = run(study, progress=False, write=False)
    seconds = time.perf_counter() - clock
    worst = {"von_mises": 0.0, "envelope": 0.0, "deformation": 0.0, "damage": 0.0, "tool_deflection": 0.0}
    for d in DELAYS_S:
        other = run(delayed(study, d), progress=False, write=False)
        for name, a in ref.summary.links.items():
            b = other.summary.links[name]
            pairs = {"von_mises": (a.max_von_mises_pa, b.max_von_mises_pa),
                     "deformation": (a.max_deformation_m, b.max_deformation_m),
                     "damage": (a.fatigue_damage_per_cycle or 0.0, b.fatigue_damage_per_cycle or 0.0)}
            for key, (x, y) in pairs.items():
                if x:
                    worst[key] = max(worst[key], abs(y / x - 1))
            ea, eb = ref.links[name].envelope["von_mises"], other.links[name].envelope["von_mises"]
            worst["envelope"] = max(worst["envelope"], float(np.max(np.abs(eb - ea)) / ea.max()))
        ta = np.linalg.norm(ref.tool_point_deflection, axis=1).max()
        tb = np.linalg.norm(other.tool_point_deflection, axis=1).max()
        worst["tool_deflection"] = max(worst["tool_deflection"], abs(tb / ta - 1))
    return {"max_rel_diff": worst, "n_samples": len(ref.t), "run_s": seconds}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--max-step", type=float, default=None, help="Study.max_step_s [s] (default: the study's grid)")
    p.add_argument("--flexibility", choices=("arm", "link"), default="arm")
    p.add_argument("--json", default=str(RESULTS / "bench_delay.json"))
    args = p.parse_args(argv)

    from helpers import delayed, two_beam_parts, two_beam_robot
    from test_initial_state import CASES, EVENT_CASES, FATIGUE
    from test_peak_instant import arm_study

    from structcheck.study import PointForce, Study, run

    parts = two_beam_parts(8, 6)
    out = {"environment": environment(), "max_step_s": args.max_step, "flexibility": args.flexibility,
           "delays_s": DELAYS_S, "cases": {}}
    for case, (motion, force, events) in {**CASES, **EVENT_CASES}.items():
        study = Study(name="delay", robot=two_beam_robot(), parts=parts, motion=motion, t_end=0.6, n_frames=13,
                      point_forces=(PointForce("tool", force, (0, 0, -1)),), tool_point="tool", n_modes=4,
                      damping_ratio=0.02, flexibility=args.flexibility, fatigue=FATIGUE, max_step_s=args.max_step,
                      events=events)
        out["cases"][case] = r = case_differences(study, delayed)
        print(f"{case}: {r['n_samples']} samples, {r['run_s']:.1f} s; largest relative differences "
              + ", ".join(f"{k} {v:.2e}" for k, v in r["max_rel_diff"].items()), flush=True)
    peaks = run(arm_study(args.flexibility), progress=False, write=False).summary.links
    out["peak_instant_arm"] = {n: {"max_von_mises_mpa": L.max_von_mises_pa * 1e-6, "time_s": L.time_of_max_s}
                               for n, L in peaks.items()}
    print("tests/report/test_peak_instant.py's arm: " + ", ".join(
        f"{n} {v['max_von_mises_mpa']:.1f} MPa at {v['time_s']:.3f} s" for n, v in out["peak_instant_arm"].items()))
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
