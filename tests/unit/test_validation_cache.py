"""A schema is compiled once per process and engine, however many validators are made (one per bundle read or
written), and the validators that share it still give their own verdicts."""

from support.records_factory import entry

from memdock.validation import PythonEngine, SchemaValidator


class CountingEngine(PythonEngine):
    def __init__(self) -> None:
        super().__init__()
        self.compiled: list[str] = []

    def compile(self, schema):
        self.compiled.append(schema.get("$id", "?"))
        return super().compile(schema)


def test_validators_on_one_engine_compile_each_schema_once():
    engine = CountingEngine()
    first, second = SchemaValidator(engine), SchemaValidator(engine)
    assert first.is_valid("entry", entry())
    assert not second.is_valid("entry", entry(event_time="9 May 2023"))
    assert second.issues("entry", entry(event_time="9 May 2023"))
    assert len(engine.compiled) == 1, engine.compiled
    SchemaValidator(engine, lenient=True).is_valid("entry", entry())  # another leniency, another engine: their own
    other = CountingEngine()
    SchemaValidator(other).is_valid("entry", entry())
    assert len(engine.compiled) == 2 and len(other.compiled) == 1
