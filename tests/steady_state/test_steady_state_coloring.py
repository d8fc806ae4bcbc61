"""The weighted edge colouring (Rust, with the Python fallback): matchings covering every edge exactly."""

from fractions import Fraction as F

from hypothesis import given, settings
from hypothesis import strategies as st

from collsched import _core
from collsched.algorithms.steady_state.periodic import _color_python, color


def check(weights, mats):
    cover = {}
    for d, edges in mats:
        assert d > 0
        assert len({u for u, _ in edges}) == len(edges) and len({v for _, v in edges}) == len(edges)
        for e in edges:
            cover[e] = cover.get(e, 0) + d
    assert cover == {e: w for e, w in weights.items() if w}
    deg = {}
    for (u, v), w in weights.items():
        deg[("s", u)] = deg.get(("s", u), 0) + w
        deg[("r", v)] = deg.get(("r", v), 0) + w
    assert sum(d for d, _ in mats) <= max(deg.values())


@settings(max_examples=25, deadline=None)
@given(st.dictionaries(st.tuples(st.integers(0, 4), st.integers(0, 4)),
                       st.fractions(min_value=F(1, 12), max_value=5, max_denominator=12), min_size=1, max_size=12))
def test_colourings_cover_each_edge_for_its_weight(weights):
    check(weights, color(weights))
    check(weights, _color_python(weights))


def test_native_colouring_is_registered():
    assert _core.weighted_edge_coloring([0, 0, 1], [0, 1, 0], [2, 1, 1], 2, 2) == [(1, [1, 2]), (2, [0])]


def test_the_python_colouring_does_not_depend_on_the_hash_seed():
    """Same input, same slots: the fallback colouring (weights past 63 bits) runs the same whatever PYTHONHASHSEED."""
    import subprocess
    import sys

    script = ("from fractions import Fraction as F\n"
              "import numpy as np\n"
              "from collsched.algorithms.steady_state.periodic import _color_python\n"
              "rng = np.random.default_rng(3)\n"
              "w = {(f'host{a}', f'host{b}'): F(int(rng.integers(1, 50)), int(rng.integers(1, 7)))\n"
              "     for a in range(7) for b in range(7) if rng.random() < 0.5}\n"
              "print(repr(_color_python(w)))\n")
    outs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": str(seed)}).stdout
            for seed in (1, 2, 3)}
    assert len(outs) == 1
