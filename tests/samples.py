"""The demo exports in sample_exports/, one of each family, for tests that import them."""

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "sample_exports"
JONAS = SAMPLES / "WhatsApp Chat with Jonas Becker.txt"
FAMILY = SAMPLES / "WhatsApp Chat - Family.zip"
SLACK = SAMPLES / "slack-export-acme"
TELEGRAM = SAMPLES / "telegram-result.json"
EXPORTS = [JONAS, FAMILY, SLACK, TELEGRAM]
# Messenger and Instagram (sample_exports/generate_meta.py): not in EXPORTS, which the older tests count.
MESSENGER = SAMPLES / "facebook-mayalindqvist-2026-10-05-Kq3vT8.zip"
INSTAGRAM = SAMPLES / "instagram-maya.lindqvist-2026-10-05"
