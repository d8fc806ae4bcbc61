"""What the baseline trees share: the rank order of a collective."""

from __future__ import annotations

__all__ = ["tree_order"]


def tree_order(collective) -> tuple[list[str], bool]:
    """Hosts in relative-rank order (root first) and whether the root serves the largest subtree first.

    A reduce keeps its operand order (``P_0`` is relative rank 0) and
    receives smallest subtree first; a gather puts the target first and
    receives smallest first; a broadcast or scatter puts the source first and
    sends largest first.

    Parameters
    ----------
    collective : Reduce, Gather, Broadcast or Scatter
        Or a series of one (its base decides).

    Returns
    -------
    order : list of str
        Hosts by relative rank, root first.
    largest_first : bool
        True for a broadcast or scatter.

    Examples
    --------
    >>> from collsched.collectives import Gather
    >>> tree_order(Gather(sources=["b", "c"], target="a", size=1))
    (['a', 'b', 'c'], False)
    """
    base = collective.base
    if base.kind == "reduce":
        return list(base.participants), False
    if base.kind == "gather":
        return [base.target] + [s for s in base.sources if s != base.target], False
    return [base.source] + [t for t in base.targets if t != base.source], True
