"""Time as people write it: zones, time expressions and date words, timelines."""
