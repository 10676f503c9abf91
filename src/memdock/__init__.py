"""memdock: one contract between memory backends and the programs that use them."""

__version__ = "0.1.0"

PAYLOAD_VERSION = "1.0.0"
PROTOCOL_VERSION = "1.0"
