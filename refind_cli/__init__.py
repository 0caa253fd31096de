"""refind: find things in your own chat history."""

__version__ = "0.1.0"
