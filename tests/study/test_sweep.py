"""`structcheck sweep` on the tiny cantilever study: a 2 x 2 sweep on the local process pool, sweep.csv against
each variant's summary.json, reruns that skip what is up to date, a failing variant, the Dask executor giving the
same sweep.csv, Ctrl-C leaving only complete folders, and the command line's exit statuses."""
import concurrent.futures as cf
import json
import shutil
from pathlib import Path

import pytest

from helpers import SMALL_STUDY, write_small_study
from structcheck.cli import main
from structcheck.errors import InputError
from structcheck.results import read_summary
from structcheck.sweep import (INPUTS_FILE, METRICS, file_sha256, is_up_to_date, local_executor, parse_param,
                               parse_value, read_sweep_csv, sweep, variant_name)

PARAMS = {"tip_force_n": [100, 2000.0], "gravity_z": [0, -9.81]}
OPTIONS = {"vtk": False, "plots": True, "report": True}


class Refuse(cf.Executor):
    """An executor that fails the test if anything is submitted to it."""

    def submit(self, fn, /, *args, **kwargs):
        raise AssertionError(f"a variant was run: {args}")


class Counting(cf.ThreadPoolExecutor):
    """One thread in this process, recording the folder of every variant submitted."""

    def __init__(self):
        super().__init__(1)
        self.folders = []

    def submit(self, fn, /, *args, **kwargs):
        self.folders.append(Path(args[2]).name)
        return super().submit(fn, *args, **kwargs)


class CountingPool(cf.Executor):
    """The local pool of two workers that ``sweep(..., workers=2)`` uses, recording the folder of every variant
    submitted. The same pool as the first sweep, hence the same BLAS/MKL thread count per worker: PARDISO's
    reproducible mode gives the same bits for the same thread count only (a 4- and an 8-thread run of the tiny
    study differ by 5e-11 relative), so an in-process rerun on a many-core machine would not be bit-equal."""

    def __init__(self):
        self.pool, self.folders = local_executor(2), []

    def submit(self, fn, /, *args, **kwargs):
        self.folders.append(Path(args[2]).name)
        return self.pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait=True, *, cancel_futures=False):
        self.pool.shutdown(wait, cancel_futures=cancel_futures)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """The 2 x 2 sweep on two local worker processes: (study path, SweepResult)."""
    folder = tmp_path_factory.mktemp("sweep")
    study = write_small_study(folder)
    return study, sweep(study, PARAMS, folder / "out", workers=2, progress=False)


def without_run_time(rows):
    return [{k: v for k, v in r.items() if k not in ("run_time_s", "status")} for r in rows]


def test_parse_values_numbers_else_strings():
    assert [parse_value(v) for v in ("3", "-2", "1.5", "2e3", ".5", "nan", "inf", "1,5", "steel", "True")] == \
        [3, -2, 1.5, 2000.0, 0.5, "nan", "inf", "1,5", "steel", "True"]
    assert parse_param("wall_mm=4, 5.5 ,x") == ("wall_mm", [4, 5.5, "x"])
    for bad in ("wall_mm", "wall_mm=", "wall_mm=1,,2", "2x=1", "=1", "a=1,1"):
        with pytest.raises(InputError):
            parse_param(bad)
    assert variant_name({"a": 1, "b": "x/y z"}) == "a=1__b=x_y_z"


def test_sweep_writes_a_folder_per_variant_and_csv_from_their_summaries(swept):
    study, res = swept
    assert res.counts == {"ran": 4, "skipped": 0, "failed": 0}
    assert (res.out / "sweep.png").stat().st_size > 10_000
    rows = read_sweep_csv(res.csv)
    assert [(r["tip_force_n"], r["gravity_z"]) for r in rows] == [(100, 0), (100, -9.81), (2000.0, 0), (2000.0, -9.81)]
    assert sorted(p.name for p in res.out.iterdir() if p.is_dir()) == sorted(r["variant"] for r in rows)
    for r in rows:
        folder = res.out / r["variant"]
        s = read_summary(folder)
        beam = s.links["beam"]
        assert s.parameters["tip_force_n"] == r["tip_force_n"]
        # the CSV holds every digit (repr), so the numbers are equal, not close
        assert (r["max_von_mises_pa"], r["min_safety_factor"], r["max_deformation_m"], r["tool_point_deflection_m"],
                r["mass_kg"]) == (s.max_von_mises_pa, beam.min_safety_factor, s.max_deformation_m,
                                  s.tool_point_deflection_m, beam.mass_kg)
        assert r["verdict"] == ("pass" if s.passed else "fail") and r["status"] == "ran" and r["error"] is None
        assert r["run_time_s"] == s.timings_s["total"] + s.timings_s["write"]
        assert not (folder / "robot.vtkhdf").exists() and not (folder / "robot.pvd").exists()  # unless --vtk
        record = json.loads((folder / INPUTS_FILE).read_text())
        assert record["study_sha256"] == file_sha256(study) and record["options"] == OPTIONS
        assert record["parameters"] == {"tip_force_n": r["tip_force_n"], "gravity_z": r["gravity_z"]}
    assert [r["verdict"] for r in rows] == ["pass", "pass", "fail", "fail"]  # 2 kN overloads the 20 mm beam
    assert not list(res.out.glob(".*partial*"))


