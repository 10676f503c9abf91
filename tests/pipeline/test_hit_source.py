"""A hit names the file its entry came from (provenance.source, carried from the importer's entry through the
chunk): in `memdock recall`'s cards, under --json, on the Python Hit, and for a note remembered, the tool."""

import json

from test_cli_messages import memdock
from test_notes_folder import notes

from memdock import Memory


def test_a_hit_names_the_file_its_note_came_from(tmp_path):
    store = ["--data-dir", str(tmp_path / "store")]
    added = memdock("add", str(notes(tmp_path / "notes")), *store, home=tmp_path)
    assert added.returncode == 0, added.stderr
    card = memdock("recall", "coffee", "-n", "1", *store, home=tmp_path).stdout
    assert "from coffee.md" in card.splitlines()[0], card
    hit = json.loads(memdock("recall", "monday", "--json", *store, home=tmp_path).stdout)["hits"][0]
    assert hit["provenance"]["source"] == "standup.md"
    with Memory(data_dir=tmp_path / "store") as memory:
        assert [h.source for h in memory.recall("quieter keyboard", limit=1).hits] == ["ideas.txt"]
        memory.remember("the kettle is in the attic")
        assert memory.recall("kettle", limit=1).hits[0].source == "memdock remember"
