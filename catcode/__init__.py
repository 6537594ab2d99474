"""catcode: a terminal coding agent on Claude whose centrepiece is memory across sessions."""

__version__ = "0.1.0"
__all__ = ["__version__"]
