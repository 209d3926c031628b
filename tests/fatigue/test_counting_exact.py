"""fatigue.counting counts on Python floats what the ``rainflow`` package (3.2, ASTM E1049-85 sec. 5.4.4) counts:
the same cycles, in the same order, to the bit, on series with plateaus, repeated values, ties of range and mean,
short and long series, periodic and one-off. The reference below is the counting as it was before: numpy's turning
points, then ``rainflow.extract_cycles``, then the half cycles paired with numpy."""
import numpy as np
import pytest
import rainflow

from structcheck.fatigue.counting import rainflow_cycles, turning_points


def reference(series, periodic):
    x = np.asarray(series, float)
    if periodic and x.size:
        i0 = int(np.argmax(np.abs(x)))
        x = np.concatenate((x[i0:], x[:i0], x[i0:i0 + 1]))
    rows = list(rainflow.extract_cycles(turning_points(x).tolist()))
    if not rows:
        return np.zeros((3, 0))
    rng, mean, count = np.array([r[:3] for r in rows], float).T
    if periodic:
        half = np.flatnonzero(count == 0.5)
        half = half[np.lexsort((mean[half], rng[half]))]
        merged = np.zeros(len(rng), bool)
        i = 0
        while i + 1 < len(half):
            a, b = half[i], half[i + 1]
            if rng[a] == rng[b] and mean[a] == mean[b]:
                count[a], merged[b] = 1.0, True
                i += 2
            else:
                i += 1
        rng, mean, count = rng[~merged], mean[~merged], count[~merged]
    return np.array([rng, mean, count])


def series_set():
    rng = np.random.default_rng(11)
    out = [[], [1.0], [2.0, 2.0], [1.0, 3.0], [3.0, 1.0, 3.0], [0.0, 1.0, 0.0, 1.0], [-2, 1, -3, 5, -1, 3, -4, 4, -2],
           [0.0, 1e-170, 0.0, -1e-170, 0.0], [0.0, -0.0, 1.0, 1.0, -1.0, -1.0, 0.0]]
    for n in (3, 5, 12, 96, 400):
        for _ in range(40):
            x = rng.normal(size=n) * 10 ** rng.uniform(-3, 8)
            if rng.random() < 0.5:  # plateaus and repeated levels: ties of range and mean
                x = np.round(x / np.abs(x).max() * 4) if np.abs(x).max() > 0 else x
            out.append(x)
        t = np.linspace(0, 1, n, endpoint=False)
        out.append(np.sin(2 * np.pi * 3 * t) + 0.5 * np.sin(2 * np.pi * 7 * t))
    return out


@pytest.mark.parametrize("periodic", [True, False])
def test_cycles_are_the_rainflow_packages_to_the_bit(periodic):
    for x in series_set():
        c = rainflow_cycles(np.asarray(x, float), periodic=periodic)
        ref = reference(x, periodic)
        got = np.array([c.range, c.mean, c.count])
        assert got.dtype == ref.dtype and got.shape == ref.shape, x
        assert got.tobytes() == ref.tobytes(), x
