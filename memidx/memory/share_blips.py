"""`memidx share`'s tries of a fetch or push that failed in a way that may pass in a moment
(share_failures: `ForGood.passes`): a host name that does not resolve, an HTTP 403 a server
says is a rate limit. Each stopped share at once: curl's `Could not resolve host` is the
same words for a resolver's blip as for no network, and GitHub's rate limit is a 403. So each
is tried again TRIES times in all, the pauses doubling (about 1 s, then 2 s), then said as a
failure for good is, with how many tries it took: a wrong name or no network is told 3 s
later, not 3 s plus the 5 tries another failure gets."""

from __future__ import annotations

import random
import subprocess
import time
from collections.abc import Callable

from memidx.memory.share_failures import for_good, told

TRIES = 3  # of one share, fetches and pushes together
FIRST_PAUSE = 1.0  # seconds, doubling, the second half of it jittered


class Blips:
    """The failures that may pass seen by one share (its remote, its pauses and its words)."""

    def __init__(
        self,
        remote: str,
        sleep: Callable[[float], None],
        say: Callable[[str], None] | None,
    ) -> None:
        self.remote, self.sleep, self.say = remote, sleep, say
        self.tries, self.started = 0, time.monotonic()

    def passed(self, done: subprocess.CompletedProcess[str], what: str, kept: str) -> bool:
        """Whether git's failed `done` (its `what`: fetch, push) may pass in a moment: paused
        then, for the next try. GitError once it failed so TRIES times (`kept`: what stays)."""
        found = for_good(done.stderr)
        if found is None or not found[0].passes:
            return False
        kind, said = found
        self.tries += 1
        if self.tries >= TRIES:
            seconds = time.monotonic() - self.started
            raise told(
                kind, said, what, self.remote, kept, times=f" {self.tries} times in {seconds:.0f} s"
            )
        pause = FIRST_PAUSE * 2 ** (self.tries - 1) * random.uniform(0.5, 1.0)
        if self.say is not None:
            self.say(
                f"git {what} failed: {said} It may pass: trying again in {pause:.1f} s "
                f"({self.tries}/{TRIES})"
            )
        self.sleep(pause)
        return True
