"""A streamed run's checkpointed ids wait for the segment's seal in memory up to a bound, the rest in a spool
file (`engine/held.py`): the ledger gets every id, in the order the adapter sent them."""

from memdock.engine.stream import InputStream, drain


def test_checkpoints_past_the_bound_wait_in_a_file_and_come_back_in_order(tmp_path):
    stream = InputStream(spill_dir=tmp_path)
    stream.held.limit = 1000
    sent = [[f"r{i}-{j}" for j in range(300)] for i in range(20)] + [["x" * 3_000_000]]
    for ids in sent:
        stream.on_checkpoint(ids)
        assert stream.held.in_memory <= 1000
    stream.finished()
    got: list[list[str]] = []
    drain(stream, got.append, None)
    stream.held.close()
    assert got == sent


def test_ids_taken_while_more_come_are_each_given_once(tmp_path):
    stream = InputStream(spill_dir=tmp_path)
    stream.held.limit = 10
    got: list[str] = []
    for i in range(30):
        stream.on_checkpoint([f"a{i}", f"b{i}"])
        if i % 7 == 0:
            got += [x for ids in stream.held.take() for x in ids]
    got += [x for ids in stream.held.take() for x in ids]
    assert got == [f"{k}{i}" for i in range(30) for k in "ab"]