def test_rerun_skips_up_to_date_variants_and_reruns_the_others(swept, tmp_path):
    study, first = swept
    out = tmp_path / "out"
    shutil.copytree(first.out, out)
    again = sweep(study, PARAMS, out, Refuse(), progress=False)  # nothing is submitted
    assert again.counts == {"ran": 0, "skipped": 4, "failed": 0}
    assert without_run_time(again.rows) == without_run_time(first.rows)
    names = [r["variant"] for r in first.rows]
    shutil.rmtree(out / names[0])
    (out / names[3] / INPUTS_FILE).write_text("{corrupt")
    ex = CountingPool()
    with ex:
        third = sweep(study, PARAMS, out, ex, progress=False)
    assert sorted(ex.folders) == sorted([names[0], names[3]])
    assert [r["status"] for r in third.rows] == ["ran", "skipped", "skipped", "ran"]
    assert without_run_time(third.rows) == without_run_time(first.rows)
    # other run options, another version of the study script: everything is out of date
    assert not is_up_to_date(out / names[1], file_sha256(study), {"tip_force_n": 100, "gravity_z": -9.81},
                             {**OPTIONS, "vtk": True})
    assert not is_up_to_date(out / names[1], "0" * 64, {"tip_force_n": 100, "gravity_z": -9.81}, OPTIONS)
    assert is_up_to_date(out / names[1], file_sha256(study), {"tip_force_n": 100, "gravity_z": -9.81}, OPTIONS)


def test_files_the_study_reads_are_part_of_its_inputs(tmp_path):
    """A study that imports a module from its folder and reads its force from a text file: both are recorded,
    and editing either makes the variant out of date."""
    (tmp_path / "loads_helper.py").write_text("def scale(x):\n    return 1.0 * x\n")
    (tmp_path / "force.txt").write_text("150\n")
    script = tmp_path / "reads_files.py"
    script.write_text(SMALL_STUDY + '''
from pathlib import Path
import loads_helper

_build = build


def build(load_case="force.txt", required_safety_factor=1.5):
    force = float((Path(__file__).parent / load_case).read_text())
    return _build(tip_force_n=loads_helper.scale(force), required_safety_factor=required_safety_factor)
''')
    with Counting() as ex:
        res = sweep(script, {"load_case": ["force.txt"]}, tmp_path / "out", ex, progress=False, plots=False,
                    html=False)
    folder = res.out / res.rows[0]["variant"]
    record = json.loads((folder / INPUTS_FILE).read_text())
    assert sorted(Path(p).name for p in record["files"]) == ["force.txt", "loads_helper.py"]
    assert read_summary(folder).parameters["tip_force_n"] == 150.0
    key = (file_sha256(script), {"load_case": "force.txt"}, {"vtk": False, "plots": False, "report": False})
    assert is_up_to_date(folder, *key)
    (tmp_path / "force.txt").write_text("160\n")
    assert not is_up_to_date(folder, *key)
    (tmp_path / "force.txt").write_text("150\n")
    (tmp_path / "loads_helper.py").write_text("def scale(x):\n    return 2.0 * x\n")
    assert not is_up_to_date(folder, *key)


