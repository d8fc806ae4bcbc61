"""Two-level (intra-box, inter-box) all-gather, reduce-scatter and all-reduce, as on multi-GPU clusters.

The boxes are the platform's clusters (``platform.clusters``: the chassis
or nodes of :mod:`collsched.topologies`), restricted to the participants;
each holds ``L`` participants, listed in the participants' order (member
``l`` of box ``b``), and the ``B`` members ``l`` of all boxes form column
``l``. Every phase is a ring (:mod:`~collsched.algorithms.baselines.phases`)
with ``channels`` rings sharing its data:

* **all-reduce** (Horovod's hierarchical all-reduce; Jia et al. 2018):
  reduce-scatter inside every box (member ``l`` ends with the box's sum
  of the ``l``-th of ``L`` slices of the vector), then in every column a
  ring all-reduce of slice ``l`` across the boxes, then an all-gather of
  the slices inside every box; only ``1/L`` of the vector crosses between
  boxes per GPU, on ``L`` rings in parallel;
* **reduce-scatter**: inside every box a reduce-scatter that leaves member
  ``l`` with the box's sum of the blocks of column ``l`` (``B`` blocks, so
  ``B`` transfers per step), then in every column a ring reduce-scatter
  across the boxes of those blocks;
* **all-gather**: the reverse order — in every column a ring all-gather
  across the boxes (member ``l`` of every box ends with the ``B`` blocks of
  column ``l``), then inside every box a ring all-gather of those columns;
  each block crosses between boxes once per box.

A platform without clusters is one box (the ring inside it is the whole
algorithm). Boxes holding different numbers of participants raise: the
columns would not line up.

References
----------
A. Sergeev, M. Del Balso, "Horovod: fast and easy distributed deep learning in
TensorFlow", arXiv:1802.05799, 2018 (``HOROVOD_HIERARCHICAL_ALLREDUCE``: NCCL
reduce-scatter in the node, MPI all-reduce across nodes, NCCL all-gather in the node).
X. Jia et al., "Highly scalable deep learning training system with mixed-precision:
training ImageNet in four minutes", arXiv:1807.11205, 2018 (hierarchical all-reduce).

Examples
--------
>>> import collsched as cs
>>> g = cs.topologies.dgx2(2)
>>> c = cs.AllReduce(participants=g.hosts, size=32e6)
>>> s = hierarchical(g, c)
>>> len(s), s.denominator
(32, 32)
"""

from __future__ import annotations

from ...errors import ScheduleError
from ...schedules import StepSchedule
from .phases import channel_fragments, merge_steps, positive_int, reduction_of, ring_allgather, \
    ring_reduce_scatter, value_over

__all__ = ["boxes", "hierarchical"]


def boxes(platform, participants) -> list[list[int]]:
    """The participants' positions per box (the platform's clusters), boxes and members in participants' order.

    Parameters
    ----------
    platform : Platform
        Its ``clusters`` are the boxes; none: one box.
    participants : sequence of str
        The collective's participants.

    Returns
    -------
    list of lists of int
        ``B`` boxes of ``L`` positions each.

    Raises
    ------
    ScheduleError
        If the boxes hold different numbers of participants.

    Examples
    --------
    >>> import collsched as cs
    >>> boxes(cs.topologies.dgx_a100(2), ["h9", "h0", "h8", "h1"])
    [[0, 2], [1, 3]]
    >>> boxes(cs.topologies.star(3), ["h2", "h0"])
    [[0, 1]]
    >>> boxes(cs.topologies.dgx_a100(2), ["h9", "h0", "h1"])
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: hierarchical needs as many participants in every box, not 1 and 2 (platform 'dgx-a100-2' clusters) (choose the same number of GPUs in each box)
    """
    if platform.clusters is None:
        return [list(range(len(participants)))]
    box_of = {h: i for i, cluster in enumerate(platform.clusters) for h in cluster}
    groups: dict[int, list[int]] = {}
    for pos, h in enumerate(participants):
        groups.setdefault(box_of[h], []).append(pos)
    out = list(groups.values())
    sizes = sorted({len(b) for b in out})
    if len(sizes) > 1:
        raise ScheduleError(f"hierarchical needs as many participants in every box, not "
                            f"{' and '.join(map(str, sizes))} (platform {platform.name!r} clusters)",
                            fix="choose the same number of GPUs in each box")
    return out


