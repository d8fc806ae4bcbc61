"""Liquid schedules for all-to-all traffic over routed networks (seed 001), with an optimal fallback.

Modules: :mod:`.traffic` (transfers as link sets, loads, duration Λ),
:mod:`.teams` (full simultaneities and full teams by category fission),
:mod:`.search` (the liquid-schedule search and its exact generalisation),
:mod:`.fallback` (the shortest schedule when no liquid one exists, and a
fast heuristic), :mod:`.algorithm` (the registered ``liquid``) and
:mod:`.baselines` (``round_robin``, ``random_steps``).

Examples
--------
>>> import collsched as cs
>>> from collsched.algorithms.liquid.traffic import figure1_platform, figure1_collective
>>> p, c = figure1_platform(), figure1_collective()
>>> s = liquid(p, c)
>>> len(s), s.status.value
(6, 'optimal')
"""

from .algorithm import liquid
from .baselines import random_steps, round_robin
from .traffic import Traffic, traffic_of

__all__ = ["liquid", "round_robin", "random_steps", "Traffic", "traffic_of"]