def test_failing_variant_is_reported_and_the_others_complete(tmp_path, capsys):
    script = tmp_path / "fragile.py"
    script.write_text(SMALL_STUDY + '''
_build = build


def build(tip_force_n=100.0, required_safety_factor=1.5):
    if tip_force_n < 0:
        raise ValueError(f"a tip force of {tip_force_n} N pulls the wrong way")
    return _build(tip_force_n=tip_force_n, required_safety_factor=required_safety_factor)
''')
    out = tmp_path / "out"
    status = main(["sweep", str(script), "--param", "tip_force_n=-5,100", "--out", str(out), "--workers", "1",
                   "--quiet"])
    assert status == 1
    err = capsys.readouterr().err
    assert "variant tip_force_n=-5 failed" in err and "pulls the wrong way" in err
    bad, good = read_sweep_csv(out / "sweep.csv")
    assert bad["status"] == "failed" and "ValueError: a tip force of -5 N pulls the wrong way" in bad["error"]
    assert all(bad[m] is None for m in METRICS) and not (out / bad["variant"]).exists()
    assert good["status"] == "ran" and good["verdict"] == "pass" and (out / good["variant"] / INPUTS_FILE).is_file()
    page = (out / "sweep.html").read_text()  # the failed variant's row with its error, unlinked; the other linked
    assert "pulls the wrong way" in page and f'href="{good["variant"].replace("=", "%3D")}/report.html"' in page
    assert f'href="{bad["variant"].replace("=", "%3D")}/report.html"' not in page
    # the rerun tries the failed one again (and fails again), skips the other
    assert main(["sweep", str(script), "--param", "tip_force_n=-5,100", "--out", str(out), "--workers", "1",
                 "--quiet"]) == 1
    assert [r["status"] for r in read_sweep_csv(out / "sweep.csv")] == ["failed", "skipped"]


def test_dask_cluster_gives_the_same_sweep_csv(swept, tmp_path):
    from conftest import importable, require

    require(importable("distributed"), "Dask distributed", "pip install -e '.[test]' (the test extra has it)")
    import distributed

    study, local = swept
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as client:
        import structcheck

        # the workers import this copy of structcheck (PYTHONPATH is inherited), not another install
        assert set(client.run(lambda: structcheck.__file__).values()) == {structcheck.__file__}
        res = sweep(study, PARAMS, tmp_path / "out", client.get_executor(pure=False), progress=False, html=False)
    assert res.counts["ran"] == 4
    # equal to 1e-9: a local worker uses cores/workers BLAS threads, a Dask worker one, and the thread count
    # changes the order of the sums (3e-12 relative measured); equal bit for bit where the counts agree
    for d, loc in zip(read_sweep_csv(res.csv), read_sweep_csv(local.csv)):
        for key in loc:
            if key != "run_time_s":
                assert d[key] == (pytest.approx(loc[key], rel=1e-9) if isinstance(loc[key], float) else loc[key])


def test_interrupt_leaves_only_complete_variant_folders(tmp_path):
    study = write_small_study(tmp_path)
    out = tmp_path / "out"

    def interrupt(row):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep(study, {"tip_force_n": [100, 200, 300, 400]}, out, workers=1, progress=False, report=interrupt,
              html=False)
    folders = [p for p in out.iterdir()]
    assert 1 <= len(folders) < 4  # the first finished; the pending ones were cancelled
    for folder in folders:  # each is a whole results folder with its inputs recorded, nothing temporary
        assert folder.is_dir() and not folder.name.startswith(".")
        assert read_summary(folder) and (folder / INPUTS_FILE).is_file()


def test_cli_sweep_exit_statuses(swept, capsys):
    study, res = swept
    args = ["sweep", str(study), "--param", "tip_force_n=100,2000.0", "--param", "gravity_z=0,-9.81",
            "--out", str(res.out), "--quiet"]
    assert main(args) == 0  # all up to date: nothing runs
    out = capsys.readouterr().out
    assert "0 ran, 4 up to date (skipped), 0 failed" in out
    for bad, words in ((["--param", "tip_force_n"], "NAME=v1,v2"),
                       (["--param", "tip_force_n="], "empty value"),
                       (["--param", "wall_mm=4,5"], "build() has no parameter 'wall_mm'"),
                       (["--param", "tip_force_n=1", "--param", "tip_force_n=2"], "given twice"),
                       (["--param", "tip_force_n=100,abc"], "tip_force_n = 'abc': give a finite number"),
                       (["--param", "tip_force_n=nan,100"], "tip_force_n = nan: give a finite number"),
                       (["--param", "tip_force_n=1", "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"],
                        "--workers")):
        assert main(["sweep", str(study), *bad, "--out", str(res.out / "never"), "--quiet"]) == 2, bad
        err = capsys.readouterr().err.strip()
        assert words in err and "\n" not in err and "Traceback" not in err, err
    assert main(["sweep", str(study.with_name("missing.py")), "--param", "a=1"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["sweep", str(study), "--param", "tip_force_n=1", "--workers", "0"]) == 2  # argparse's own error
    assert main(["sweep", str(study)]) == 2  # --param is required
    assert not (res.out / "never").exists()
