"""refind: find things in your own chat history."""

__version__ = "0.2.0"