def hierarchical(platform, collective, *, seed: int = 0, channels: int = 1) -> StepSchedule:
    """Intra-box then inter-box rings (all-gather: inter then intra), ``channels`` rings per phase.

    Parameters
    ----------
    platform : Platform
        Its clusters are the boxes (see :func:`boxes`).
    collective : AllGather, ReduceScatter or AllReduce
        Or a :class:`~collsched.collectives.Series` of one; a reduction must be commutative.
    seed : int
        Unused (the algorithm is deterministic).
    channels : int
        Rings per group ``k >= 1`` (even forwards, odd backwards), each
        carrying ``1/k`` of every fragment.

    Returns
    -------
    StepSchedule
        Per instance, with ``B`` boxes of ``L`` participants: ``(B - 1) +
        (L - 1)`` steps for an all-gather or a reduce-scatter, ``2(L - 1) +
        2(B - 1)`` for an all-reduce. Denominator ``k`` (all-gather), ``N k``
        (reduce-scatter) or ``L B k`` (all-reduce).

    Raises
    ------
    ValueError
        If ``channels`` is not an integer >= 1.
    ScheduleError
        Boxes of different sizes, or a non-commutative reduction (the rings
        cannot keep operand order).

    Notes
    -----
    Per GPU, an all-reduce sends ``2(L-1)/L`` of the vector inside its box
    and ``2(B-1)/(B L)`` of it to other boxes, against ``2(N-1)/N`` for the
    flat ring, all of whose ``N`` steps are as slow as the slowest link.

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.dgx_a100(2)
    >>> c = cs.AllGather(participants=g.hosts, size=1e6)
    >>> s = hierarchical(g, c)
    >>> [(t.src, t.dst, t.values) for t in s.steps[0]][:2]
    [('h0', 'h8', (m[0→*]@0,)), ('h8', 'h0', (m[8→*]@0,))]
    >>> [(t.src, t.dst, len(t.values)) for t in s.steps[1]][:2]
    [('h0', 'h1', 2), ('h1', 'h2', 2)]
    """
    channels = positive_int("hierarchical", "channels", channels)
    kind = collective.base.kind
    if kind == "allgather":
        return _allgather(platform, collective, channels)
    base, order, count = reduction_of(collective, "hierarchical", ordered=False)
    box = boxes(platform, order)
    n_boxes, per_box = len(box), len(box[0])
    hosts = [[order[p] for p in b] for b in box]
    columns = [[order[box[b][l]] for b in range(n_boxes)] for l in range(per_box)]
    fwd = [c % 2 == 0 for c in range(channels)]
    steps = []
    if kind == "reducescatter":
        block = lambda p: (p * channels, (p + 1) * channels)  # noqa: E731 - position p's result block
        for inst in range(count):
            # phase 1: in every box, member l gathers the box's sum of the blocks of column l (a ring per block)
            steps += merge_steps(*(ring_reduce_scatter(hosts[b], lambda k, b=b: [box[b][k]], frags[c], base, inst,
                                                       forward=fwd[c])
                                   for b in range(n_boxes) for other in range(n_boxes)
                                   for frags in [channel_fragments([block(box[other][k]) for k in range(per_box)],
                                                                   channels)]
                                   for c in range(channels)))
            # phase 2: in every column, a ring reduce-scatter of those blocks across the boxes
            steps += merge_steps(*(ring_reduce_scatter(columns[l], lambda k: box[k], frags[c], base, inst,
                                                       forward=fwd[c])
                                   for l in range(per_box)
                                   for frags in [channel_fragments([block(box[b][l]) for b in range(n_boxes)],
                                                                   channels)]
                                   for c in range(channels)))
        return StepSchedule(steps=tuple(steps), denominator=len(order) * channels, algorithm="hierarchical",
                            params={"channels": channels})
    unit = n_boxes * channels  # slice l of the vector is [l·unit, (l+1)·unit); its share of box b: channels units
    slices = channel_fragments([(l * unit, (l + 1) * unit) for l in range(per_box)], channels)
    shares = [channel_fragments([(l * unit + b * channels, l * unit + (b + 1) * channels) for b in range(n_boxes)],
                                channels) for l in range(per_box)]
    for inst in range(count):
        full = (value_over(base, inst, range(len(order))),)
        # phase 1: reduce-scatter inside every box; member l ends with the box's sum of slice l
        steps += merge_steps(*(ring_reduce_scatter(hosts[b], lambda k, b=b: [box[b][k]], slices[c], base, inst,
                                                   forward=fwd[c]) for b in range(n_boxes) for c in range(channels)))
        # phase 2: in every column l, a ring all-reduce of slice l across the boxes
        steps += merge_steps(*(ring_reduce_scatter(columns[l], lambda k: box[k], shares[l][c], base, inst,
                                                   forward=fwd[c]) for l in range(per_box) for c in range(channels)))
        steps += merge_steps(*(ring_allgather(columns[l], lambda k: full, shares[l][c], inst=inst, forward=fwd[c])
                               for l in range(per_box) for c in range(channels)))
        # phase 3: all-gather of the slices inside every box
        steps += merge_steps(*(ring_allgather(hosts[b], lambda k: full, slices[c], inst=inst, forward=fwd[c])
                               for b in range(n_boxes) for c in range(channels)))
    return StepSchedule(steps=tuple(steps), denominator=per_box * unit, algorithm="hierarchical",
                        params={"channels": channels})


def _allgather(platform, collective, channels: int) -> StepSchedule:
    """The all-gather: a ring across the boxes in every column, then a ring inside every box."""
    base, count = collective.base, collective.count
    order = list(base.participants)
    box = boxes(platform, order)
    n_boxes, per_box = len(box), len(box[0])
    parts = [None] if channels == 1 else [(c, c + 1) for c in range(channels)]
    steps = []
    for inst in range(count):
        blocks = [base.block_of(platform, inst, h) for h in order]
        # phase 1: in every column l, member l of each box gathers the blocks of column l
        steps += merge_steps(*(ring_allgather([order[box[b][l]] for b in range(n_boxes)],
                                              lambda k, l=l: (blocks[box[k][l]],), [parts[c]] * n_boxes, inst=inst,
                                              forward=c % 2 == 0)
                               for l in range(per_box) for c in range(len(parts))))
        # phase 2: inside every box, a ring all-gather of the columns
        steps += merge_steps(*(ring_allgather([order[p] for p in box[b]],
                                              lambda k: tuple(blocks[box[o][k]] for o in range(n_boxes)),
                                              [parts[c]] * per_box, inst=inst, forward=c % 2 == 0)
                               for b in range(n_boxes) for c in range(len(parts))))
    return StepSchedule(steps=tuple(steps), denominator=channels, algorithm="hierarchical",
                        params={"channels": channels})
