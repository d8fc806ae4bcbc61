"""Series: ``count`` independent instances of a collective, to be pipelined."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import CollectiveError
from .base import Collective

__all__ = ['Series']


@dataclass(frozen=True)
class Series(Collective):
    """``count`` independent instances of ``collective``, to be pipelined.

    Instance ``t`` of every value is tagged ``@t``.

    Examples
    --------
    >>> from collsched.collectives import Broadcast
    >>> s = Series(Broadcast(source="h0", targets=["h1"], size=1), count=3)
    >>> s.count, s.base.kind
    (3, 'broadcast')
    """

    collective: Collective
    count: int = 1
    kind: ClassVar[str] = "series"

    def __post_init__(self):
        if isinstance(self.collective, Series):
            raise CollectiveError("a series of series", fix="multiply the counts instead")
        if not isinstance(self.collective, Collective):
            raise CollectiveError(f"series of {self.collective!r}, which is not a collective")
        if isinstance(self.count, bool) or not isinstance(self.count, (int, np.integer)) or self.count < 1:
            raise CollectiveError(f"series count is {self.count!r}", fix="give an integer >= 1")

    @property
    def base(self):
        return self.collective

    @property
    def hosts(self):
        return self.collective.hosts

    def pairs(self):
        return self.collective.pairs()

    def instance_values(self, platform, inst):
        return self.collective.instance_values(platform, inst)

    def value_size(self, value):
        return self.collective.value_size(value)

    def sizer(self, platform):
        return self.collective.sizer(platform)

    def direct_value(self, platform, inst, src, dst):
        return self.collective.direct_value(platform, inst, src, dst)

    @property
    def total_bytes(self):
        return self.count * self.collective.total_bytes
