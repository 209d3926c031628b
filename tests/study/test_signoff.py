"""Study.metadata (structcheck.SignOff): text fields, checked where they are made."""
from __future__ import annotations

import dataclasses

import pytest
from helpers import write_small_study

from structcheck.errors import InputError
from structcheck.script import load_study
from structcheck.settings import SignOff, with_overrides


def test_fields_are_text_and_numbers_become_text():
    assert SignOff(revision=3, date=2026.11).revision == "3" and SignOff(date=2026.11).date == "2026.11"
    assert SignOff() == SignOff("", "", "", "", "")  # every field a blank by default
    with pytest.raises(InputError, match=r"^metadata.author = \['x'\]: give a text"):
        SignOff(author=["x"])
    with pytest.raises(InputError, match=r"^metadata.checker = True"):
        SignOff(checker=True)


def test_set_reaches_a_field_and_the_study_checks_its_kind(tmp_path):
    study = load_study(write_small_study(tmp_path))
    changed = with_overrides(study, {"metadata.revision": "B", "metadata.checker": "C. Hecker"})
    assert changed.metadata == SignOff(revision="B", checker="C. Hecker") and study.metadata == SignOff()
    with pytest.raises(InputError, match=r"SignOff has no field 'rev'"):
        with_overrides(study, {"metadata.rev": "B"})
    with pytest.raises(InputError, match=r"^metadata = \{'project': 'x'\}: give a structcheck.SignOff"):
        dataclasses.replace(study, metadata={"project": "x"})
