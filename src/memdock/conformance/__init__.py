"""The conformance kit: runs an adapter as a black box and reports, check by check, whether it keeps the contract."""

from .kit import CheckResult, KitOptions, Report, run_kit

__all__ = ["CheckResult", "KitOptions", "Report", "run_kit"]
