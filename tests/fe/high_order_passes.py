"""A curved tube meshed with a curved-element quality target, in a process of its own (tests/fe/test_curved.py's
:func:`test_the_curved_element_optimization_runs_again_below_its_target`)."""
from __future__ import annotations


def tube_passes(quality: float):
    """The smallest minimum scaled Jacobian after each pass of gmsh's curved-element optimization on a 40/30 mm
    tube (10 mm elements) with the target ``quality``, and gmsh's ``General.AbortOnError`` after the build."""
    import structcheck.fe.high_order as high_order
    from structcheck.fe.geometry import PartBuilder

    high_order.HIGH_ORDER_QUALITY = quality  # this process's own: it is fresh and ends with the call
    with PartBuilder("tube", 0.01, order=2) as b:
        b.tube((0, 0, 0), (0, 0, 1), 0.02, 0.015, 0.05)
        b.build(None)
        return b.high_order_passes, b.min_scaled_jacobian, b.gmsh.option.getNumber("General.AbortOnError")
