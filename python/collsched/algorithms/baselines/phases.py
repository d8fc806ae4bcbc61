"""Building blocks of the GPU baselines: ring phases over a group, fragments, the values they carry.

A ReduceScatter or AllReduce baseline is a :class:`~collsched.schedules.StepSchedule`
whose transfers name the reduction they carry (``Σ{...}`` over the operand
positions of the senders upstream, or ``v[k..m]`` for an ordered operator)
on a fragment of the vector; lowering forms each such value by combining
what the sender holds (:mod:`collsched.schedules.combining`). The ring
phases here run over any group of participants (the whole collective,
one box, the same-index GPUs of every box), so that ``ring`` and
``hierarchical`` share them.

Fragments are ranges ``(start, end)`` of the schedule's denominator;
ring member ``k`` ends its reduce-scatter holding the reduction on
``frags[k]``.

Examples
--------
>>> from collsched.schedules.values import block
>>> [(t.src, t.dst, t.values) for t in ring_allgather(["a", "b", "c"], lambda k: (block(0, k, -1),), [None] * 3)[0]]
[('a', 'b', (m[0→*]@0,)), ('b', 'c', (m[1→*]@0,)), ('c', 'a', (m[2→*]@0,))]
>>> split((0, 6), 3)
[(0, 2), (2, 4), (4, 6)]
"""

from __future__ import annotations

from itertools import zip_longest
from typing import Callable, Iterable, Sequence

from ...errors import ScheduleError
from ...schedules import Transfer
from ...schedules.values import Value, combine, partial, reduced

__all__ = ["positive_int", "reduction_of", "value_over", "split", "merge_steps", "ring_reduce_scatter",
           "ring_allgather", "channel_fragments"]


