"""The profiles written as ADAMS function expressions (``adams_text``, what export-adams writes): MotionLaw of the
text gives the profile's value, velocity and one-sided accelerations to rounding, on a dense grid and at every
breakpoint."""
import numpy as np
import pytest

from structcheck.motion import ModifiedTrapezoidal, MotionLaw, Quintic, Trapezoidal

PROFILES = [ModifiedTrapezoidal(0.0, 0.7, 1.2, 3.2), ModifiedTrapezoidal(0.3, -0.1, 5.0, 3.2, t0=0.2),
            Trapezoidal(0.1, -0.4, 1.0, 2.0, t0=0.5), Trapezoidal(0.0, 1.0, 0.5, 2.0),
            Quintic(0.5, 1.5, 0.0, 0.4, a0=0.3, a1=-1.0)]


@pytest.mark.parametrize("law", PROFILES, ids=lambda p: type(p).__name__)
def test_profile_text_is_the_profile(law):
    """Budget: the text's pieces are the profile's closed forms rearranged (POLY about each piece's start, SHF for
    the sine terms) with 17-digit numbers: values within a few ulp, accelerations (up to ~3 unit/s^2) 1e-13."""
    m = MotionLaw(law.adams_text())
    t = np.union1d(np.linspace(-0.5, 3.0, 3001), law.breakpoints)
    assert set(law.breakpoints) <= set(m.breakpoints)
    assert np.abs(m.value(t) - law.value(t)).max() < 1e-15
    for side in (-1, 1):
        assert np.abs(m.velocity(t, side) - law.velocity(t)).max() < 1e-14
        assert np.abs(m.acceleration(t, side) - law.acceleration(t, side=side)).max() < 1e-13


def test_a_quintic_not_at_rest_has_no_text():
    """Held at its end values outside its span, a quintic with end velocities would jump in velocity: no text
    (export-adams samples it)."""
    assert Quintic(0.0, 1.0, 0.0, 1.0, v0=0.5).adams_text() is None
