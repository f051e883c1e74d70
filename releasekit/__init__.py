"""releasekit: cut OLM releases of the Kueue operator for OpenShift.

The package is layered: a pure core (``model``, ``rules``, ``plan``) that never touches disk, git,
the clock or the terminal; adapters in ``io``; reporters in ``report``; and a thin click layer in ``cli``.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
