"""refind: find things in your own chat history."""

__version__ = "0.2.0"

# The variable a shell sets when it asks `refind` for completions (the script `refind completion SHELL`
# prints). Here, beside the version, so `refind --version` can check it before the command line is built.
COMPLETE_VAR = "_REFIND_COMPLETE"
