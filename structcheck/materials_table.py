"""``structcheck materials [--file F]``: the material library (and a user's material file) as a table with the
source of each material's S-N curve (docs/materials.md)."""
from __future__ import annotations

from pathlib import Path

_HEAD = (f"{'material':<16} {'E [GPa]':>8} {'nu':>6} {'rho':>6} {'yield':>7} {'UTS':>6} {'A [%]':>6} "
         f"{'checked':>7}  S-N curve")
NOT_VERIFIED = "(not verified against the text)"


def _checked(m) -> str:
    """'k/n': of the material's n values with a source, k checked against a public text ('-': no sources given)."""
    if not m.sources:
        return "-"
    return f"{sum(NOT_VERIFIED not in text for _, text in m.sources)}/{len(m.sources)}"


def _sn_source(m) -> str:
    if m.fatigue_strength is None or m.tensile_strength is None:
        return "none (add tensile_MPa and a fatigue table for fatigue)"
    kind = "estimated" if m.fatigue_source.startswith("ESTIMATE") else "published"
    if kind == "published" and NOT_VERIFIED in dict(m.sources).get("fatigue_strength_MPa", ""):
        kind = "published (not verified)"
    text = m.fatigue_source.removeprefix("ESTIMATE: ")
    short = text if len(text) <= 56 else text[:56].rsplit(" ", 1)[0] + " ..."
    return f"{kind}, {m.fatigue_strength / 1e6:g} MPa at {m.fatigue_cycles:.0e}: {short}"


def format_materials(materials: dict, title: str) -> list[str]:
    """Table lines: name, E [GPa], nu, density [kg/m^3], yield and tensile strength [MPa], elongation [%], how many
    of its values were checked against a public text, and the S-N curve's point and source (a brittle material's
    yield column is its tensile strength, marked *)."""
    lines = [title, _HEAD]
    for name, m in materials.items():
        uts = "-" if m.tensile_strength is None else f"{m.tensile_strength / 1e6:g}"
        elong = "-" if m.elongation is None else f"{m.elongation:g}"
        mark = "*" if m.criterion == "max_principal" else ""
        lines.append(f"{name:<16} {m.E / 1e9:>8g} {m.nu:>6g} {m.density:>6g} {m.strength / 1e6:>6g}{mark:1} "
                     f"{uts:>6} {elong:>6} {_checked(m):>7}  {_sn_source(m)}")
    return lines


def detail_lines() -> list[str]:
    """The weld detail categories a region or fatigue.details takes, one line per standard
    (:class:`structcheck.fatigue.details.DetailStandard`), and how partial factors are given."""
    from .fatigue.details import N_C, N_D, N_L, DetailStandard

    head = (f"weld detail categories (stress ranges; dsigma_C at {N_C:.0e} cycles, slope m1 to the knee at "
            f"{N_D:.0e}, m2 to the cut-off at {N_L:.0e}; docs/fatigue.md):")
    rows = [f"  {s.value.form:<26} {s.value.document}: {s.value.describe()}" for s in DetailStandard]
    return [head, *rows, "  characteristic curves; partial factors: detail_category(name, gamma_Ff, gamma_Mf) or "
                         "DetailCategory(..., gamma_Ff=, gamma_Mf=) as Region(fatigue=...)"]


def command(args) -> int:
    """Print the library, then the materials of ``--file`` (InputError, exit 2, for a bad file)."""
    from .model.materials import load_materials
    from .model.materials import MATERIALS

    lines = format_materials(MATERIALS, "built-in materials (structcheck/model/data/materials.toml):")
    if args.file:
        lines += [""] + format_materials(load_materials(args.file), f"materials of {str(Path(args.file))!r}:")
    lines.append("* brittle (max principal stress criterion): the strength shown is the tensile strength. checked: "
                 "values checked against a public text / values. Sources, value by value: structcheck materials "
                 "--sources, or docs/materials.md")
    lines += [""] + detail_lines()
    if args.sources:
        mats = dict(MATERIALS) | (load_materials(args.file) if args.file else {})
        for n, m in mats.items():
            lines += ["", f"{n}: {m.source} | S-N: {m.fatigue_source or 'none'}"]
            lines += [f"  {key}: {text}" for key, text in m.sources]
    print("\n".join(lines))
    return 0


def add_parser(sub, parents) -> None:
    """The ``materials`` command's parser."""
    p = sub.add_parser("materials", parents=parents, help="list the material library (and a material file)",
                       description="List the built-in materials with their constants and the source of their S-N "
                                   "curves, and the materials of a user's TOML file (--file; layout in "
                                   "docs/materials.md). Use a file's material in a study with "
                                   "structcheck.model.materials.load_materials(path)[name].")
    p.add_argument("--file", metavar="F", help="a TOML material file to check and list")
    p.add_argument("--sources", action="store_true", help="also print every material's full sources")
    p.set_defaults(func=command)
