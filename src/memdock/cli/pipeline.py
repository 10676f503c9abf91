"""The batch pipeline: `memdock import`, `memdock chunk`, `memdock index`, and `memdock add` (all three)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..bundle import MANIFEST_NAME, BundleReader, BundleWriter, OutputNotEmptyError, source
from ..chunking import ChunkOptions, chunk_bundle
from ..chunking.chunker import MAX_WINDOW_TOKENS
from ..chunking.feed import CorpusFeed
from ..contract import IndexResult
from ..engine.sources import Plan, bundle_plan, plan, settle
from ..errors import InvalidInputError
from ..importers import IMPORTERS, get_importer
from ..importers.base import MAX_ENTRY_BYTES
from ..importers.detect import ALIASES, canonical, detect
from ..importers.onepass import ImportFeed
from ..importers.pipeline import ImportSummary, import_corpus
from ..jsonl import DEFAULT_MAX_LINE_BYTES
from ..runner.backend import SubprocessBackend
from ..tempdirs import private_dir
from . import output
from .common import add_backend_options, bounded_int, command, names_force, open_from_args

PARTIAL_EXIT = 10
FORMAT_CHOICES = sorted([*IMPORTERS, *ALIASES])


def register(sub: argparse._SubParsersAction) -> None:
    _add_parser(sub)
    _shard_parser(sub)
    _import_parser(sub)
    _chunk_parser(sub)
    _index_parser(sub)


def _add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "add",
        help="import, chunk and index sources into a backend in one step",
        epilog=ADD_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("sources", nargs="+", help="files or folders")
    p.add_argument(
        "--format",
        "-f",
        choices=FORMAT_CHOICES,
        help="the sources' format (markdown = text; default: read from the files, and said)",
    )
    p.add_argument("--no-prune", action="store_true", help="do not delete records that vanished from re-added threads")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    _chunk_options(p)
    _parallel_options(p)
    add_backend_options(p)
    p.set_defaults(func=run_add)


def _shard_parser(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "shard",
        "split a corpus or chunks bundle by thread into N balanced bundles (to index in parallel)",
        "memdock shard chunks -n 8 -o shards",
        "memdock shard corpus -n 4 -o shards --force --json",
    )
    p.add_argument("bundle", help="a corpus or chunks bundle")
    p.add_argument(
        "-n", "--shards", type=bounded_int("-n/--shards", 1, 4096), required=True, help="how many shards (1-4096)"
    )
    p.add_argument("--output", "-o", required=True, help="folder for the shards (shard-0000, shard-0001, ...)")
    p.add_argument("--force", action="store_true", help="replace the shards already there")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run_shard)


def _import_parser(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "import",
        "read sources into a corpus bundle (threads, entries, edges, entities)",
        "memdock import fixtures/threads -f watercooler -o corpus",
        "memdock import chat.jsonl -f jsonl --map message=text -o corpus",
    )
    p.add_argument("sources", nargs="+", help="files or folders")
    p.add_argument(
        "--format", "-f", required=True, choices=FORMAT_CHOICES, help="the sources' format (markdown = text)"
    )
    p.add_argument("--output", "-o", required=True, help="corpus bundle directory to write")
    p.add_argument("--map", action="append", default=[], metavar="OLD=NEW", help="jsonl: rename a field before mapping")
    p.add_argument(
        "--max-entry-bytes",
        type=bounded_int("--max-entry-bytes", 1, DEFAULT_MAX_LINE_BYTES),
        default=MAX_ENTRY_BYTES,
        metavar="N",
        help="skip, with a warning naming file and line, any entry over N bytes of UTF-8 (default "
        f"{MAX_ENTRY_BYTES:,})",
    )
    _common(p)
    p.set_defaults(func=run_import)


def _chunk_parser(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "chunk",
        "cut a corpus bundle's entries into token windows (a chunks bundle)",
        "memdock chunk corpus -o chunks",
        "memdock chunk corpus -o chunks --max-tokens 400 --overlap 50 --header on",
    )
    p.add_argument("corpus", help="a corpus bundle (from memdock import)")
    p.add_argument("--output", "-o", required=True, help="chunks bundle directory to write")
    _chunk_options(p)
    _common(p)
    p.set_defaults(func=run_chunk)


def _index_parser(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "index",
        "index a chunks bundle (or a corpus bundle, chunked with defaults) into a backend",
        "memdock index chunks",
        "memdock index chunks -b tantivy --data-dir big-store",
        "memdock index chunks -b graphiti --parallel 8 --executor ray --address ray://head:10001",
    )
    p.add_argument("bundle", help="a chunks bundle, or a corpus bundle (chunked with the defaults)")
    p.add_argument(
        "--no-prune", action="store_true", help="do not delete records that vanished from re-imported threads"
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    _parallel_options(p)
    add_backend_options(p)
    p.set_defaults(func=run_index)


def _parallel_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--parallel",
        type=bounded_int("--parallel", 1, 256),
        default=1,
        metavar="N",
        help="send the new records as N shards (split by thread) at once, where the backend takes parallel "
        "writers (adapter.json parallel_writers: shared); others are indexed serially, saying why",
    )
    p.add_argument(
        "--executor",
        choices=["local", "ray"],
        default="local",
        help="where shard jobs run with --parallel: local threads (default) or Ray tasks (pip install ray)",
    )
    p.add_argument("--address", metavar="ADDR", help="the Ray cluster to join (default: start a local one)")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true", help="replace an existing bundle at the output")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


ADD_EXAMPLES = """examples:
  memdock add notes/                      (the format is read from the files, and said)
  memdock add fixtures/threads -f watercooler
  memdock add notes/*.txt -f text -b tantivy
  memdock add chat.json -f chat --header on --max-tokens 400

The same records as `memdock import` + `memdock chunk` + `memdock index`, in one pass with no bundle written
between (use those three in pipelines that keep the bundles). Adding the same sources again sends only what
changed.
"""


def _chunk_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-tokens",
        type=bounded_int("--max-tokens", 1, MAX_WINDOW_TOKENS),
        default=900,
        help="tokens per chunk at most (default 900)",
    )
    p.add_argument(
        "--overlap",
        type=bounded_int("--overlap", 0, MAX_WINDOW_TOKENS - 1),
        default=100,
        help="tokens each chunk repeats from the one before (default 100)",
    )
    p.add_argument("--tokenizer", default="approx", help="approx (stdlib, default) or tiktoken[:ENCODING]")
    p.add_argument(
        "--header",
        choices=["auto", "on", "off"],
        default="auto",
        help="prefix each chunk with a header line (auto: on for watercooler threads and chats; elsewhere the "
        "entry's title or the note's heading, so titles are found)",
    )


@contextmanager
def _progress(label: str, quiet: bool, unit: str = "") -> Iterator[output.Progress]:
    """A progress line that is cleared however the command ends; an output in the way names --force."""
    bar = output.Progress(label, quiet=quiet, unit=unit)
    try:
        yield bar
    except OutputNotEmptyError as exc:
        raise names_force(exc) from None
    finally:
        bar.done()


def run_import(args: argparse.Namespace) -> int:
    bad = next((m for m in args.map if "=" not in m or not m.split("=", 1)[0] or not m.split("=", 1)[1]), None)
    if bad is not None:
        raise InvalidInputError(f"--map {bad!r}: expected OLD=NEW, e.g. --map message=text")
    mapping = dict(m.split("=", 1) for m in args.map)
    with _progress("importing", args.quiet, unit="B") as bar:
        summary = import_corpus(
            args.sources,
            canonical(args.format),
            args.output,
            mapping=mapping or None,
            overwrite=args.force,
            on_bytes=bar.update,
            max_entry_bytes=args.max_entry_bytes,
        )
    if args.json:
        output.emit_json({"output": args.output, **summary.__dict__, "partial": summary.partial})
    else:
        for w in summary.warnings:
            output.warn(w)
        for f in summary.failed:
            output.error(f)
        counts = ", ".join(f"{n} {t}" for t, n in summary.counts.items())
        print(
            f"imported {summary.files} file(s) into {args.output}: {counts} ({len(summary.warnings)} warning(s), "
            f"{summary.seconds:.2f}s)"
        )
        if summary.partial:
            print(f"partial: {len(summary.failed)} source(s) could not be read")
    return PARTIAL_EXIT if summary.partial else 0


def run_chunk(args: argparse.Namespace) -> int:
    opts = ChunkOptions(max_tokens=args.max_tokens, overlap=args.overlap, tokenizer=args.tokenizer, header=args.header)
    with _progress("chunking", args.quiet, unit="entries") as bar:
        summary = chunk_bundle(
            args.corpus,
            args.output,
            opts,
            overwrite=args.force,
            on_entry=lambda i, n: bar.update(i, n),
        )
    if args.json:
        output.emit_json({"output": args.output, **summary.__dict__})
    else:
        rate = _rate(summary.bytes_in, summary.seconds)
        print(
            f"chunked {summary.counts.get('entry', 0)} entries ({_bytes(summary.bytes_in)} of text) into "
            f"{summary.chunks} chunks in {args.output} ({summary.entries_without_text} without text, "
            f"{summary.seconds:.2f}s{rate})"
        )
    return 0


def run_shard(args: argparse.Namespace) -> int:
    from ..shard import shard_bundle

    done = shard_bundle(args.bundle, args.shards, args.output, force=args.force)
    if args.json:
        output.emit_json(
            [{"path": str(p), "counts": c, "bytes": b} for p, c, b in zip(done.paths, done.counts, done.sizes)]
        )
    else:
        for path, counts, size in zip(done.paths, done.counts, done.sizes):
            print(f"{path}: {_bytes(size)}, " + ", ".join(f"{n} {t}" for t, n in counts.items()))
    return 0


def _format_of(args: argparse.Namespace) -> str:
    """-f as given (an alias made canonical), else the format read from the files, said on stderr."""
    if args.format:
        return canonical(args.format)
    found = detect(args.sources)
    if not args.quiet:
        for line in found.describe().splitlines():
            output.note(line.strip())
    return found.format


def run_add(args: argparse.Namespace) -> int:
    """Import, chunk and index; on a re-add only the files changed since the last run are read (`engine/sources`)."""
    args.format = _format_of(args)
    summary = None
    with open_from_args(args) as b:
        files = _plan(args, b)
        if files.skip and not files.read and not files.left:
            if args.json:
                unchanged = IndexResult(details={"sent": {}, "files_unchanged": len(files.skip)})
                output.emit_json(unchanged.to_dict())
            else:
                print(f"unchanged since the last add: {len(files.skip)} file(s), nothing to index")
            return 0
        if files.read or not files.skip:
            with _progress("importing", args.quiet, unit="B") as bar:
                feed = _feed(args, files, bar)
                feed.start()
                code = _index(args, feed, backend=b, origin=files.origin, files=files)
            summary = feed.summary
        else:
            code = _prune_left(args, b, files)
    return PARTIAL_EXIT if summary is not None and summary.partial else code


def _prune_left(args: argparse.Namespace, b: SubprocessBackend, files: Plan) -> int:
    """Only files that left a re-added source: an empty bundle prunes their threads. Its temp dir is made here,
    not for every add: a run killed mid-import leaves nothing in the system's temp dir."""
    with private_dir("add") as tmp:
        BundleWriter(tmp / "chunks", "chunks").close()
        return _index(args, tmp / "chunks", backend=b, origin=files.origin, files=files)


def _plan(args: argparse.Namespace, b: SubprocessBackend) -> Plan:
    roots = [Path(s) for s in args.sources]
    importer = get_importer(args.format)
    paths = [f for r in roots if r.exists() for f in importer.sources(r)]
    origin = source.for_import(args.format, roots)
    return plan(origin, paths, b.source_files(origin))


def _feed(args: argparse.Namespace, files: Plan, bar: output.Progress) -> ImportFeed:
    """The sources, imported and chunked in the index run's own pass (see `importers/onepass.py`), BAR showing
    the import until it is done."""

    def imported(summary: ImportSummary) -> None:
        bar.done()
        for w in summary.warnings:
            output.warn(w)
        for f in summary.failed:
            output.error(f)
        for moved in settle(files, summary.threads):
            output.warn(f"{moved}: changed while it was imported; indexed as read, `memdock add` again reads it as is")

    opts = ChunkOptions(max_tokens=args.max_tokens, overlap=args.overlap, tokenizer=args.tokenizer, header=args.header)
    # a silent bar (quiet, or off a terminal) is given no progress to follow: the import then neither counts the
    # file's lines nor looks at each thread's entries for how far it is
    on_bytes = bar.update if bar.enabled else None
    return ImportFeed(args.sources, args.format, opts, skip=set(files.skip), on_bytes=on_bytes, on_imported=imported)


def run_index(args: argparse.Namespace) -> int:
    """Index a bundle; one unchanged since its source's last index into this store is not read again
    (`engine/sources.bundle_plan`)."""
    bundle = Path(args.bundle)
    reader = BundleReader(bundle)
    with open_from_args(args) as b:
        origin = source.of_manifest(reader.manifest, bundle)
        parts = [(reader.part_file(f), f.sha256) for f in reader.files]
        files = bundle_plan(origin, bundle / MANIFEST_NAME, parts, b.source_files(origin))
        if files.skip:
            return _unchanged_bundle(args, bundle, sum(f.count for f in reader.files))
        if reader.kind == "corpus":  # chunked in the index run's own pass (`chunking/feed.py`)
            return _index(args, CorpusFeed(BundleReader(bundle, trust_seal=True)), backend=b, files=files)
        return _index(args, bundle, backend=b, files=files)


def _unchanged_bundle(args: argparse.Namespace, bundle: Path, records: int) -> int:
    if args.json:
        output.emit_json(IndexResult(skipped=records, details={"sent": {}, "bundle_unchanged": True}).to_dict())
    else:
        print(f"unchanged since the last index: {bundle}: sent 0 record(s), unchanged {records}, deleted 0")
    return 0


def _index(
    args: argparse.Namespace,
    bundle: Path | ImportFeed | CorpusFeed,
    backend: SubprocessBackend | None = None,
    **kw: Any,
) -> int:
    bar = output.Progress("indexing", quiet=args.quiet, unit="records")
    try:
        with backend or open_from_args(args) as b:
            result = b.index(
                bundle,
                progress=lambda ev: bar.update(ev.get("done", 0), ev.get("total")),
                prune=not args.no_prune,
                parallel=args.parallel,
                executor=args.executor,
                address=args.address,
                **kw,
            )
    finally:
        bar.done()
    if args.json:
        output.emit_json(result.to_dict())
    else:
        sent = result.details.get("sent", {})
        print(
            f"indexed into {b.name}: sent {sum(sent.values())} record(s) "
            f"({', '.join(f'{n} {t}' for t, n in sent.items()) or 'nothing new'}), "
            f"unchanged {result.skipped}, deleted {result.deleted}, {result.seconds:.2f}s"
        )
    restored = result.details.get("restored")
    if restored and not args.json:
        output.warn(
            f"the backend's store had lost what the ledger says it holds ({restored['reason']}): "
            f"{restored['records']} record(s) were sent again from the store's journal"
            + (
                f", {restored['not_in_journal']} were not in it and come back only from their sources"
                if restored["not_in_journal"]
                else ""
            )
        )
    plan = result.details.get("parallel")
    if plan and not args.json:
        if plan["shards"] > 1:
            print(f"in {plan['shards']} shards at once ({args.executor})")
        else:
            output.warn(f"indexed serially, not in {plan['requested']} shards: {plan['why']}")
    kept = result.details.get("kept_for_other_sources", 0)
    if kept:
        output.warn(
            f"{kept} record(s) in these threads are not in this bundle and came from another source (another "
            "bundle, or these files under another path before a move or rename); they were kept, since only their "
            "own source deletes them. If they are stale, `memdock forget` the thread ids and index this bundle again."
        )
    return 0


def _rate(nbytes: int, seconds: float) -> str:
    """`, 12.3 MB/s`, only where a rate means something: a run shorter than a second measures start-up."""
    return f", {nbytes / 1e6 / seconds:,.1f} MB/s" if seconds >= 1.0 else ""


def _bytes(n: int) -> str:
    return f"{n / 1e6:,.1f} MB" if n >= 1e6 else f"{n / 1e3:,.1f} KB"
