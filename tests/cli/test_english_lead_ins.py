"""`memidx check english` on notes whose list items open with an English label: a Spanish
note cut into `- Step one: antes de` items was committed as English; a list of UI strings
beside their English labels still is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import NotesRepo
from tests.language_notes import ORDINALS

SPANISH = [
    "Antes",
    "de",
    "hacer",
    "push",
    "hay",
    "que",
    "ejecutar",
    "las",
    "pruebas",
    "de",
    "integración",
    "porque",
    "necesitan",
    "Docker",
    "y",
    "tardan",
    "unos",
    "doce",
    "minutos",
    "en",
    "el",
    "servidor",
]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    monkeypatch.delenv("SKIP", raising=False)
    return NotesRepo(tmp_path / "memory")


def test_a_spanish_note_behind_step_labels_is_refused(repo: NotesRepo) -> None:
    pieces = [" ".join(SPANISH[i : i + 2]) for i in range(0, len(SPANISH), 2)]
    items = "".join(f"- Step {ORDINALS[n]}: {piece}\n" for n, piece in enumerate(pieces))
    repo.note("steps.md", "Integration tests", f"Notes from the meeting last week.\n\n{items}")
    repo.git("add", "-A")

    done = repo.memidx("check", "english", "notes/steps.md")

    assert done.code == 1 and "notes/steps.md: written in es" in done.out, done


def test_ui_strings_beside_their_english_labels_pass(repo: NotesRepo) -> None:
    items = ["Save: enregistrer", "Cancel: annuler", "Delete: supprimer", "Search: rechercher"]
    body = "The French labels of the settings screen.\n\n" + "".join(f"- {i}\n" for i in items)
    repo.note("labels.md", "French labels", body)
    repo.git("add", "-A")

    done = repo.memidx("check", "english", "notes/labels.md")

    assert done.code == 0, done


def test_ui_verb_phrases_beside_their_english_labels_pass(repo: NotesRepo) -> None:
    """Two-word German UI strings with no function word passed before values were read alone,
    then were refused as German (62%)."""
    items = ["Save changes: Änderungen speichern", "Open file: Datei öffnen"]
    items += ["Close window: Fenster schließen", "Delete account: Konto löschen"]
    body = "The strings our translator sent for the settings screen.\n\n"
    repo.note("strings.md", "German UI strings", body + "".join(f"- {i}\n" for i in items))
    repo.git("add", "-A")

    done = repo.memidx("check", "english", "notes/strings.md")

    assert done.code == 0, done


def test_places_with_particles_beside_english_labels_pass(repo: NotesRepo) -> None:
    """Read alone, `Fontana di Trevi` and the like made a trip note Italian (59%)."""
    items = ["Morning: Piazza della Rotonda", "Lunch: Trattoria da Enzo"]
    items += ["Afternoon: Musei Vaticani", "Evening: Fontana di Trevi", "Late: Campo de' Fiori"]
    body = "Places the team wants to see after the meetup on Thursday.\n\n"
    repo.note("rome.md", "Rome visit", body + "".join(f"- {i}\n" for i in items))
    repo.git("add", "-A")

    done = repo.memidx("check", "english", "notes/rome.md")

    assert done.code == 0, done
