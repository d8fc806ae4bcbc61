"""Formats of other tools: :mod:`collsched.interop.msccl` reads, checks and writes MSCCL XML algorithm files.

Examples
--------
>>> from collsched.interop import msccl
>>> msccl.__name__
'collsched.interop.msccl'
"""
