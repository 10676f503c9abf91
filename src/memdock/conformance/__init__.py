"""The conformance kit: runs an adapter as a black box and reports, check by check, whether it keeps the contract."""

from .harness import KitOptions
from .kit import CheckResult, Report, check_names, run_kit

__all__ = ["CheckResult", "KitOptions", "Report", "check_names", "run_kit"]
