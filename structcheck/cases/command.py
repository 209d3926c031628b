"""The ``structcheck stopping STUDY`` command: ISO 10218-1 style stopping times and distances of a study's motion
(:func:`structcheck.cases.iso.iso_table`), written as ``stopping.csv`` and ``stopping.png`` in ``--out``.

The stop data come from the command line (``--brake``, ``--delay``, ``--decel``, ``--torque-limit``: one value
for every driven joint or NAME=VALUE per joint) or from the study script's ``stop_spec`` (a
:class:`~structcheck.cases.stop.StopSpec`); the command line's category and values take precedence."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError, require_number

__all__ = ["add_parser", "command", "per_joint"]

OPTIONS = (("brake", "brake_torque", "N m"), ("delay", "delay", "s"), ("decel", "deceleration", "rad/s^2"),
           ("torque_limit", "torque_limit", "N m"))


def add_parser(sub, parents) -> None:
    """The ``stopping`` command's parser."""
    s = sub.add_parser("stopping", parents=parents, help="emergency-stop times and distances (ISO 10218-1 tables)",
                       description="Stop the study's motion at every instant of a trigger grid, at 33/66/100 %% of "
                                   "its speed and payload; write the worst stopping time and distance per joint "
                                   "(stopping.csv, stopping.png).")
    s.add_argument("study", help="a study script")
    s.add_argument("--category", type=int, choices=(0, 1, 2), default=None, help="stop category (default 0)")
    s.add_argument("--trigger-step", type=float, default=None, metavar="S",
                   help="trigger grid spacing at full speed [s] (default t_end / 50)")
    s.add_argument("--refine", type=float, default=None, metavar="TOL",
                   help="refine each worst trigger by golden-section search to TOL [s]")
    for opt, _, unit in OPTIONS:
        s.add_argument(f"--{opt.replace('_', '-')}", action="append", default=[], metavar="[JOINT=]VALUE",
                       help=f"{opt.replace('_', ' ')} [{unit}]: every driven joint, or JOINT=VALUE (repeatable)")
    s.add_argument("--out", default=None, metavar="DIR", help="output folder (default STUDY-stopping beside it)")
    s.set_defaults(func=command)


def per_joint(option: str, items: list, joints: tuple, unit: str) -> dict:
    """Joint name -> value [unit] from ``items`` ('VALUE' for every joint, or 'JOINT=VALUE')."""
    out = {}
    for item in items:
        name, _, value = item.rpartition("=")
        targets = (name,) if name else joints
        if name and name not in joints:
            raise InputError(f"--{option} {item}: unknown joint {name!r}; the driven joints are {list(joints)}")
        try:
            number = float(value)
        except ValueError:
            raise InputError(f"--{option} {item}: give a number [{unit}] or JOINT=NUMBER") from None
        out.update({j: require_number(f"--{option} {item}", number, unit, at_least=0.0) for j in targets})
    return out


def stop_spec(args, module, joints: tuple):
    """The StopSpec of the command line over the script's ``stop_spec`` (whose rotors and held part are kept)."""
    from .stop import JointStop, StopCategory, StopSpec

    base = getattr(module, "stop_spec", None)
    if base is not None and not isinstance(base, StopSpec):
        raise InputError(f"the study script's stop_spec is a {type(base).__name__}: give a StopSpec")
    given = {field: per_joint(opt, getattr(args, opt), joints, unit) for opt, field, unit in OPTIONS}
    fields = {}
    for j in joints:
        old = base.joints.get(j) if base is not None else None
        values = {f: given[f].get(j, getattr(old, f, None)) for _, f, _ in OPTIONS}
        if values["brake_torque"] is None:
            if values["torque_limit"] is None and values["deceleration"] is None:
                continue  # no stop data: the joint is free
            values["brake_torque"] = 0.0
        values["delay"] = values["delay"] or 0.0
        fields[j] = JointStop(**values, rotor=getattr(old, "rotor", None))
    if not fields:
        raise InputError("no stop data: give --brake N_M (every joint) or --brake JOINT=N_M, or a stop_spec in the "
                         "study script")
    category = args.category if args.category is not None else (base.category.value if base else 0)
    return StopSpec(StopCategory(category), fields, base.t_max if base else 5.0, base.held if base else None)


def command(args) -> int:
    """``structcheck stopping``: prints the table, writes stopping.csv and stopping.png; 0, or 2 (bad input)."""
    from ..results.stopping import plot_stopping, write_stopping_csv
    from ..script import build_study
    from ..study import as_chain
    from .iso import iso_table

    module, study = build_study(args.study, {}, debug=args.traceback, with_module=True)
    joints = tuple(as_chain(study.robot).independent)
    spec = stop_spec(args, module, joints)
    step = study.t_end / 50 if args.trigger_step is None else args.trigger_step
    step = require_number("--trigger-step", step, "s", above=0.0)
    table = iso_table(study, spec, step, refine_tol=args.refine)
    out = Path(args.out) if args.out else Path(args.study).with_name(f"{Path(args.study).stem}-stopping")
    out.mkdir(parents=True, exist_ok=True)
    csv_path, png = write_stopping_csv(table, out / "stopping.csv"), plot_stopping(table, out / "stopping.png")
    print(f"stop category {table.category}, triggers every {step:g} s at 100 % speed (step / speed fraction "
          f"below){', refined to ' + format(args.refine, 'g') + ' s' if args.refine else ''}")
    print(f"{'joint':<12}{'speed %':>8}{'payload %':>10}{'time s':>10}{'angle deg':>11}{'at t s':>9}")
    for k, j in enumerate(table.joints):
        for i, s in enumerate(table.speed):
            for m, p in enumerate(table.payload):
                print(f"{j:<12}{100 * s:>8.0f}{100 * p:>10.0f}{table.stop_time[i, m, k]:>10.4g}"
                      f"{np.degrees(table.stop_distance[i, m, k]):>11.4g}{table.worst_trigger_distance[i, m, k]:>9.4g}")
    print(f"wrote {csv_path} and {png}")
    return 0
