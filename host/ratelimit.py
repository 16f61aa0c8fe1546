"""Token buckets on trio's clock: the one rate-limit primitive of the host.

How it works: a bucket holds up to ``burst`` tokens and refills at ``rate`` tokens a second
(on :func:`trio.current_time`, so tests run it on the mock clock). :meth:`TokenBucket.take`
spends one token if there is one; :meth:`TokenBucket.charge` spends any amount, going into debt
below zero, and :meth:`TokenBucket.debt_seconds` says how long until the debt is paid. The
session limits each connection's messages (and charges the CPU its frames cost to decode); a
table limits its chat as a whole. :class:`RateLimits` holds what one connection may send; a
host takes it from its ``HostConfig`` (tests run real-TCP hosts at full speed that way).
"""

from __future__ import annotations

from dataclasses import dataclass

import trio

__all__ = ["RateLimits", "TokenBucket"]


@dataclass(frozen=True, slots=True)
class RateLimits:
    """What one connection may send (its buckets: messages, chat, the fair-deal reserve)."""

    #: messages per second a connection may send on average, and the burst allowed
    per_second: float = 20.0
    burst: float = 60.0
    #: chat lines per second on average and the burst allowed
    chat_per_second: float = 0.5
    chat_burst: float = 5.0
    #: a seat's commit and reveal count against the rate limit like any message, but when it
    #: is spent they draw on this small reserve instead of being refused (a refused reveal
    #: would void the deal and bench an honest player who had just chatted): per second, and
    #: the burst
    fair_reserve_per_second: float = 1.0
    fair_reserve_burst: float = 4.0
    #: the masking requests of a private table (``mask_commit`` .. ``mask_reveal``) are the
    #: host's own demands, and many: a seat seals a box for every position drawn to another
    #: seat and passes every reshuffle's deck twice. Refused, one voids the hand (the seat
    #: does not send it again), so past the bucket they draw on this reserve: per second,
    #: and the burst (a six-seat One Card game met the bucket in its deals and reshuffles)
    mask_reserve_per_second: float = 50.0
    mask_reserve_burst: float = 500.0
    #: a connection over its rate limit this many times in a row is closed
    max_strikes: int = 100


class TokenBucket:
    """A token bucket on trio's clock: ``take()`` is False when the rate is exceeded."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = trio.current_time()

    def _refill(self) -> None:
        now = trio.current_time()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self) -> bool:
        self._refill()
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def charge(self, tokens: float) -> None:
        """Take ``tokens`` whatever is left: the bucket may go into debt (below zero)."""
        self._refill()
        self.tokens -= tokens

    def debt_seconds(self) -> float:
        """Seconds until the bucket is out of debt (0 when it is not in debt)."""
        self._refill()
        return max(0.0, -self.tokens / self.rate)
