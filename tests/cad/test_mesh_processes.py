"""Each imported link is meshed in a process of its own (structcheck.cad.assembly.mesh_links): a process that dies
(gmsh's curved-element optimization aborted a suite worker this way) costs one more try in a fresh process, a link
whose process dies twice is an InputError naming it, and a sizing that cannot go to another process meshes in this
one, to the same mesh."""
from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from structcheck.cad import MeshSizing, read_assembly
from structcheck.errors import InputError

from .test_import_assembly import ARM, _arm, _boxes


class DiesMeshing(dict):
    """Link -> mesh size [m] whose look-up aborts the process (as gmsh did) the first ``deaths`` times for
    ``link``, counted in files under ``folder`` (the processes share nothing else)."""

    def __init__(self, sizes, link, folder, deaths):
        super().__init__(sizes)
        self.link, self.folder, self.deaths = link, str(folder), deaths

    def get(self, key, default=None):
        if key == self.link:
            died = len(os.listdir(self.folder))
            if died < self.deaths:
                Path(self.folder, f"death{died}").touch()
                os.abort()
        return super().get(key, default)


def _import(tmp_path, size, name="out"):
    step = _boxes(tmp_path, {k: ARM[k] for k in ("upper_tube", "fore_tube")})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no ground in the file: the shoulder by the nearest-face rule
        return read_assembly(step, _arm(), {"upper": "upper_tube", "fore": "fore_tube"}, materials="6061-O",
                             mesh_size=MeshSizing(size), order=1, out=tmp_path / name)


def test_a_link_whose_process_dies_once_is_meshed_again(tmp_path):
    deaths = tmp_path / "deaths"
    deaths.mkdir()
    got = _import(tmp_path, DiesMeshing({"upper": 0.02, "fore": 0.02}, "fore", deaths, 1))
    assert sorted(os.listdir(deaths)) == ["death0"]  # it died once, then meshed
    want = _import(tmp_path, {"upper": 0.02, "fore": 0.02}, "want")
    for link in ("upper", "fore"):
        assert np.array_equal(got.parts[link].mesh.t, want.parts[link].mesh.t), link


def test_a_link_whose_process_dies_twice_is_an_input_error_naming_it(tmp_path):
    deaths = tmp_path / "deaths"
    deaths.mkdir()
    with pytest.raises(InputError, match=r"link 'fore': gmsh died meshing it \(killed by SIGABRT, 2 times"):
        _import(tmp_path, DiesMeshing({"upper": 0.02, "fore": 0.02}, "fore", deaths, 5))
    assert len(os.listdir(deaths)) == 2


def test_a_sizing_that_cannot_go_to_another_process_meshes_here_to_the_same_mesh(tmp_path):
    class Local(dict):  # a class of a function's: not picklable
        pass

    here = _import(tmp_path, Local({"upper": 0.02, "fore": 0.02}), "here")
    there = _import(tmp_path, {"upper": 0.02, "fore": 0.02}, "there")
    for link in ("upper", "fore"):
        assert np.array_equal(here.parts[link].mesh.p, there.parts[link].mesh.p), link
        assert np.array_equal(here.parts[link].mesh.t, there.parts[link].mesh.t), link
