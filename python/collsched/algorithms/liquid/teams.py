"""Full simultaneities and full teams by category fission (seed 001, Sections 2 and 3).

Transfers are bit positions and sets of transfers are Python ints (bitsets);
``conflicts[i]`` is the bitset of transfers congesting with transfer ``i``
(itself included) and ``links[i]`` the bitset of its resources. This is the
reference implementation; the search in :mod:`.search` runs the same steps
in the Rust core.

A *category* ``(excluder, depot, includer)`` covers the full simultaneities
that contain the includer and nothing of the excluder. Fission on a depot
transfer ``x`` splits it into ``R+x`` (``x`` to the includer, its congesting
transfers out of depot and excluder) and ``R-x`` (``x`` to the excluder).
A category is *blank* when some excluder transfer has no congesting transfer
in the depot, and *idle* when includer and depot together miss a bottleneck.

Examples
--------
The traffic of the paper's Figure 1 has 6 bottleneck-using full teams that
contain T1→R4:

>>> from collsched.algorithms.liquid.traffic import figure1_platform, figure1_collective, traffic_of
>>> X = traffic_of(figure1_platform(), figure1_collective())
>>> all_ = (1 << len(X)) - 1
>>> need = sum(1 << b for b in X.bottlenecks)
>>> teams = full_teams(all_, X.conflicts, X.link_masks, need)
>>> len(teams), all(bin(t).count("1") >= 2 for t in teams)
(72, True)
>>> len(full_simultaneities(all_, X.conflicts)) >= len(teams)
True
"""

from __future__ import annotations

from typing import Iterator, Sequence

__all__ = ["fission", "full_simultaneities", "full_teams", "iter_full_teams", "skeleton", "bits",
           "search_space"]


def bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first.

    Examples
    --------
    >>> list(bits(0b1011))
    [0, 1, 3]
    """
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _links_of(mask: int, links: Sequence[int]) -> int:
    out = 0
    for i in bits(mask):
        out |= links[i]
    return out


def _pick(depot: int, includer: int, links: Sequence[int], need: int, score: Sequence[int] | None) -> int:
    """The transfer to split on: on the uncovered bottleneck with fewest depot transfers, the most urgent.

    Any depot transfer gives a partition (the paper takes "an arbitrary
    transfer"); as in exact-cover search, the bottleneck with fewest
    candidates keeps the tree small, and among its candidates (or the whole
    depot when every bottleneck is covered) the one of highest ``score``
    (lowest index on ties; the lowest index without scores) is tried first.
    """
    def best(mask: int) -> int:
        if score is None:
            return (mask & -mask).bit_length() - 1
        return max(bits(mask), key=lambda x: (score[x], -x))

    if need:
        missing = need & ~_links_of(includer, links)
        if missing:
            choice, count = 0, -1
            for r in bits(missing):
                users = sum(1 << x for x in bits(depot) if links[x] >> r & 1)
                c = bin(users).count("1")
                if count < 0 or c < count:
                    choice, count = users, c
            return best(choice)
    return best(depot)


def fission(excluder: int, depot: int, includer: int, conflicts: Sequence[int], links: Sequence[int] = (),
            need: int = 0, counter: list | None = None, score: Sequence[int] | None = None, *,
            prune: bool = True) -> Iterator[int]:
    """Every full simultaneity covered by the category, each once (its includer plus depot transfers).

    Parameters
    ----------
    excluder, depot, includer : int
        Bitsets of transfers: the category.
    conflicts : sequence of int
        Per transfer, the transfers congesting with it (itself included).
    links : sequence of int
        Per transfer, its resources (needed only with ``need``).
    need : int
        Resources every yielded simultaneity must use (the bottlenecks):
        idle categories are dropped. 0: no idle check.
    counter : list of one int, optional
        Incremented once per category visited (the size of the search tree).
    score : sequence of int, optional
        Per transfer, its urgency: the transfer split on first is the most
        urgent (same coverage, another order).
    prune : bool
        Drop blank and idle categories (the paper's reductions). False: the
        plain recursion, which splits down to every singular category and
        keeps those whose includer is full (and uses ``need``): the same
        simultaneities, a larger tree (the baseline of the paper's Fig. 4).

    Yields
    ------
    int
        The includer of each singular category reached.

    Examples
    --------
    Three transfers, 0 and 1 congesting: full simultaneities {0, 2} and {1, 2}.

    >>> sorted(fission(0, 0b111, 0, [0b011, 0b011, 0b100]))
    [5, 6]
    >>> n = [0]
    >>> sorted(fission(0, 0b111, 0, [0b011, 0b011, 0b100], counter=n, prune=False)), n[0]
    ([5, 6], 11)
    """
    stack = [(excluder, depot, includer)]
    while stack:
        e, d, i = stack.pop()
        if counter is not None:
            counter[0] += 1
        if not prune:
            if not d:  # singular: keep it if full (every excluded transfer congests with it) and a team
                if all(conflicts[x] & i for x in bits(e)) and (not need or (_links_of(i, links) & need) == need):
                    yield i
                continue
        else:
            # blank: an excluder transfer with no congesting transfer left in the depot
            if any(not (conflicts[x] & d) for x in bits(e)):
                continue
            # idle: includer and depot together miss a bottleneck
            if need and (_links_of(i | d, links) & need) != need:
                continue
            if not d:
                yield i  # singular (e is empty: the blank check saw to it)
                continue
        x = _pick(d, i, links, need, score) if prune else (d & -d).bit_length() - 1
        stack.append((e | (1 << x), d & ~(1 << x), i))  # R-x
        stack.append((e & ~conflicts[x], d & ~conflicts[x], i | (1 << x)))  # R+x


def full_simultaneities(traffic: int, conflicts: Sequence[int]) -> list[int]:
    """All full simultaneities of ``traffic`` (a bitset): fission of the prim-category (∅, X, ∅).

    Examples
    --------
    >>> full_simultaneities(0b111, [0b011, 0b011, 0b100])
    [5, 6]
    """
    return sorted(fission(0, traffic, 0, _restrict(conflicts, traffic)))


def _restrict(conflicts: Sequence[int], traffic: int) -> list[int]:
    return [c & traffic for c in conflicts]


def skeleton(traffic: int, links: Sequence[int], need: int) -> int:
    """ζ(X): the transfers of ``traffic`` that use a resource of ``need`` (the bottlenecks).

    Examples
    --------
    >>> skeleton(0b111, [0b01, 0b10, 0b11], 0b10)
    6
    """
    return sum(1 << i for i in bits(traffic) if links[i] & need)


def full_teams(traffic: int, conflicts: Sequence[int], links: Sequence[int], need: int,
               counter: list | None = None, *, containing: int | None = None) -> list[int]:
    """All full teams of ``traffic``: full simultaneities using every resource of ``need`` (Section 3).

    Step 1: the full teams of the skeleton by fission with idle pruning;
    step 2: each becomes the includer of a category whose depot holds the
    transfers of ``traffic`` not congesting with it; step 3: fission of
    those, without the idle check.

    Parameters
    ----------
    traffic : int
        Bitset of transfers.
    conflicts, links : sequence of int
        Per transfer: congesting transfers, resources.
    need : int
        The bottlenecks (0: every full simultaneity is a team).
    counter : list of one int, optional
        Counts the categories visited.
    containing : int, optional
        Only the teams that contain this transfer (a skeleton transfer when
        ``need`` is non-zero).

    Returns
    -------
    list of int
        Bitsets, each full team once.

    Examples
    --------
    >>> full_teams(0b111, [0b011, 0b011, 0b100], [0b1, 0b1, 0b10], 0b1)
    [5, 6]
    >>> full_teams(0b111, [0b011, 0b011, 0b100], [0b1, 0b1, 0b10], 0b1, containing=1)
    [6]
    """
    return sorted(iter_full_teams(traffic, conflicts, links, need, counter, containing=containing))


def iter_full_teams(traffic: int, conflicts: Sequence[int], links: Sequence[int], need: int,
                    counter: list | None = None, *, containing: int | None = None,
                    score: Sequence[int] | None = None) -> Iterator[int]:
    """:func:`full_teams` lazily, in depth-first order (the order of the Rust core's search).

    Parameters
    ----------
    traffic, conflicts, links, need, counter, containing
        As for :func:`full_teams`.
    score : sequence of int, optional
        Urgency of each transfer, the order of the fission (see :func:`fission`).

    Yields
    ------
    int
        Each full team once.

    Examples
    --------
    >>> list(iter_full_teams(0b111, [0b011, 0b011, 0b100], [0b1, 0b1, 0b10], 0b1))
    [5, 6]
    """
    conf = _restrict(conflicts, traffic)
    skel = skeleton(traffic, links, need)
    start_d, start_i = skel, 0
    if containing is not None and need:
        start_d, start_i = skel & ~conf[containing], 1 << containing
    # step 1: full teams of the skeleton (fission with idle pruning)
    for team in fission(0, start_d, start_i, conf, links, need, counter, score):
        # step 2: the category (∅, transfers of X not congesting with the team, team)
        depot = traffic & ~skel
        for x in bits(team):
            depot &= ~conf[x]
        if containing is not None and not need:
            depot &= ~conf[containing]
            team |= 1 << containing
        # step 3: its fission, without the idle check
        yield from fission(0, depot, team, conf, counter=counter, score=score)


def search_space(traffic: int, conflicts: Sequence[int], links: Sequence[int], need: int) -> dict[str, int]:
    """Categories visited to find every full team of ``traffic``, without and with the reductions (Fig. 4).

    Parameters
    ----------
    traffic : int
        Bitset of transfers.
    conflicts, links : sequence of int
        Per transfer: congesting transfers, resources.
    need : int
        The bottlenecks.

    Returns
    -------
    dict of str to int
        ``"plain"``: fission of the whole traffic, no blank or idle pruning
        (teams kept at the leaves); ``"blank"``: with blank pruning (every
        full simultaneity, teams kept); ``"blank+idle"``: with both;
        ``"skeleton"``: :func:`full_teams` (skeleton first, both prunings).
        Every method finds the same teams (checked).

    Examples
    --------
    >>> from collsched.algorithms.liquid.traffic import figure1_platform, figure1_collective, traffic_of
    >>> X = traffic_of(figure1_platform(), figure1_collective())
    >>> need = sum(1 << b for b in X.bottlenecks)
    >>> search_space((1 << len(X)) - 1, X.conflicts, X.link_masks, need)
    {'plain': 2419, 'blank': 1469, 'blank+idle': 589, 'skeleton': 625}
    """
    conf = _restrict(conflicts, traffic)
    sizes, found = {}, {}
    runs = {"plain": lambda n: fission(0, traffic, 0, conf, links, need, n, prune=False),
            "blank": lambda n: (t for t in fission(0, traffic, 0, conf, counter=n)
                                if (_links_of(t, links) & need) == need),
            "blank+idle": lambda n: fission(0, traffic, 0, conf, links, need, n),
            "skeleton": lambda n: iter_full_teams(traffic, conflicts, links, need, n)}
    for name, run in runs.items():
        n = [0]
        found[name] = sorted(run(n))
        sizes[name] = n[0]
    assert len({tuple(v) for v in found.values()}) == 1, "the methods found different teams"
    return sizes
