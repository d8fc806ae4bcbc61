"""Pictures and reports of results: Gantt charts (more to come: plots, HTML reports).

Examples
--------
>>> from collsched.report import gantt
>>> gantt.__name__
'gantt'
"""

from .gantt import gantt, link_utilisation_over_time

__all__ = ["gantt", "link_utilisation_over_time"]
