"""The Swiss-T1 wiring search (seed 001, section 5 and Annex B) and the search-space measure of Fig. 4."""

from collsched import AllToAll
from collsched.algorithms.liquid.teams import search_space
from collsched.algorithms.liquid.traffic import figure1_collective, figure1_platform, traffic_of
from collsched.studies.liquid import swiss_t1, switch_paths
from collsched.studies.liquid_wiring import conflict_edges, offset_routes, rotation_paths, wirings


def test_conflict_edges_by_hand_on_two_switches():
    # 2 switches of 2 nodes: 12 transfers; each node link direction is shared by 3 transfers (3 pairs each,
    # 8 directions: 24 pairs); the trunk 0>1 by the 4 transfers from switch 0 to 1 (6 pairs), 1>0 likewise,
    # minus the pairs already counted: two transfers 0>1 sharing a sender or a receiver (4 of the 6)
    paths = rotation_paths(2, (), {})
    assert conflict_edges(paths, 2, 2, self_transfers=False) == 24 + 2 * (6 - 4)


def test_conflict_edges_match_the_traffic_of_the_platform():
    p, cfg = swiss_t1()
    X = traffic_of(p, AllToAll(senders=p.hosts, size=1.0))
    edges = (sum(bin(c).count("1") for c in X.conflicts) - len(X)) // 2   # conflicts include the transfer itself
    own = next(paths for skips, label, paths in wirings(skip_sets=(tuple(cfg["chords"]),))
               if label == "collsched ties")
    assert edges == conflict_edges(own, 8, 4, self_transfers=False) == 37376
    assert len(switch_paths(p, 8, 4)) == 56


def test_the_family_holds_every_shortest_route():
    assert [len(v) for v in offset_routes((2,)).values()] == [1, 1, 2, 2, 2, 1, 1]
    assert sum(1 for _ in wirings(skip_sets=((2,),))) == 2 * 2 * 2 + 1


def test_every_reduction_finds_the_same_teams_in_a_smaller_tree():
    X = traffic_of(figure1_platform(), figure1_collective())
    need = sum(1 << b for b in X.bottlenecks)
    sizes = search_space((1 << len(X)) - 1, X.conflicts, X.link_masks, need)   # asserts the same teams
    assert sizes == {"plain": 2419, "blank": 1469, "blank+idle": 589, "skeleton": 625}

