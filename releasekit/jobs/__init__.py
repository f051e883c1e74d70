"""Jobs: one module per use case, each telling the whole story of one command.

A job reads with the adapters (:mod:`releasekit.io`), decides with the pure core (:mod:`releasekit.model`,
:mod:`releasekit.plan`, :mod:`releasekit.rules`), writes with the adapters and returns a
:class:`releasekit.model.report.Report` (or a result the command renders). The click layer
(:mod:`releasekit.cli`) parses options, calls one job, renders its report and exits; adapters never import
jobs, and jobs never print or exit.
"""
