"""Platforms: the machine as validated data (see :mod:`collsched.platform.model`)."""

from .model import HOST, ROUTER, SHARING_POLICIES, Hop, Link, Node, Platform
from .routing import DModK, ECube, RouteTable, Routing, ShortestPath

__all__ = ["Platform", "Node", "Link", "Hop", "HOST", "ROUTER", "SHARING_POLICIES",
           "Routing", "ShortestPath", "RouteTable", "ECube", "DModK"]
