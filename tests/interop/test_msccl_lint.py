"""What the runtime silently ignores or hangs on, and what the symbolic run rejects: one line each, with the line."""

from __future__ import annotations

import pytest

from collsched.errors import FormatError, ValidationError
from collsched.interop import msccl
from collsched.interop.msccl.lint import MAX_COUNT, MAX_STEPS, MAX_TBS, MAX_TBS_PER_CHANNEL
from collsched.interop.msccl.xml_read import EXAMPLE

STEP = '<step s="{s}" type="{t}" srcbuf="o" srcoff="{o}" dstbuf="o" dstoff="{o}" cnt="{c}" depid="-1" deps="-1" hasdep="0"/>'


def _algo(gpu0_tbs: str, gpu1_tbs: str, **attrs) -> str:
    head = dict(name="t", proto="Simple", nchannels="1", nchunksperloop="2", ngpus="2", coll="allgather",
                inplace="1", outofplace="0", minBytes="2", maxBytes="1024")
    head.update(attrs)
    a = " ".join(f'{k}="{v}"' for k, v in head.items())
    return (f"<algo {a}>\n<gpu id=\"0\" i_chunks=\"0\" o_chunks=\"2\" s_chunks=\"0\">\n{gpu0_tbs}</gpu>\n"
            f"<gpu id=\"1\" i_chunks=\"0\" o_chunks=\"2\" s_chunks=\"0\">\n{gpu1_tbs}</gpu>\n</algo>\n")


def _messages(text):
    return [str(f) for f in msccl.lint(msccl.parse_text(text, source="t.xml"))]


def test_chunks_not_whole_at_min_bytes():
    """The runtime cuts a call into nchunksperloop chunks of whole elements, rounding down: a minBytes that is not a
    multiple of nchunksperloop leaves elements unmoved at that size, whatever the type (one line, the window and the
    chunk count). A window starting at 0 is not checked."""
    head = 't.xml:1: error: at minBytes {lo}, 2 chunks per loop are chunks of {b} bytes, not a whole number of ' \
           'elements of any type: the runtime rounds a chunk down to whole elements and never moves the rest (use a ' \
           'chunk count that divides minBytes, or a minBytes that is a multiple of 2)'
    assert _messages(EXAMPLE.replace('minBytes="1024"', 'minBytes="1"')) == [head.format(lo=1, b=0.5)]
    assert _messages(EXAMPLE.replace('minBytes="1024"', 'minBytes="1025"')) == [head.format(lo=1025, b=512.5)]
    assert _messages(EXAMPLE.replace('minBytes="1024"', 'minBytes="0"')) == []
    with pytest.raises(ValidationError) as err:
        msccl.check_text(EXAMPLE.replace('minBytes="1024"', 'minBytes="1"'), source="t.xml")
    assert str(err.value) == head.format(lo=1, b=0.5).replace("error: ", "")


def test_size_window_warnings():
    """The two runtimes read the window differently (see lint's docstring): each finding says which one falls back."""
    assert _messages(EXAMPLE.replace('minBytes="1024"', 'minBytes="4096"').replace('maxBytes="1073741824"', 'maxBytes="2048"')) \
        == ['t.xml:1: error: minBytes 4096 > maxBytes 2048: microsoft/msccl refuses the file and the executor uses it '
            'for no size (swap them)']
    assert _messages(EXAMPLE.replace(' maxBytes="1073741824"', '').replace(' outofplace="0"', '')) == [
        "t.xml:1: warning: maxBytes and outofplace missing: the MSCCL executor and RCCL refuse the file (write all "
        "three)"]
    assert _messages(EXAMPLE.replace('minBytes="1024"', 'minBytes="1073741824"')) == [
        't.xml:1: warning: minBytes = maxBytes = 1073741824: microsoft/msccl uses the algorithm for no size (it needs '
        'nBytes < maxBytes; write maxBytes="1073741825")']
    assert _messages(EXAMPLE.replace('coll="allgather"', 'coll="reduce_scatter"')) == [
        "t.xml:1: warning: coll is reduce_scatter: the MSCCL executor and RCCL know it as reducescatter (only "
        "microsoft/msccl reads reduce_scatter)"]


