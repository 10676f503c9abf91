"""One adapter process's live state: its event loop, the FalkorDB server and client, graphiti per group.

In worker mode a Runtime lives as long as the worker (one local FalkorDB for the worker's life); in
one-shot mode, for one request. FalkorDB keeps one graph per group, and graphiti's calls run against
whatever graph their driver is bound to, so each group gets its own driver and Graphiti instance,
built once and reused.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"

from graphiti_core import Graphiti
from graphiti_core.driver.falkordb_driver import FalkorDriver, FalkorDriverSession

from . import falkor, models
from .catalog import Catalog
from .errors import classify
from .settings import Settings

T = TypeVar("T")


class TimedSession(FalkorDriverSession):
    def __init__(self, graph: Any, timings: models.Timings):
        super().__init__(graph)
        self.timings = timings

    async def run(self, query: str | list, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return await super().run(query, **kwargs)
        finally:
            self.timings.add("database", time.perf_counter() - t)


class TimedFalkorDriver(FalkorDriver):
    """FalkorDriver that adds its query time to the run's timings, and whose clones do too."""

    timings: models.Timings

    async def execute_query(self, cypher_query_: str, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return await super().execute_query(cypher_query_, **kwargs)
        finally:
            self.timings.add("database", time.perf_counter() - t)

    def session(self, database: str | None = None) -> TimedSession:
        return TimedSession(self._get_graph(database), self.timings)

    def clone(self, database: str) -> TimedFalkorDriver:
        if database == self._database:
            return self
        twin = TimedFalkorDriver(falkor_db=self.client, database=database)
        twin.timings = self.timings
        return twin


class Runtime:
    def __init__(self, settings: Settings, data_dir: Path):
        self.settings, self.data_dir = settings, data_dir
        self.loop = asyncio.new_event_loop()
        self.timings = models.Timings()
        self.catalog = Catalog(data_dir)
        self.server: falkor.Server | None = None
        self._client: Any = None
        self._graphs: dict[str, Graphiti] = {}
        self._clients: tuple[Any, Any, Any] | None = None

    def run(self, coro: Awaitable[T], where: str) -> T:
        try:
            return self.loop.run_until_complete(coro)
        except Exception as exc:
            raise classify(exc, self.settings, where) from exc

    # -- FalkorDB --------------------------------------------------------------------------------

    def connect(self) -> falkor.Server:
        """The server, started or reached; reconnects when a server we attached to has gone."""
        s = self.settings
        if self.server is not None and falkor.ping(self.server.host, self.server.port):
            return self.server
        self._drop_client()
        if self.server is not None:
            self.server.stop()
        if s.local_server:
            self.server = falkor.local(self.data_dir, s.falkordb_connect_timeout_s, s.falkordb_password)
        else:
            self.server = falkor.remote(s.falkordb_host or "", s.falkordb_port, s.falkordb_connect_timeout_s)
        from falkordb.asyncio import FalkorDB

        self._client = FalkorDB(
            host=self.server.host,
            port=self.server.port,
            username=s.falkordb_username,
            password=s.falkordb_password,
            socket_connect_timeout=s.falkordb_connect_timeout_s,
        )
        return self.server

    def _drop_client(self) -> None:
        if self._client is not None:
            try:
                self.loop.run_until_complete(self._client.aclose())
            except Exception:
                pass
        self._client = None
        self._graphs.clear()

    def clients(self) -> tuple[Any, Any, Any]:
        if self._clients is None:
            s = self.settings
            self._clients = (models.llm(s, self.timings), models.embedder(s, self.timings), models.cross_encoder(s))
        return self._clients

    async def graph(self, group_id: str) -> Graphiti:
        """graphiti bound to GROUP_ID's graph (created with its indices on first use)."""
        g = self._graphs.get(group_id)
        if g is None:
            driver = TimedFalkorDriver(falkor_db=self._client, database=group_id)
            driver.timings = self.timings
            if driver._init_task is not None:
                await driver._init_task
            llm, embedder, cross_encoder = self.clients()
            g = Graphiti(
                graph_driver=driver,
                llm_client=llm,
                embedder=embedder,
                cross_encoder=cross_encoder,
                max_coroutines=self.settings.max_coroutines,
            )
            self._graphs[group_id] = g
        return g

    async def drop_graph(self, group_id: str) -> None:
        self._graphs.pop(group_id, None)
        if group_id in await self._client.list_graphs():
            await self._client.select_graph(group_id).delete()

    async def graph_names(self) -> list[str]:
        return list(await self._client.list_graphs())

    def close(self) -> None:
        self._drop_client()
        if self.server is not None:
            self.server.stop()
            self.server = None
        self.catalog.close()
        self.loop.close()
