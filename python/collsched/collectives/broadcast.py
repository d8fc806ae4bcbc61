"""The broadcast: the source sends the same message to every target."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..schedules.values import block
from .base import _FromSource

__all__ = ['Broadcast']


@dataclass(frozen=True)
class Broadcast(_FromSource):
    """The source sends the same ``size`` bytes to every target.

    Examples
    --------
    >>> Broadcast(source="h0", targets=["h1", "h2"], size=10).total_bytes
    10.0
    """

    kind: ClassVar[str] = "broadcast"

    def instance_values(self, platform, inst):
        v = block(inst, platform.host_index(self.source), -1)
        return [(self.source, v)], [(t, v) for t in self.targets]

    def direct_value(self, platform, inst, src, dst):
        return block(inst, platform.host_index(self.source), -1)

    @property
    def total_bytes(self):
        return self.size