def test_nop_rules_of_the_runtime():
    """A nop is folded into the next step's dependencies: the three ways that goes wrong."""
    cpy = STEP.format(s=1, t="cpy", o=0, c=1)
    bare = STEP.format(s=0, t="nop", o=-1, c=0)
    assert _messages(_algo(f'<tb id="0" send="-1" recv="-1" chan="0">\n{bare}\n{cpy}\n</tb>\n', "")) == [
        "t.xml:4: error: gpu 0 tb 0 step 0: a nop without depid: the runtime drops it and numbers the later steps of "
        "the block one lower, so a block waiting for them waits for the wrong step (remove it)"]
    nop = bare.replace('depid="-1" deps="-1"', 'depid="1" deps="0"')
    waited = STEP.format(s=0, t="cpy", o=1, c=1).replace('hasdep="0"', 'hasdep="1"')
    blocks = (f'<tb id="0" send="-1" recv="-1" chan="0">\n{nop}\n{cpy}\n</tb>\n'
              f'<tb id="1" send="-1" recv="-1" chan="0">\n{waited}\n</tb>\n')
    assert _messages(_algo(blocks, "")) == [
        "t.xml:5: error: gpu 0 tb 0 step 1: follows nop steps with dependencies but has no depid: the runtime refuses "
        "the file (give it the last dependency, as msccl-tools does)"]
    first, last = cpy.replace(' s="1"', ' s="0"'), nop.replace(' s="0"', ' s="1"')
    trailing = blocks.replace(f"{nop}\n{cpy}", f"{first}\n{last}")
    assert _messages(_algo(trailing, "")) == [
        "t.xml:5: error: gpu 0 tb 0 step 1: nop steps with dependencies end the block: the runtime drops them and "
        "their waits (remove them or put a step after them)"]


def test_empty_send_is_no_barrier():
    text = EXAMPLE.replace('type="s" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1"',
                           'type="s" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="0"')
    assert _messages(text) == ["t.xml:5: warning: gpu 0 tb 0 step 0: a 's' step with cnt 0 moves nothing and does not "
                               "wait for gpu 1: the runtime skips it (it is no barrier)"]
    # and the symbolic run agrees: nothing reaches gpu 1's receive, which then pairs with no send
    with pytest.raises(ValidationError, match=r"^t\.xml:12: gpu 1 tb 0 step 1: receives from gpu 0 on channel 0, but "
                                              r"gpu 0 sends only 0 times to gpu 1 there"):
        msccl.check_text(text, source="t.xml")


def test_mode_and_channel_errors():
    assert _messages(EXAMPLE.replace('inplace="1"', 'inplace="0"'))[0] == (
        't.xml:1: error: inplace and outofplace are both 0: the runtime uses the algorithm for no call (set '
        'inplace="1" or outofplace="1")')
    text = EXAMPLE.replace('<tb id="0" send="1" recv="1" chan="0">', '<tb id="0" send="1" recv="1" chan="1">', 1)
    assert _messages(text) == ['t.xml:4: error: gpu 0 tb 0: channel 1, but nchannels is 1 (set nchannels="2" or '
                               'use a lower channel)']


def test_runtime_limits():
    many = "".join(STEP.format(s=k, t="cpy", o=0, c=1) + "\n" for k in range(MAX_STEPS + 1))
    text = _algo(f'<tb id="0" send="-1" recv="-1" chan="0">\n{many}</tb>\n', "")
    assert _messages(text) == [f"t.xml:3: error: gpu 0 tb 0: {MAX_STEPS + 1} steps, the runtime accepts {MAX_STEPS} "
                               "(split it over more thread blocks or channels)"]
    tbs = "".join(f'<tb id="{k}" send="1" recv="-1" chan="0">\n</tb>\n' for k in range(MAX_TBS_PER_CHANNEL + 1))
    assert _messages(_algo(tbs, "")) == [f"t.xml:2: error: gpu 0: {MAX_TBS_PER_CHANNEL + 1} thread blocks with a send "
                                          f"peer on channel 0, the runtime accepts {MAX_TBS_PER_CHANNEL} (spread them over "
                                          "more channels)"]
    tbs = "".join(f'<tb id="{k}" send="-1" recv="-1" chan="0">\n</tb>\n' for k in range(MAX_TBS + 1))
    assert _messages(_algo(tbs, "")) == [f"t.xml:2: error: gpu 0: {MAX_TBS + 1} thread blocks, microsoft/msccl runs at "
                                          f"most {MAX_TBS} per GPU (pack operations with the same peers into fewer blocks)"]
    gap = '<tb id="0" send="-1" recv="-1" chan="0">\n</tb>\n<tb id="2" send="-1" recv="-1" chan="0">\n</tb>\n'
    assert _messages(_algo(gap, "")) == ["t.xml:2: error: gpu 0: thread block ids skip 1: the runtime refuses the file "
                                         "(number them 0, 1, 2, ...)"]
    far = _algo('<tb id="0" send="-1" recv="-1" chan="32">\n</tb>\n', "", nchannels="33")
    assert _messages(far) == ["t.xml:3: error: gpu 0 tb 0: channel 32, the runtime has channels 0..31 (use a lower "
                              "channel)"]
    big = _algo(f'<tb id="0" send="-1" recv="-1" chan="0">\n{STEP.format(s=0, t="cpy", o=0, c=MAX_COUNT + 1)}\n</tb>\n',
                "", nchunksperloop="200", ngpus="2", minBytes="200")
    big = big.replace('o_chunks="2"', 'o_chunks="200"')
    assert MAX_COUNT == 71   # the parsers refuse count >= MSCCL_MAX_COUNT = 72
    assert _messages(big) == [f"t.xml:4: error: gpu 0 tb 0 step 0: cnt {MAX_COUNT + 1} > {MAX_COUNT}, the most a "
                              "step may move (split the step)"]


