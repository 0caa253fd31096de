"""The demo exports in sample_exports/, one of each family, for tests that import them."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SAMPLES = Path(__file__).resolve().parent.parent / "sample_exports"
JONAS = SAMPLES / "WhatsApp Chat with Jonas Becker.txt"
FAMILY = SAMPLES / "WhatsApp Chat - Family.zip"
SLACK = SAMPLES / "slack-export-acme"
TELEGRAM = SAMPLES / "telegram-result.json"
EXPORTS = [JONAS, FAMILY, SLACK, TELEGRAM]
# Messenger and Instagram (sample_exports/generate_meta.py): not in EXPORTS, which the older tests count.
MESSENGER = SAMPLES / "facebook-mayalindqvist-2026-10-05-Kq3vT8.zip"
INSTAGRAM = SAMPLES / "instagram-maya.lindqvist-2026-10-05"


def load_script(name: str) -> ModuleType:
    """A generator script of sample_exports/ (``generate_linelogs``), imported from its file."""
    spec = importlib.util.spec_from_file_location(f"sample_exports_{name}", SAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # dataclasses look their module up in sys.modules while the class body runs.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