def positive_int(algorithm: str, name: str, value) -> int:
    """``value`` if it is an integer >= 1, else the one-line ``ValueError`` naming the option.

    Parameters
    ----------
    algorithm, name : str
        The algorithm and its option, for the message.
    value : object
        What the user gave.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``value`` is not an integer >= 1 (a bool is not).

    Examples
    --------
    >>> positive_int("ring", "channels", 2)
    2
    >>> positive_int("ring", "channels", 0)
    Traceback (most recent call last):
    ...
    ValueError: ring option channels=0 is not an integer >= 1
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{algorithm} option {name}={value!r} is not an integer >= 1")
    return value


def reduction_of(collective, algorithm: str, *, ordered: bool = True):
    """(the reduction of one instance, its participants, the number of instances); checks the operator.

    Parameters
    ----------
    collective : ReduceScatter or AllReduce
        Or a :class:`~collsched.collectives.Series` of one.
    algorithm : str
        The baseline's name, for the message.
    ordered : bool
        Whether the baseline keeps operand order (supports ``commutative=False``).

    Returns
    -------
    base, participants, count

    Raises
    ------
    ScheduleError
        If the operator is not commutative and the baseline cannot keep operand order.

    Examples
    --------
    >>> from collsched.collectives import AllReduce
    >>> reduction_of(AllReduce(participants=["a", "b"], size=8, commutative=False), "ring", ordered=False)
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: ring cannot keep operand order: a non-commutative allreduce needs direct or double_binary_tree (or commutative=True)
    """
    base = collective.base
    if not base.commutative and not ordered:
        raise ScheduleError(f"{algorithm} cannot keep operand order: a non-commutative {base.kind} needs "
                            "direct or double_binary_tree", fix="or commutative=True")
    return base, list(base.participants), collective.count


def value_over(base, inst: int, positions: Iterable[int]) -> Value:
    """The reduction over operand ``positions``: ``Σ{...}`` or, for an ordered operator, ``v[min..max]``.

    Parameters
    ----------
    base : ReduceScatter or AllReduce
        Gives the operator.
    inst : int
        The instance.
    positions : iterable of int
        Operand positions; contiguous when the operator is ordered.

    Returns
    -------
    Value

    Raises
    ------
    ScheduleError
        If the operator is ordered and the positions are not a contiguous range.

    Examples
    --------
    >>> from collsched.collectives import AllReduce
    >>> value_over(AllReduce(participants=["a", "b", "c"], size=8), 0, [2, 0])
    Σ{0,2}@0
    >>> value_over(AllReduce(participants=["a", "b", "c"], size=8, commutative=False), 1, [2, 1])
    v[1..2]@1
    """
    positions = sorted(set(positions))
    if base.commutative:
        return reduced(inst, positions)
    if positions[-1] - positions[0] + 1 != len(positions):
        raise ScheduleError(f"operands {positions} are not a contiguous range, which an ordered {base.kind} needs")
    return partial(inst, positions[0], positions[-1])


def split(frag: tuple[int, int], parts: int) -> list[tuple[int, int]]:
    """``frag`` cut into ``parts`` equal consecutive ranges (its length must be a multiple of ``parts``).

    Parameters
    ----------
    frag : (int, int)
        ``(start, end)`` in units of the denominator.
    parts : int
        How many.

    Returns
    -------
    list of (int, int)

    Examples
    --------
    >>> split((4, 8), 2)
    [(4, 6), (6, 8)]
    """
    start, end = frag
    step = (end - start) // parts
    assert step * parts == end - start, (frag, parts)
    return [(start + i * step, start + (i + 1) * step) for i in range(parts)]


def channel_fragments(frags: Sequence[tuple[int, int]], channels: int) -> list[list[tuple[int, int]]]:
    """Per channel, every member's share of its fragment: channel ``c`` gets the ``c``-th of ``channels`` cuts.

    Parameters
    ----------
    frags : sequence of (int, int)
        One fragment per ring member.
    channels : int
        Rings sharing the data.

    Returns
    -------
    list of lists of (int, int)

    Examples
    --------
    >>> channel_fragments([(0, 2), (2, 4)], 2)
    [[(0, 1), (2, 3)], [(1, 2), (3, 4)]]
    """
    cut = [split(f, channels) for f in frags]
    return [[c[ch] for c in cut] for ch in range(channels)]


def merge_steps(*phases: Sequence[Sequence[Transfer]]) -> list[tuple[Transfer, ...]]:
    """Run phases side by side: step ``s`` of the result holds step ``s`` of every phase.

    Parameters
    ----------
    *phases : sequences of steps
        Each a list of steps (lists of transfers).

    Returns
    -------
    list of tuples of Transfer

    Examples
    --------
    >>> a, b, c = (Transfer("h0", "h1"), Transfer("h1", "h0"), Transfer("h2", "h0"))
    >>> [len(s) for s in merge_steps([[a], [b]], [[c]])]
    [2, 1]
    """
    return [tuple(t for step in group if step for t in step) for group in zip_longest(*phases)]


def ring_reduce_scatter(members: Sequence[str], contributes: Callable[[int], Iterable[int]],
                        frags: Sequence[tuple[int, int]], base, inst: int, *, forward: bool = True
                        ) -> list[list[Transfer]]:
    """A ring reduce-scatter over ``members``: member ``k`` ends with the group's reduction on ``frags[k]``.

    Parameters
    ----------
    members : sequence of str
        Hosts in ring order, ``n >= 1`` (one member: no step).
    contributes : callable
        ``contributes(k)``: the operand positions member ``k`` brings (its
        own operand, or what it reduced in an earlier phase).
    frags : sequence of (int, int)
        Member ``k``'s result fragment.
    base : ReduceScatter or AllReduce
        Gives the operator.
    inst : int
        The instance.
    forward : bool
        Forwards ``k → k+1`` (else backwards ``k → k-1``).

    Returns
    -------
    list of lists of Transfer
        ``n - 1`` steps. Forwards, in step ``s`` member ``k`` sends member
        ``k+1`` the reduction over members ``k-s .. k`` on ``frags[k-s-1]``
        (indices mod ``n``): what it received in step ``s - 1`` combined
        with its own contribution; after the last step member ``k`` combines
        its own into what it received on ``frags[k]``.

    Examples
    --------
    >>> from collsched.collectives import ReduceScatter
    >>> c = ReduceScatter(participants=["a", "b", "c"], size=1)
    >>> steps = ring_reduce_scatter(["a", "b", "c"], lambda k: [k], [(0, 1), (1, 2), (2, 3)], c, 0)
    >>> [(t.src, t.dst, t.values[0], t.part) for t in steps[1]]
    [('a', 'b', Σ{0,2}@0, (1, 2)), ('b', 'c', Σ{0,1}@0, (2, 3)), ('c', 'a', Σ{1,2}@0, (0, 1))]
    """
    n = len(members)
    sign = 1 if forward else -1
    own = [value_over(base, inst, contributes(k)) for k in range(n)]
    carried = list(own)  # what member k sends in step s: members k-s .. k reduced
    steps = []
    for s in range(n - 1):
        if s:
            carried = [combine(*((carried[(k - 1) % n], own[k]) if forward else (own[k], carried[(k + 1) % n])))
                       for k in range(n)]
        steps.append([Transfer(members[k], members[(k + sign) % n], inst=inst, part=frags[(k - sign * (s + 1)) % n],
                               values=(carried[k],)) for k in range(n)])
    return steps


def ring_allgather(members: Sequence[str], values: Callable[[int], tuple], frags: Sequence, *, inst: int = 0,
                   forward: bool = True) -> list[list[Transfer]]:
    """A ring all-gather over ``members``: what member ``k`` holds (``values(k)`` on ``frags[k]``) reaches all.

    Parameters
    ----------
    members : sequence of str
        Hosts in ring order.
    values : callable
        ``values(k)``: the values member ``k`` contributes (a tuple).
    frags : sequence of (int, int) or None
        The part of them member ``k`` contributes (None: whole values).
    inst : int
        The instance of the transfers.
    forward : bool
        Forwards ``k → k+1`` (else backwards).

    Returns
    -------
    list of lists of Transfer
        ``n - 1`` steps; in step ``s`` member ``k`` passes on member
        ``k - s``'s contribution (its own first, then what it received).

    Examples
    --------
    >>> from collsched.schedules.values import block
    >>> [(t.src, t.dst, t.values) for t in ring_allgather(["a", "b", "c"], lambda k: (block(0, k, -1),), [None] * 3)[1]]
    [('a', 'b', (m[2→*]@0,)), ('b', 'c', (m[0→*]@0,)), ('c', 'a', (m[1→*]@0,))]
    """
    n = len(members)
    sign = 1 if forward else -1
    return [[Transfer(members[k], members[(k + sign) % n], inst=inst, part=frags[(k - sign * s) % n],
                      values=tuple(values((k - sign * s) % n))) for k in range(n)] for s in range(n - 1)]