def test_buffer_sizes_inconsistent_with_the_collective():
    text = EXAMPLE.replace('<gpu id="1" i_chunks="0" o_chunks="2"', '<gpu id="1" i_chunks="0" o_chunks="4"')
    with pytest.raises(FormatError) as err:
        msccl.check_text(text, source="t.xml")
    assert str(err.value) == ('t.xml:9: gpu 1: o_chunks is 4, but allgather over 2 gpus with nchunksperloop 2 needs 2 '
                              '(set o_chunks="2")')


def test_two_blocks_on_one_peer_and_channel():
    s0 = STEP.format(s=0, t="s", o=0, c=1)
    r1 = STEP.format(s=0, t="r", o=1, c=1)
    text = _algo(f'<tb id="0" send="1" recv="1" chan="0">\n{s0}\n</tb>\n<tb id="1" send="1" recv="-1" chan="0">\n{s0}\n</tb>\n',
                 f'<tb id="0" send="0" recv="0" chan="0">\n{r1}\n</tb>\n')
    with pytest.raises(FormatError) as err:
        msccl.check_text(text, source="t.xml")
    assert str(err.value) == ("t.xml:6: gpu 0: tb 0 and tb 1 both send to gpu 1 on channel 0 (give each peer one "
                              "thread block per direction and channel)")


def test_unpaired_and_mismatched_steps():
    text = EXAMPLE.replace('<step s="1" type="r" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>', '')
    with pytest.raises(ValidationError) as err:
        msccl.check_text(text, source="t.xml")
    assert str(err.value) == ("t.xml:5: gpu 0 tb 0 step 0: sends to gpu 1 on channel 0, but no receive of gpu 1 pairs "
                              "with it (add the receiving step, or remove the send)")
    text = EXAMPLE.replace('type="s" srcbuf="o" srcoff="1" dstbuf="o" dstoff="1" cnt="1"',
                           'type="s" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="2"')
    with pytest.raises(ValidationError) as err:
        msccl.check_text(text, source="t.xml")
    assert str(err.value) == ("t.xml:6: gpu 0 tb 0 step 1: receives 1 chunks but its send (gpu 1 tb 0 step 0 "
                              "(line 11)) sends 2 (give paired steps the same cnt)")


def test_read_before_written():
    text = EXAMPLE.replace('type="s" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0"', 'type="s" srcbuf="o" srcoff="1" dstbuf="o" dstoff="1"')
    with pytest.raises(ValidationError) as err:
        msccl.check_text(text, source="t.xml")
    assert str(err.value) == ("t.xml:5: gpu 0 tb 0 step 0: reads o[1], which holds nothing yet (no step before it "
                              "writes there) (make the step depend on the step that brings the chunk)")


def test_reduction_counting_an_operand_twice(tmp_path):
    from pathlib import Path

    text = (Path(__file__).parent / "data" / "reducescatter_allpairs.xml").read_text()
    # gpu 0 reduces scratch chunk 0 into i[0] twice
    bad = text.replace('<step s="7" type="re" srcbuf="s" srcoff="8" dstbuf="i" dstoff="0"',
                       '<step s="7" type="re" srcbuf="s" srcoff="0" dstbuf="i" dstoff="0"', 1)
    assert bad != text
    line = next(k for k, l in enumerate(bad.splitlines(), 1) if '<step s="7" type="re" srcbuf="s" srcoff="0"' in l)
    with pytest.raises(ValidationError) as err:
        msccl.check_text(bad, source="rs.xml")
    assert str(err.value).startswith(f"rs.xml:{line}: gpu 0 tb 0 step 7: reduces Σ{{0,1}}@0 fragment 0 with Σ{{1}}@0 "
                                     "fragment 0: an operand would be counted twice")
