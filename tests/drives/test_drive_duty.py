"""A joint's duty: bad histories are refused naming the input; the segment form is the catalogues' step duty."""
import numpy as np
import pytest

from structcheck.drives import JointDuty
from structcheck.errors import InputError


@pytest.mark.parametrize("kwargs, message", [
    (dict(t=[0.0, 1.0], qd=[0.0, np.nan], tau=[0.0, 0.0]), "duty qd = "),
    (dict(t=[0.0, 1.0], qd=[0.0, 1.0], tau=[0.0]), "duty tau = "),
    (dict(t=[1.0, 0.0], qd=[0.0, 1.0], tau=[0.0, 0.0]), "duty t: give non-decreasing time samples"),
    (dict(t=[0.0], qd=[0.0], tau=[0.0]), "duty t: give at least two time samples"),
    (dict(t=[0.0, 1.0], qd=[0.0, 1.0], tau=[0.0, 0.0], force=np.zeros((2, 2))), "duty force = "),
    (dict(t=[0.0, 1.0], qd=[0.0, 1.0], tau=[0.0, 0.0], pause=-1.0), "duty pause = -1.0"),
])
def test_bad_histories_are_refused(kwargs, message):
    with pytest.raises(InputError, match=message):
        JointDuty(**kwargs)


def test_segments_are_steps_at_repeated_instants():
    d = JointDuty.from_segments([150.0, 82.0], [10.0, 20.0], [0.2, 3.0], pause_s=0.2)
    np.testing.assert_allclose(d.t, [0.0, 0.2, 0.2, 3.2])
    np.testing.assert_allclose(d.tau, [150.0, 150.0, 82.0, 82.0])
    assert d.cycle_time == pytest.approx(3.4)
    assert d.mean_speed_rpm() == pytest.approx((10 * 0.2 + 20 * 3.0) / 3.4)  # the pause counts (HD eq. 18.5)
    with pytest.raises(InputError, match="duty segments"):
        JointDuty.from_segments([1.0, 2.0], [1.0], [1.0, 1.0])
