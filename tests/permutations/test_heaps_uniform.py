"""RS_NLH / RS_NLPH with equal message sizes: lambda changes nothing, so one decomposition serves every trial."""

from __future__ import annotations

import math

import numpy as np
import pytest

import collsched as cs
from collsched import _core
from collsched.algorithms.permutations.common import com_matrix, route_resources
from collsched.algorithms.permutations.heaps import paper_lambdas, rs_nlh, rs_nlph


def cases():
    p = cs.topologies.fat_tree(4, 4)
    yield p, cs.AllToAll(senders=p.hosts, size=1e6)
    q = cs.topologies.hypercube(4)
    rng = np.random.default_rng(2)
    pairs = {(q.hosts[a], q.hosts[b]) for a, b in rng.integers(0, 16, size=(60, 2)) if a != b}
    yield q, cs.AllToMany({pair: 3e5 for pair in sorted(pairs)})


@pytest.mark.parametrize("pairs", [False, True])
@pytest.mark.parametrize("case", [0, 1])
def test_every_lambda_gives_the_same_decomposition(case, pairs):
    p, c = list(cases())[case]
    com = com_matrix(p, c)
    path_ptr, path, n_res = route_resources(p, com)
    runs = []
    for lam in paper_lambdas(com.n):
        k = min(com.n, max(1, math.ceil(lam * com.n - 1e-9)))
        runs.append(_core.decompose_permutations(com.n, com.row_ptr, com.dst, com.size, path_ptr, path, n_res,
                                                 pairs=pairs, links=True, heap_k=k, denominator=1024, seed=3))
    for run in runs[1:]:
        assert all(np.array_equal(a, b) for a, b in zip(run, runs[0]))
    assert np.all(runs[0][2] == 0) and np.all(runs[0][3] == 1024)  # every message whole


@pytest.mark.parametrize("algorithm", [rs_nlh, rs_nlph])
@pytest.mark.parametrize("case", [0, 1])
def test_the_trials_keep_the_first_lambda(case, algorithm):
    p, c = list(cases())[case]
    s = algorithm(p, c, seed=3)
    first = algorithm(p, c, seed=3, lam=paper_lambdas(len(p.hosts))[0])
    assert s.steps == first.steps and s.params == first.params
