"""The baselines' simulated times on one DGX-2 chassis equal the textbook α-β formulas.

``topologies.dgx2(1)``: 16 GPUs on one switch, every link 125 GB/s and 0.35 µs, so every route has
``α = 0.7 µs`` (two links) and ``β = 125 GB/s``. Under ``Fluid`` with ``sync="post_all"`` (every receive
posted at once; a rank's sends one after the other, each after the data it forwards), a step in which
every GPU sends ``b`` bytes to a distinct GPU lasts exactly ``α + b/β``, so the formulas hold to float
precision where every step is such a permutation.
"""

import pytest

import collsched as cs

G = cs.topologies.dgx2(1)
ALPHA = sum(G.links[l].latency for l in G.route("h0", "h1"))
BETA = min(G.links[l].bandwidth for l in G.route("h0", "h1"))
M = 2**24  # bytes of an all-reduce vector
REL = 1e-12


def simulated(c, algorithm, **options):
    s = cs.plan(G, c, algorithm=algorithm, **options)
    prog = s.lower(G, c, sync="post_all") if hasattr(s, "steps") else s.lower(G, c)
    cs.validate(G, c, prog)
    return cs.simulate(G, prog, c, model=cs.models.Fluid()).makespan


def test_the_platform():
    assert (ALPHA, BETA) == (pytest.approx(0.7e-6, rel=REL), 125e9)


@pytest.mark.parametrize("channels", [1, 2, 4])
@pytest.mark.parametrize("n", [2, 5, 8, 16])
def test_ring(n, channels):
    """All-reduce 2(N-1)(kα + M/(Nβ)); reduce-scatter and all-gather (N-1)(kα + size/β): k channels' sends queue."""
    hosts = G.hosts[:n]
    ar = simulated(cs.AllReduce(participants=hosts, size=M), "ring", channels=channels)
    assert ar == pytest.approx(2 * (n - 1) * (channels * ALPHA + M / n / BETA), rel=REL)
    size = M / n
    rs = simulated(cs.ReduceScatter(participants=hosts, size=size), "ring", channels=channels)
    ag = simulated(cs.AllGather(participants=hosts, size=size), "ring", channels=channels)
    assert rs == pytest.approx((n - 1) * (channels * ALPHA + size / BETA), rel=REL)
    assert ag == pytest.approx((n - 1) * (channels * ALPHA + size / BETA), rel=REL)


@pytest.mark.parametrize("n", [2, 4, 8, 16])
def test_halving_doubling_and_recursive_doubling(n):
    """N = 2^q: all-reduce 2qα + 2(N-1)/N·M/β; reduce-scatter, recursive-doubling all-gather qα + (N-1)·size/β."""
    q = n.bit_length() - 1
    hosts = G.hosts[:n]
    ar = simulated(cs.AllReduce(participants=hosts, size=M), "halving_doubling")
    assert ar == pytest.approx(2 * q * ALPHA + 2 * (n - 1) / n * M / BETA, rel=REL)
    size = M / n
    rs = simulated(cs.ReduceScatter(participants=hosts, size=size), "halving_doubling")
    ag = simulated(cs.AllGather(participants=hosts, size=size), "recursive_doubling")
    assert rs == pytest.approx(q * ALPHA + (n - 1) * size / BETA, rel=REL)
    assert ag == pytest.approx(q * ALPHA + (n - 1) * size / BETA, rel=REL)


def test_halving_doubling_fold_on_six():
    """N = 6 (m = 4): the fold and unfold add 2(α + M/β) to the formula for m, and the new ranks that did not
    fold start halving while the fold still arrives: their first message shares the folding receiver's link,
    M/(4β) more (measured; post_all posts every receive at once)."""
    ar = simulated(cs.AllReduce(participants=G.hosts[:6], size=M), "halving_doubling")
    assert ar == pytest.approx(2 * (ALPHA + M / BETA) + 2 * 2 * ALPHA + 2 * 3 / 4 * M / BETA + M / 4 / BETA, rel=REL)


def test_hierarchical_in_one_box_is_the_ring():
    c = cs.AllReduce(participants=G.hosts, size=M)
    assert len(G.clusters) == 1
    assert simulated(c, "hierarchical") == simulated(c, "ring")


def test_hierarchical_on_two_dgx_a100_boxes():
    """2 boxes of L = 8 GPUs: NVSwitch routes (α_in, β_in = 300 GB/s) inside, one 25 GB/s NIC per GPU between
    (α_out, β_out), every column on its own NICs. All-reduce: 2(L-1) steps inside of M/L, 2 across of M/(2L);
    reduce-scatter: L-1 steps inside of 2 messages (the column's 2 blocks), 1 across; all-gather: 1 across, L-1
    inside."""
    g = cs.topologies.dgx_a100(2)

    def route(a, b):
        links = [g.links[l] for l in g.route(a, b)]
        return sum(x.latency for x in links), min(x.bandwidth for x in links)

    (a_in, b_in), (a_out, b_out) = route("h0", "h1"), route("h0", "h8")
    assert (b_in, b_out) == (300e9, 25e9)
    m = 1e9

    def time(c):
        s = cs.plan(g, c, algorithm="hierarchical")
        prog = s.lower(g, c, sync="post_all")
        cs.validate(g, c, prog)
        return cs.simulate(g, prog, c, model=cs.models.Fluid()).makespan

    assert time(cs.AllReduce(participants=g.hosts, size=m)) == \
        pytest.approx(14 * (a_in + m / 8 / b_in) + 2 * (a_out + m / 16 / b_out), rel=REL)
    assert time(cs.ReduceScatter(participants=g.hosts, size=m / 16)) == \
        pytest.approx(7 * (2 * a_in + m / 8 / b_in) + (a_out + m / 16 / b_out), rel=REL)
    assert time(cs.AllGather(participants=g.hosts, size=m / 16)) == \
        pytest.approx((a_out + m / 16 / b_out) + 7 * (a_in + m / 8 / b_in), rel=REL)
