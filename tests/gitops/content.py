"""Text the driver writes: notes with distinctive words, files that cannot be indexed,
symlinks; and what memidx should make of them."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import PurePosixPath

MAX_NOTE_BYTES = 6000  # set in the repositories' pyproject.toml: oversized notes stay cheap
BROKEN = "broken-front-matter"  # in every malformed front matter the driver writes
FOLDERS = ("notes", "notes/ops", "notes/db", "notes/net/dns", "notes/lang/python", "notes/ci")
HOT = ("notes/hot/hot-1.md", "notes/hot/hot-2.md", "notes/hot/hot-3.md")

WORDS = (
    "albatross", "anchovy", "avalanche", "badger", "barnacle", "basilisk", "beacon", "bramble",
    "buttercup", "cactus", "canyon", "caramel", "cardinal", "cathedral", "chameleon", "cinnamon",
    "cobalt", "comet", "coral", "cormorant", "crocodile", "cypress", "dandelion", "dolphin",
    "dragonfly", "driftwood", "dungeon", "eclipse", "emerald", "falcon", "fjord", "flamingo",
    "foxglove", "gargoyle", "geyser", "glacier", "gondola", "granite", "griffin", "harbor",
    "hazelnut", "hedgehog", "hermit", "hornet", "iceberg", "iguana", "jackal", "jasmine",
    "juniper", "kestrel", "kiwi", "labyrinth", "lagoon", "lantern", "lemur", "lighthouse",
    "lobster", "magnolia", "mammoth", "mandolin", "marigold", "meadow", "meteor", "mongoose",
    "narwhal", "nebula", "nutmeg", "obsidian", "octopus", "orchid", "osprey", "otter", "paprika",
    "parsnip", "pelican", "penguin", "pepper", "pinecone", "platypus", "porcupine", "quarry",
    "quartz", "quince", "raccoon", "raven", "reindeer", "saffron", "salamander", "sandstone",
    "sapphire", "scorpion", "seahorse", "sequoia", "sparrow", "squirrel", "starfish", "sycamore",
    "tadpole", "tamarind", "thistle", "thunder", "toucan", "tulip", "tundra", "turquoise",
    "vanilla", "velvet", "volcano", "walnut", "walrus", "wasabi", "willow", "wombat", "yak",
    "zeppelin", "zucchini",
)  # fmt: skip

SENTENCES = (
    "The {a} service stopped answering after the {b} job filled the disk with old logs.",
    "We fixed the {a} timeout by raising the limit and restarting the {b} worker.",
    "Remember to check the {a} settings before you deploy the {b} release to production.",
    "When the {a} cache goes stale, clear it and rebuild the {b} index from scratch.",
    "The build fails on the {a} machine because the {b} package is missing from the image.",
    "Our team learned that the {a} queue needs a retry policy for every {b} message.",
    "If the {a} test is flaky, run it again and compare the {b} output line by line.",
    "The {a} database was locked because the {b} migration held a long transaction.",
    "Keep the {a} credentials out of the repository and read them from the {b} vault.",
    "The {a} dashboard shows the latency of the {b} endpoint for the last hour.",
    "Restarting the {a} daemon did not help until we removed the {b} lock file.",
    "Write down how the {a} script talks to the {b} server so the next person saves time.",
)


def is_note_path(path: str) -> bool:
    """The driver's own reading of the README: `*.md` (any case) under notes/, no dot-named
    part."""
    parts = PurePosixPath(path).parts
    return (
        len(parts) > 1
        and parts[0] == "notes"
        and path.lower().endswith(".md")
        and not any(p.startswith(".") for p in parts[1:])
    )


def indexable(data: bytes) -> bool:
    """Whether the driver wrote these bytes to be indexable (independent of memidx's parser)."""
    if len(data) > MAX_NOTE_BYTES or b"\0" in data or not data.strip():
        return False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not (text.lstrip("\ufeff").startswith("---") and BROKEN in text)


class Writer:
    """English notes with distinctive words, and the other files a repository collects."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.serial = 0

    def next(self) -> int:
        self.serial += 1
        return self.serial

    def words(self, count: int) -> list[str]:
        return self.rng.sample(WORDS, count)

    def paragraph(self, sentences: int = 2) -> str:
        return " ".join(
            self.rng.choice(SENTENCES).format(a=a, b=b)
            for a, b in (self.words(2) for _ in range(sentences))
        )

    def body(self, long: bool = False) -> str:
        parts: list[str] = []
        for i in range(self.rng.randint(8, 14) if long else self.rng.randint(1, 4)):
            if i and self.rng.random() < 0.35:
                parts.append(f"## {self.rng.choice(WORDS).capitalize()} details")
            parts.append(self.paragraph(self.rng.randint(1, 3)))
        return "\n\n".join(parts) + "\n"

    def note(self) -> bytes:
        """A note: a heading or front matter, a body, sometimes long, CRLF or with a BOM."""
        a, b = self.words(2)
        title = f"How the {a} and {b} problem was solved ({self.next()})"
        body = self.body(long=self.rng.random() < 0.12)
        if self.rng.random() < 0.3:
            tags = self.words(self.rng.randint(1, 3))
            tag_text = f"[{', '.join(tags)}]" if self.rng.random() < 0.5 else ", ".join(tags)
            front = f'---\ntitle: "{title}"\ntags: {tag_text}\n'
            if self.rng.random() < 0.4:
                front += f"aliases: [{self.rng.choice(WORDS).upper()}]\n"
            if self.rng.random() < 0.5:
                front += f"created: 2026-0{self.rng.randint(1, 9)}-1{self.rng.randint(0, 9)}\n"
            if self.rng.random() < 0.3:
                front += "lang: en\n"
            text = front + "---\n\n" + body
        elif self.rng.random() < 0.85:
            text = f"# {title}\n\n{body}"
        else:
            text = body  # the title is the file name
        if self.rng.random() < 0.06:
            text = text.replace("\n", "\r\n")
        data = text.encode("utf-8")
        return b"\xef\xbb\xbf" + data if self.rng.random() < 0.04 else data

    def edited(self, data: bytes) -> tuple[bytes, str]:
        """A small edit of an indexable note, or a new text for anything else."""
        if not indexable(data):
            return self.note(), "rewrite"
        text = data.decode("utf-8")
        choice = self.rng.random()
        if choice < 0.35:
            extra = self.paragraph()
            if len(text) + len(extra) < MAX_NOTE_BYTES - 200:
                return (text.rstrip("\n") + f"\n\n{extra}\n").encode(), "append"
        elif choice < 0.55:
            extra = f"## {self.rng.choice(WORDS).capitalize()} follow-up\n\n{self.paragraph()}"
            if len(text) + len(extra) < MAX_NOTE_BYTES - 200:
                return (text.rstrip("\n") + f"\n\n{extra}\n").encode(), "section"
        elif choice < 0.8:
            present = [w for w in WORDS if w in text]
            if present:
                old = self.rng.choice(present)
                return text.replace(old, self.rng.choice(WORDS), 1).encode(), "word"
        return self.note(), "rewrite"

    def unindexable(self) -> tuple[bytes, str]:
        """A file under notes/ that cannot be indexed, and what kind it is."""
        kind = self.rng.choice(("empty", "blank", "binary", "latin1", "front", "list", "large"))
        match kind:
            case "empty":
                return b"", kind
            case "blank":
                return b"\n   \n\t\n", kind
            case "binary":
                return b"\x89PNG\r\n\x1a\n\x00\x00" + self.rng.randbytes(40), kind
            case "latin1":
                return self.paragraph().encode() + b"\ncaf\xe9 cr\xe8me br\xfbl\xe9e\n", kind
            case "front":
                return (f"---\ntitle: [{BROKEN}\n---\n\n{self.paragraph()}\n").encode(), kind
            case "list":
                return (f"---\n- {BROKEN}\n- two\n---\n\n{self.paragraph()}\n").encode(), kind
            case _:
                text = "\n\n".join(self.paragraph(3) for _ in range(40))
                return text.encode()[: MAX_NOTE_BYTES + 500] + b"\n", kind

    def merged(self, path: str, sides: Sequence[bytes | None]) -> bytes:
        """The text a person writes to resolve a conflict: both sides, plus a new line."""
        serial = self.next()
        kept = [_body_of(s)[:1500] for s in sides if s is not None and indexable(s)]
        if not path.lower().endswith(".md"):
            return f"resolved by hand ({serial})\n".encode()
        heading = f"# Merged {self.rng.choice(WORDS)} note ({serial})"
        text = "\n\n".join([heading, self.paragraph(), *kept]).rstrip("\n") + "\n"
        return text.encode()


def _body_of(data: bytes) -> str:
    """A note's text without front matter and BOM, with LF line ends."""
    text = data.decode("utf-8").lstrip("\ufeff").replace("\r\n", "\n")
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        text = text[end + 4 :] if end >= 0 else text
    return text.strip()
