"""spatial.cross is np.cross to the bit (the same products and differences in the same order), on single vectors,
stacks and broadcast shapes: the closed chains' loop closure and equilibrium use it in np.cross's place."""
import numpy as np
import pytest

from structcheck.spatial import cross


@pytest.mark.parametrize("sa, sb", [((3,), (3,)), ((5, 3), (5, 3)), ((3,), (7, 3)), ((7, 3), (3,)),
                                    ((4, 2, 3), (4, 2, 3)), ((4, 1, 3), (1, 6, 3))])
def test_cross_is_np_cross_to_the_bit(sa, sb):
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=sa) * 1e3, rng.normal(size=sb) * 1e-2
    got, ref = cross(a, b), np.cross(a, b)
    assert got.shape == ref.shape and got.tobytes() == np.ascontiguousarray(ref).tobytes()
    assert cross([0, 0, 1], [1, 0, 0]).tolist() == [0.0, 1.0, 0.0]  # z x x = y; integer input as floats
