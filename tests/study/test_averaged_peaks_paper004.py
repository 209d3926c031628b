"""The nodal-averaged peaks of the paper-004 run agree in every output (summary.json, links.csv, the envelope .vtu)
and with the unaveraged ones as the definitions require; the stress-discontinuity warning names every link whose
indicator exceeds 10%, with the location the summary gives."""
import numpy as np
import pytest

from structcheck.checks import DISCONTINUITY_LIMIT
from structcheck.results import format_table, read_csv
from structcheck.results.schema import summary_from_json


def test_averaged_peak_agrees_in_every_output(paper004_run):
    import pyvista as pv

    out, summary = paper004_run.out, paper004_run.summary
    links_csv = read_csv(out / "links.csv")
    table = format_table(summary_from_json(summary))
    for name, L in summary["links"].items():
        avg, unavg = L["max_von_mises_averaged_pa"], L["max_von_mises_pa"]
        row = next(r for r in table.splitlines() if r.startswith(name + " "))
        assert f" {avg * 1e-6:.4f} " in row
        h = links_csv[f"{name}_max_von_mises_averaged_pa"]
        assert h.max() == avg and links_csv["time_s"][np.argmax(h)] == L["time_of_max_averaged_s"]
        env = pv.read(out / "vtk" / f"{name}_envelope.vtu")
        assert env.point_data["von_mises_averaged"].max() == pytest.approx(avg, rel=1e-12)
        k = int(np.argmax(env.point_data["von_mises_averaged"]))
        np.testing.assert_allclose(env.points[k], L["location_of_max_averaged_link_m"], rtol=0, atol=1e-12)
        # von Mises is a norm: the mean tensor's is at most the largest element value, everywhere and at all times
        assert np.all(env.point_data["von_mises_averaged"] <= env.point_data["von_mises"] * (1 + 1e-12))
        assert np.all(h <= links_csv[f"{name}_max_von_mises_pa"] * (1 + 1e-12))
        assert L["von_mises_averaged_at_max_pa"] <= avg * (1 + 1e-12)
        assert L["stress_discontinuity"] == pytest.approx(unavg / L["von_mises_averaged_at_max_pa"] - 1, rel=1e-12)
        # world locations: when both peaks are at the same time, one rigid placement maps both points, so their
        # distance is the same in world axes as in the link frame
        if L["time_of_max_averaged_s"] == L["time_of_max_s"]:
            d_link = np.subtract(L["location_of_max_averaged_link_m"], L["location_of_max_link_m"])
            d_world = np.subtract(L["location_of_max_averaged_m"], L["location_of_max_m"])
            assert np.linalg.norm(d_world) == pytest.approx(np.linalg.norm(d_link), rel=1e-9, abs=1e-12)


def test_discontinuity_warning_names_each_flagged_link(paper004_run):
    summary = paper004_run.summary
    flagged = {n for n, L in summary["links"].items() if L["stress_discontinuity"] > DISCONTINUITY_LIMIT}
    warned = {w.split("'")[1] for w in summary["warnings"] if "refine there" in w}
    assert warned == flagged
    for name in flagged:
        L = summary["links"][name]
        (w,) = [w for w in summary["warnings"] if w.startswith(f"link {name!r}") and "refine there" in w]
        x = ", ".join(f"{v:g}" for v in np.round(np.array(L["location_of_max_link_m"]) * 1e3, 2) + 0.0)
        assert f"({x}) mm in the link frame" in w and "from surface '" in w
        assert f"{100 * L['stress_discontinuity']:.0f}% above the nodal average" in w
