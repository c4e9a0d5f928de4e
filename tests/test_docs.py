"""The README says what the code does: its schema tables are the code's columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from spades_sim.schema import GAME_COLUMNS, HAND_COLUMNS, PLAY_COLUMNS, markdown_table

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


@pytest.mark.parametrize(
    "columns", [HAND_COLUMNS, GAME_COLUMNS, PLAY_COLUMNS], ids=["hands", "games", "plays"]
)
def test_readme_schema_tables_are_the_code_columns(columns: tuple) -> None:
    section = README[README.index("<!-- schema:start -->") : README.index("<!-- schema:end -->")]
    assert markdown_table(columns) in section
