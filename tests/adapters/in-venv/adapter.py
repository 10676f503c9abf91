"""Runs only where `memdock adapters install in-venv` put memdock; its healthcheck says which interpreter runs it."""

import sys
from pathlib import Path

import memdock
from memdock.sdk import Adapter, Context, serve


class InVenv(Adapter):
    name = "in-venv"
    version = "1.0.0"
    descriptor_path = Path(__file__).with_name("adapter.json")
    features = {"retrieval": False}

    def healthcheck(self, ctx: Context) -> dict:
        return {
            "ok": True,
            "backend": self.name,
            "message": f"prefix={sys.prefix} memdock={Path(memdock.__file__).parent} python={sys.version.split()[0]}",
        }


if __name__ == "__main__":
    serve(InVenv())
