"""Materials: the shipped values against their documented sources, safety factors under both failure criteria,
and the errors for an unknown name, an alloy without its temper and a Part without a material."""
import numpy as np
import pytest

from structcheck.errors import InputError
from structcheck.model import MATERIALS, Material, get_material


@pytest.mark.parametrize("name, density, E, nu, strength", [
    ("304", 7930.0, 193e9, 0.29, 205e6),     # paper 004, Table 2: 304 stainless steel
    ("6061-O", 2750.0, 69e9, 0.33, 55.2e6),  # paper 004, Table 2: 6061 aluminium (55.2 MPa: annealed 6061-O)
    ("6061-T6", 2700.0, 68.9e9, 0.33, 276e6),  # ASM Handbook / MatWeb: 6061-T6 yield 276 MPa
    ("HT200", 7200.0, 120e9, 0.27, 200e6),   # GB/T 9439 grey cast iron HT200: tensile strength 200 MPa
    ("structural_steel", 7850.0, 200e9, 0.3, 250e6),  # ANSYS Engineering Data 'Structural Steel'
    ("steel_7801", 7801.0, 200e9, 0.3, 250e6),  # paper 003, Table 2 density of the KR500 cylinder bodies
])
def test_shipped_values_match_their_sources(name, density, E, nu, strength):
    m = MATERIALS[name]
    assert (m.name, m.density, m.E, m.nu, m.strength) == (name, density, E, nu, strength)
    assert m.yield_strength == strength and m.source


def test_every_shipped_material_is_listed_and_only_grey_iron_is_brittle():
    assert sorted(MATERIALS) == ["304", "316", "42CrMo4-QT", "6061-O", "6061-T6", "6082-T6", "7075-T6", "A356-T6",
                                 "EN-GJS-400-15", "HT200", "S235", "S355", "steel_7801", "structural_steel"]
    assert {n for n, m in MATERIALS.items() if m.criterion == "max_principal"} == {"HT200"}


def test_ductile_safety_factor_is_yield_over_von_mises():
    m = get_material("304")
    vm = np.array([[0.0, 102.5e6], [205e6, 410e6]])
    np.testing.assert_array_equal(m.safety_factor(vm), [[np.inf, 2.0], [1.0, 0.5]])
    # the max principal stress does not govern a ductile material
    np.testing.assert_array_equal(m.safety_factor(vm, -vm), m.safety_factor(vm))
    assert m.safety_factor(np.zeros((4, 3, 2))).shape == (4, 3, 2)


def test_brittle_safety_factor_is_tensile_strength_over_max_principal():
    m = get_material("HT200")
    vm = np.array([150e6, 150e6, 150e6, 0.0])
    s1 = np.array([100e6, 400e6, -150e6, 0.0])  # tension, tension, compression only, unloaded
    np.testing.assert_array_equal(m.safety_factor(vm, s1), [2.0, 0.5, np.inf, np.inf])
    with pytest.raises(InputError, match="material 'HT200' is brittle: its safety factor needs the max principal"):
        m.safety_factor(vm)


def test_get_material_by_name_or_object_and_unknown_names():
    assert get_material("ht200") is MATERIALS["HT200"] and get_material("6061-t6") is MATERIALS["6061-T6"]
    own = Material("own", 1000.0, 1e9, 0.3, 1e6)
    assert get_material(own) is own
    with pytest.raises(InputError) as err:
        get_material("7075")
    msg = str(err.value)
    assert "unknown material '7075'" in msg and all(repr(n) in msg for n in MATERIALS)
    assert "structcheck.Material" in msg


@pytest.mark.parametrize("kwargs, needle", [
    (dict(criterion="tresca"), r"criterion must be one of \('von_mises', 'max_principal'\), got 'tresca'"),
    (dict(nu=0.5), r"material 'bad': nu = 0.5: give a finite number > -1 and < 0.5 \(Poisson's ratio\)"),
    (dict(density=0.0), r"material 'bad': density = 0.0: give a finite number > 0 \(kg/m\^3\)"),
    (dict(strength=-1.0), r"material 'bad': strength = -1.0: give a finite number > 0 \(Pa\)"),
    (dict(E=float("inf")), r"material 'bad': E = inf: give a finite number > 0 \(Pa\)"),
    (dict(density=float("nan")), r"material 'bad': density = nan: give a finite number > 0"),
    (dict(nu="0.3"), r"material 'bad': nu = '0.3': give a finite number > -1 and < 0.5 \(Poisson's ratio\), not str"),
])
def test_invalid_material_is_rejected(kwargs, needle):
    args = dict(name="bad", density=1000.0, E=1e9, nu=0.3, strength=1e6) | kwargs
    with pytest.raises(InputError, match=needle):
        Material(**args)


def test_an_alloy_without_its_temper_is_refused_naming_both_tempers_and_their_yields():
    with pytest.raises(InputError) as err:
        get_material("6061")
    msg = str(err.value)
    assert msg == ("material '6061' names no temper: give '6061-O' (yield 55.2 MPa) or '6061-T6' (yield 276 MPa)")
    assert "\n" not in msg


def test_a_part_needs_a_material_and_the_error_lists_the_library(tmp_path):
    from structcheck.fe.part import Part, deferred_mesh_reading
    from structcheck.geometry import PartBuilder

    with PartBuilder("block", mesh_size=0.02) as b:
        b.build(b.box((0, 0, 0), (0.04, 0.04, 0.04)))
        path = b.write(tmp_path / "block.msh")
    for call in (lambda: Part.from_mesh(path), lambda: Part.from_mesh(path, None)):
        with pytest.raises(InputError) as err:
            call()
        msg = str(err.value)
        assert msg.startswith("part 'block': give a material") and all(repr(n) in msg for n in MATERIALS), msg
    with deferred_mesh_reading(), pytest.raises(InputError, match="part 'never': give a material"):
        Part.from_mesh(tmp_path / "never.msh")  # said at once, before the deferred read
    with pytest.raises(InputError, match="part 'block': material '6061' names no temper"):
        Part.from_mesh(path, "6061")
    assert Part.from_mesh(path, "6061-O").material is MATERIALS["6061-O"]
