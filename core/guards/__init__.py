"""Guards: rate limits, input and output checks, prompt hardening, secret redaction, usage."""

from core.guards.guard import FuziGuard
from core.guards.injection import Detection, InjectionDetector
from core.guards.limits import InMemoryRateLimiter, LimitDecision, Quota, RateLimiter
from core.guards.output import OutputChecker, new_canary
from core.guards.redact import SecretRedactor
from core.guards.usage import UsageFigures, UsageStore

__all__ = [
    "Detection",
    "FuziGuard",
    "InMemoryRateLimiter",
    "InjectionDetector",
    "LimitDecision",
    "OutputChecker",
    "Quota",
    "RateLimiter",
    "SecretRedactor",
    "UsageFigures",
    "UsageStore",
    "new_canary",
]
