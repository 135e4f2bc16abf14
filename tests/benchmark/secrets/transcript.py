"""A long, code-heavy Claude Code transcript (JSONL) for the secret detector's speed and
equivalence checks: tool output as an agent sees it (source files read, `git show` diffs,
pip and npm logs, environment dumps, JSON configs), the labeled set's secrets and look-alikes
among them. The same bytes every time: the code and diffs are memidx's own at PINNED, the rest
comes from a seeded generator (no secret-shaped value is stored in the repository)."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

from tests.benchmark.secrets.labeled import samples

PINNED = "2d25761f"  # memidx's main when this transcript was first made
ROOT = Path(__file__).resolve().parents[3]
PACKAGES = [
    *("requests", "urllib3", "certifi", "idna", "charset-normalizer", "numpy", "onnxruntime"),
    *("tokenizers", "fastembed", "huggingface-hub", "tqdm", "pyyaml", "filelock", "packaging"),
    *("protobuf", "sympy", "mpmath", "flatbuffers", "coloredlogs", "humanfriendly", "pytest"),
    *("pluggy", "iniconfig", "pytest-xdist", "execnet", "keyring", "jaraco.classes"),
]
NPM = [
    *("react", "react-dom", "typescript", "eslint", "@types/node", "vite", "jsonwebtoken"),
    *("passport", "dotenv"),
]


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout


def _sources() -> list[tuple[str, str]]:
    """Each Python file of PINNED's memidx/ and tests/unit/, read by one `git cat-file` (a
    `git show` each was 150 processes), decoded as `_git` decodes (newlines made "\n")."""
    files = [f for f in _git("ls-tree", "-r", "--name-only", PINNED).split() if f.endswith(".py")]
    files = sorted(f for f in files if f.startswith(("memidx/", "tests/unit/")))
    asked = "".join(f"{PINNED}:{f}\n" for f in files).encode()
    out = subprocess.run(["git", "cat-file", "--batch"], cwd=ROOT, input=asked,
                         capture_output=True, check=True).stdout  # fmt: skip
    texts: list[str] = []
    at = 0
    for _ in files:  # "<oid> blob <size>\n<bytes>\n" each
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        blob = out[header_end + 1 : header_end + 1 + size].decode()
        texts.append(blob.replace("\r\n", "\n").replace("\r", "\n"))
        at = header_end + 1 + size + 1
    return list(zip(files, texts, strict=True))


def _diffs(count: int) -> list[str]:
    """`git show --stat -p` of each of PINNED's last `count` commits, cut at 60,000 characters:
    one `git show` of them all (300 processes were 8 s under load), cut where each commit's
    header starts (a blank line between two)."""
    commits = _git("rev-list", f"--max-count={count}", PINNED).split()
    shown = _git("show", "--stat", "-p", *commits)
    starts: list[int] = []
    for commit in commits:
        starts.append(shown.index(f"commit {commit}\n", starts[-1] + 1 if starts else 0))
    ends = [start - 1 for start in starts[1:]] + [len(shown)]
    return [shown[start:end][:60_000] for start, end in zip(starts, ends, strict=True)]


def _pip_log(rng: random.Random) -> str:
    lines = ["$ pip install -v -r requirements.txt", "Using pip 23.2.1 from /usr/lib/python3.11"]
    for name in rng.sample(PACKAGES, 12):
        version = f"{rng.randint(0, 9)}.{rng.randint(0, 40)}.{rng.randint(0, 9)}"
        wheel = f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
        lines += [
            f"Collecting {name}>={version}",
            f"  Downloading https://files.pythonhosted.org/packages/{rng.randbytes(2).hex()}/"
            f"{rng.randbytes(31).hex()}/{wheel} ({rng.randint(10, 900)} kB)",
            f"  Link requires a different Python (3.11.7 not in: '<3.8'): {wheel}",
            "  Skipping link: not a file: https://pypi.org/simple/keyring/",
            f"  Added {name}>={version} from https://files.pythonhosted.org/{wheel}#sha256="
            f"{rng.randbytes(32).hex()} to build tracker "
            f"'/tmp/pip-build-tracker-{rng.randbytes(4).hex()}'",
        ]
    lines.append("Successfully installed " + " ".join(rng.sample(PACKAGES, 8)))
    return "\n".join(lines)


def _npm_log(rng: random.Random) -> str:
    lines = ["$ npm install --verbose"]
    for name in rng.sample(NPM, 6):
        lines += [
            f"npm http fetch GET 200 https://registry.npmjs.org/{name} {rng.randint(20, 900)}ms",
            f"npm verb reify adding {name}@{rng.randint(1, 19)}.{rng.randint(0, 9)}.0",
            f'npm sill tarball no local data for {name}. Extracting by manifest. "integrity": '
            f'"sha512-{rng.randbytes(48).hex()}"',
        ]
    lines.append("npm verb token: use `npm token list` to see your auth tokens")
    lines.append(f"added {rng.randint(100, 900)} packages, and audited in {rng.randint(2, 40)}s")
    return "\n".join(lines)


def _env_dump(rng: random.Random, lines: list[str]) -> str:
    env = [
        "HOME=/home/dev",
        "PATH=/usr/local/bin:/usr/bin:/bin",
        f"SSH_AUTH_SOCK=/tmp/ssh-{rng.randbytes(4).hex()}/agent.{rng.randint(100, 9999)}",
        "GPG_TTY=/dev/pts/3",
        "KEYTIMEOUT=1",
        "PASSWORD_STORE_DIR=/home/dev/.password-store",
        "GIT_ASKPASS=/usr/lib/git-core/git-gui--askpass",
        "TOKENIZERS_PARALLELISM=false",
        *rng.sample(lines, 3),
    ]
    return "$ env | sort\n" + "\n".join(sorted(env))


def _config(rng: random.Random, lines: list[str]) -> str:
    config = {
        "name": "web-app",
        "version": f"1.{rng.randint(0, 30)}.0",
        "scripts": {"build": "vite build", "lint": "eslint . --max-warnings 0"},
        "auth": {
            "provider": "oauth2",
            "tokenUrl": "https://auth.example.com/token",
            "keyFile": "/etc/app/keys/signing.pem",
            "passwordMinLength": 12,
        },
        "dependencies": {name: f"^{rng.randint(1, 18)}.0.0" for name in rng.sample(NPM, 5)},
        "notes": rng.choice(lines),
    }
    return "$ cat config.json\n" + json.dumps(config, indent=2)


def _record(kind: str, content: object, number: int) -> str:
    base = {"parentUuid": f"{number - 1:08x}-0000-4000-8000-000000000000",
            "uuid": f"{number:08x}-0000-4000-8000-000000000000", "sessionId": "bench",
            "cwd": "/home/dev/web-app", "gitBranch": "main", "version": "2.0.0"}  # fmt: skip
    if kind == "assistant":
        message = {"role": "assistant", "content": [{"type": "text", "text": content}]}
    else:
        message = {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{number:020d}", "content": content}
        ]}  # fmt: skip
    return json.dumps({**base, "type": "user" if kind == "tool" else kind, "message": message})


def transcript(megabytes: float = 9.5, seed: int = 57) -> str:
    """The transcript: about `megabytes` MiB of JSONL, the same for the same arguments."""
    rng = random.Random(seed)
    secrets, looks = samples(seed, 4)
    lines = [s.line for s in [*secrets, *looks]]
    sources, diffs = _sources(), _diffs(300)
    records: list[str] = []
    size, number = 0, 0
    while size < megabytes * 1024 * 1024:
        number += 1
        pick = rng.random()
        if pick < 0.45:
            _, code = sources[number % len(sources)]
            numbered = "\n".join(f"{i:6d}\t{line}" for i, line in enumerate(code.split("\n"), 1))
            records.append(_record("tool", numbered, number))
        elif pick < 0.7:
            records.append(_record("tool", diffs[number % len(diffs)], number))
        elif pick < 0.78:
            records.append(_record("tool", _pip_log(rng), number))
        elif pick < 0.84:
            records.append(_record("tool", _npm_log(rng), number))
        elif pick < 0.89:
            records.append(_record("tool", _env_dump(rng, lines), number))
        elif pick < 0.94:
            records.append(_record("tool", _config(rng, lines), number))
        else:
            said = f"I read the file and the password check is in `{rng.choice(sources)[0]}`."
            records.append(_record("assistant", said + "\n" + rng.choice(lines), number))
        size += len(records[-1]) + 1
    return "\n".join(records) + "\n"


if __name__ == "__main__":
    import sys

    Path(sys.argv[1]).write_text(transcript(), encoding="utf-8")
