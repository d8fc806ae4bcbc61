"""Personalized exchanges as disjoint partial permutations (Ranka and Wang 1993, seed 002).

The input is the sparse COM matrix of an :class:`~collsched.collectives.AllToMany`
(or the size matrix of an :class:`~collsched.collectives.AllToAll`); the output
is a :class:`~collsched.schedules.StepSchedule` whose steps are partial
permutations (every host sends at most one message and receives at most one
per step), lowered with seed 002's S1 scheme (``sync="ready"``) or S2
(``sync="post_all"``).

* :func:`ac` — asynchronous communication, no scheduling;
* :func:`lp` — linear permutation, ``j = i xor k``;
* :func:`rs_n`, :func:`rs_nl`, :func:`rs_np`, :func:`rs_nlp` — random
  scheduling avoiding node contention (N), link contention on the platform's
  routes (L), with pairwise exchanges first (P);
* :func:`rs_nlh`, :func:`rs_nlph` — the same with a heap of message sizes per
  row and messages split at ``M_thresh`` across phases (H).

The decomposition loops run in the Rust core (``collsched._core.decompose_permutations``).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.hypercube(3)
>>> c = cs.AllToMany({("h0", "h1"): 1e3, ("h1", "h0"): 1e3, ("h2", "h1"): 1e3})
>>> s = cs.plan(p, c, algorithm="rs_np", seed=1)
>>> len(s), s.n_transfers
(2, 3)
>>> cs.validate(p, c, s)

References
----------
S. Ranka and J.-C. Wang, "Static and runtime scheduling of unstructured
communication", Syracuse University, 1993 (seed 002).
"""

from .ac import ac
from .heaps import rs_nlh, rs_nlph
from .lp import lp
from .random_scheduling import rs_n, rs_nl, rs_np, rs_nlp

__all__ = ["ac", "lp", "rs_n", "rs_nl", "rs_np", "rs_nlp", "rs_nlh", "rs_nlph", "ALGORITHMS"]

ALGORITHMS = ("ac", "lp", "rs_n", "rs_nl", "rs_np", "rs_nlp", "rs_nlh", "rs_nlph")
