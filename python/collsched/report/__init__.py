"""Pictures and reports of results: Gantt charts, platforms with their flows, bars against bounds, HTML reports.

Examples
--------
>>> from collsched.report import gantt, write_report
>>> gantt.__name__, write_report.__name__
('gantt', 'write_report')
"""

from .bars import bars
from .gantt import gantt, link_utilisation_over_time
from .html import write_report
from .platform_flows import platform_flows

__all__ = ["gantt", "link_utilisation_over_time", "platform_flows", "bars", "write_report"]
