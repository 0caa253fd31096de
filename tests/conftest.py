"""Fixtures shared by the test modules. Homes a single module builds its own way stay in that module, named
for what they hold."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from samples import SAMPLES

from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive


@pytest.fixture
def empty_home(tmp_path: Path) -> Path:
    """Where a home will be: nothing there yet."""
    return tmp_path / "home"


@pytest.fixture(scope="module")
def sample_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every export in sample_exports/ (any added later too) imported in Europe/Berlin time, and indexed.
    One per test module: tests read it and must not change it."""
    home = tmp_path_factory.mktemp("samples") / "home"
    with Archive.open(home) as archive:
        for path in sorted(SAMPLES.iterdir()):
            if path.suffix not in (".py", ".md"):  # the generators and the README are not exports
                assert import_file(archive, path, tz=ZoneInfo("Europe/Berlin")).error is None
        Index.open(home).sync(archive)
    return home
