"""The real Codex CLI and Gemini CLI, each pointed at a loopback stub of its model API (Codex: a
custom model provider whose base_url is the stub; Gemini: GOOGLE_GEMINI_BASE_URL), with
memidx installed by `memidx agent install codex|gemini --scope user` in a throwaway HOME: the
prompt hook's recall reaches the model's request, and the turn is filed into the haystack.

Codex runs hooks it does not manage only once they are trusted in its /hooks screen; headless,
`codex exec --dangerously-bypass-hook-trust` runs them. Skipped when a CLI is not on PATH
(npm install -g @openai/codex @google/gemini-cli)."""

from __future__ import annotations

import atexit
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env, copy_tree
from tests.model_stubs import ANSWER, ModelStub

TIMEOUT = 240
QUESTION = "My vmmem process eats all the memory on WSL, how do I cap it?"


# The memory each world starts from, by models folder: ingested and embedded once per process
# (the embed loads the model) and copied for each world: the same notes, commit, index, vectors.
MEMORIES: dict[Path, Path] = {}


def embedded_memory(models: Path) -> Path:
    """The notes memory, committed, ingested and embedded by the real CLI (built once)."""
    built = MEMORIES.get(models)
    if built is not None and built.is_dir():
        return built
    folder = Path(tempfile.mkdtemp(prefix="memidx-tests-e2e-"))
    atexit.register(shutil.rmtree, folder, True)
    memory = NotesRepo(folder / "memory")
    memory.note("wsl/vmmem.md", "WSL: vmmem eats all the memory",
                "vmmem grows until Windows runs out of RAM. Cap it in %UserProfile%\\.wslconfig "
                "with [wsl2] memory=6GB and run wsl --shutdown.")  # fmt: skip
    memory.commit("notes")
    home = folder / "home"
    environment = clean_env(
        HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
        MEMIDX_ROOT=str(memory.root), MEMIDX_MODELS_DIR=str(models), MEMIDX_HOOK_EMBED="0",
    )  # fmt: skip
    for args in (["ingest"], ["embed"]):
        assert run([str(MEMIDX_BIN), *args], memory.root, environment).returncode == 0
    MEMORIES[models] = memory.root
    return memory.root


def world(root: Path, models: Path, **env: str) -> tuple[NotesRepo, Path, dict[str, str]]:
    copy_tree(embedded_memory(models), root / "memory")
    memory = NotesRepo(root / "memory", init=False)
    project, home = root / "project", root / "home"
    project.mkdir()
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "memidx").symlink_to(MEMIDX_BIN)  # as `make install` links it
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=clean_env())
    environment = clean_env(
        HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
        MEMIDX_ROOT=str(memory.root), MEMIDX_MODELS_DIR=str(models), MEMIDX_HOOK_EMBED="0",
        MEMIDX_AGENT_DEADLINE="60", MEMIDX_RECALL_IDLE="120", **env,
    )  # fmt: skip
    environment.pop("CODEX_HOME", None)
    return memory, project, environment


# the user's own Gemini settings: API-key auth against the stub, no folder-trust prompt
GEMINI_SETTINGS = {"security": {"auth": {"selectedType": "gemini-api-key"},
                                "folderTrust": {"enabled": False}}}  # fmt: skip


def gemini_world(
    root: Path, models: Path, url: str, scope: str, gemini_home: Path | None = None
) -> tuple[NotesRepo, Path, dict[str, str]]:
    """world() for Gemini CLI against the stub at `url`: GEMINI_SETTINGS as the user's own
    settings (kept beside memidx's entries), memidx installed in `scope`; with `gemini_home`,
    GEMINI_CLI_HOME moves the user's settings there (Gemini CLI's home instead of HOME)."""
    moved = {"GEMINI_CLI_HOME": str(gemini_home)} if gemini_home else {}
    memory, project, env = world(
        root, models, GEMINI_API_KEY="dummy", GOOGLE_GEMINI_BASE_URL=url, **moved
    )
    settings = (gemini_home or root / "home") / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(GEMINI_SETTINGS))
    installed = run([str(MEMIDX_BIN), "agent", "install", "gemini", "--scope", scope], project, env)
    assert installed.returncode == 0, installed.stderr
    return memory, project, env


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)  # fmt: skip


def filed(memory: NotesRepo, env: dict[str, str], agent: str) -> list[dict[str, object]]:
    found = run([str(MEMIDX_BIN), "search", "--json", "--kind", "turn", "--mode", "bm25",
                 "zanzibar"], memory.root, env)  # fmt: skip
    assert found.returncode == 0, found.stderr
    return [h for h in json.loads(found.stdout)["hits"] if agent in json.dumps(h)]


def codex_config(home: Path, url: str) -> str:
    """The user's Codex settings, written: a model provider whose base_url is the stub's."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    theirs = (f'model = "stub-model"\nmodel_provider = "stub"\n\n[model_providers.stub]\n'
              f'name = "stub"\nbase_url = "{url}/v1"\nwire_api = "responses"\n'
              'env_key = "STUB_KEY"\n')  # fmt: skip
    config.write_text(theirs)
    return theirs


@pytest.mark.skipif(shutil.which("codex") is None, reason="codex CLI not installed")
def test_codex_exec_recalls_the_note_and_files_the_turn(tmp_path: Path, models_dir: Path) -> None:
    with ModelStub("responses") as stub:
        memory, project, env = world(tmp_path, models_dir, STUB_KEY="dummy")
        config = tmp_path / "home" / ".codex" / "config.toml"
        theirs = codex_config(tmp_path / "home", stub.url)
        installed = run([str(MEMIDX_BIN), "agent", "install", "codex", "--scope", "user"],
                        project, env)  # fmt: skip
        assert installed.returncode == 0, installed.stderr
        assert config.read_text().startswith(theirs)

        done = run(["codex", "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust",
                    QUESTION], project, env)  # fmt: skip

        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
        asked = [b for b in stub.bodies if "vmmem" in b]
        assert asked and "memidx-recall" in asked[-1] and "wslconfig" in asked[-1]
        assert filed(memory, env, "codex")


@pytest.mark.skipif(shutil.which("gemini") is None, reason="gemini CLI not installed")
def test_gemini_recalls_the_note_and_files_the_turn(tmp_path: Path, models_dir: Path) -> None:
    with ModelStub("gemini") as stub:
        memory, project, env = gemini_world(tmp_path, models_dir, stub.url, "user")
        settings, theirs = tmp_path / "home" / ".gemini" / "settings.json", GEMINI_SETTINGS

        done = run(["gemini", "-p", QUESTION], project, env)

        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
        asked = [b for b in stub.bodies if "vmmem" in b and "streamGenerateContent" not in b]
        assert any("memidx-recall" in b and "wslconfig" in b for b in asked)
        assert filed(memory, env, "gemini")
        after = run([str(MEMIDX_BIN), "agent", "uninstall", "gemini", "--scope", "user"],
                    project, env)  # fmt: skip
        assert after.returncode == 0 and json.loads(settings.read_text()) == theirs


@pytest.mark.skipif(shutil.which("gemini") is None, reason="gemini CLI not installed")
def test_gemini_cli_home_moves_the_user_install_where_gemini_reads_it(
    tmp_path: Path, models_dir: Path
) -> None:
    gemini_home = tmp_path / "gemini-home"
    with ModelStub("gemini") as stub:
        memory, project, env = gemini_world(tmp_path, models_dir, stub.url, "user", gemini_home)

        done = run(["gemini", "-p", QUESTION], project, env)

        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
        asked = [b for b in stub.bodies if "vmmem" in b and "streamGenerateContent" not in b]
        assert any("memidx-recall" in b and "wslconfig" in b for b in asked)
        assert filed(memory, env, "gemini")
    assert not (tmp_path / "home" / ".gemini").exists()
    status = run([str(MEMIDX_BIN), "agent", "status"], project, env)
    assert f"gemini (user) {gemini_home / '.gemini' / 'settings.json'}: hooks" in status.stdout


# A project install is committed, so it runs on teammates' machines, where the installing
# clone is not: the hooks run the memidx on PATH (else `make install`'s link in ~/.local/bin),
# else do nothing, and exit 0.
THIN_PATH = "/usr/bin:/bin"  # the CLIs, node, git and sh; no memidx (HOME is the test's own)


def as_on_a_teammates_machine(*files: Path) -> None:
    """What the install wrote holds no path of this machine's memidx; the teammate never ran
    `make install` (no link in ~/.local/bin): any memidx must come from their PATH."""
    for path in files:
        assert str(MEMIDX_BIN) not in path.read_text(), path
        (path.parents[2] / "home" / ".local" / "bin" / "memidx").unlink(missing_ok=True)


def teammates_path(root: Path) -> str:
    """A PATH whose memidx is the teammate's own (a link, as `make install` makes)."""
    (root / "bin").mkdir()
    (root / "bin" / "memidx").symlink_to(MEMIDX_BIN)
    return f"{root / 'bin'}:{THIN_PATH}"


@pytest.mark.skipif(shutil.which("codex") is None, reason="codex CLI not installed")
def test_a_codex_project_install_works_for_a_teammate_with_or_without_memidx(
    tmp_path: Path, models_dir: Path
) -> None:
    codex = ["codex", "exec", "--trust", "--dangerously-bypass-hook-trust", QUESTION]
    with ModelStub("responses") as stub:
        _, project, env = world(tmp_path, models_dir, STUB_KEY="dummy")
        codex_config(tmp_path / "home", stub.url)
        installed = run([str(MEMIDX_BIN), "agent", "install", "codex", "--scope", "project"],
                        project, env)  # fmt: skip
        assert installed.returncode == 0, installed.stderr
        as_on_a_teammates_machine(
            project / ".codex" / "hooks.json", project / ".codex" / "config.toml"
        )

        with_memidx = run(codex, project, {**env, "PATH": teammates_path(tmp_path)})
        asked = len(stub.bodies)
        without = run(codex, project, {**env, "PATH": THIN_PATH})

    assert with_memidx.returncode == 0, (with_memidx.stdout[-2000:], with_memidx.stderr[-2000:])
    assert any("memidx-recall" in b and "wslconfig" in b for b in stub.bodies[:asked])
    assert without.returncode == 0 and ANSWER in without.stdout, without.stderr[-2000:]
    assert "hook: UserPromptSubmit Completed" in without.stderr
    assert "Failed" not in without.stderr, without.stderr[-2000:]  # before: "hook: ... Failed"
    assert not any("memidx-recall" in b for b in stub.bodies[asked:])


@pytest.mark.skipif(shutil.which("gemini") is None, reason="gemini CLI not installed")
def test_a_gemini_project_install_works_for_a_teammate_with_or_without_memidx(
    tmp_path: Path, models_dir: Path
) -> None:
    """Before, a teammate without memidx got no answer at all: Gemini CLI 0.61.0 blocks the
    prompt when a hook's command is not found ("Agent execution blocked: ... No such file")."""
    with ModelStub("gemini") as stub:
        _, project, env = gemini_world(tmp_path, models_dir, stub.url, "project")
        as_on_a_teammates_machine(project / ".gemini" / "settings.json")

        with_memidx = run(["gemini", "-p", QUESTION], project,
                          {**env, "PATH": teammates_path(tmp_path)})  # fmt: skip
        asked = len(stub.bodies)
        without = run(["gemini", "-p", QUESTION], project, {**env, "PATH": THIN_PATH})

    assert with_memidx.returncode == 0, (with_memidx.stdout[-2000:], with_memidx.stderr[-2000:])
    assert any("memidx-recall" in b and "wslconfig" in b for b in stub.bodies[:asked])
    assert without.returncode == 0 and ANSWER in without.stdout, without.stderr[-2000:]
    assert "Hook(s)" not in without.stderr and "blocked" not in without.stderr, without.stderr
    assert not any("memidx-recall" in b for b in stub.bodies[asked:])


@pytest.mark.skipif(shutil.which("gemini") is None, reason="gemini CLI not installed")
def test_gemini_connects_a_project_mcp_server_from_a_hostile_home(tmp_path: Path) -> None:
    """Gemini CLI replaced `$HOME` in the project entry's script with HOME's value before sh
    parsed it: a backquote in it ran as a command, and the server (`make install`'s link in
    that HOME) was not found. `gemini mcp list` starts each server and sends nothing out."""
    memory = NotesRepo(tmp_path / "memory")
    memory.note("a.md", "A note", "Something to search.")
    memory.commit("notes")
    home, project = tmp_path / 'home `touch pwned` $x "q" it\'s', tmp_path / "project"
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "memidx").symlink_to(MEMIDX_BIN)
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(
        json.dumps({**GEMINI_SETTINGS, "privacy": {"usageStatisticsEnabled": False}})
    )
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=clean_env())
    env = clean_env(HOME=str(home), PATH=THIN_PATH, MEMIDX_ROOT=str(memory.root), x="EXPANDED",
                    XDG_CONFIG_HOME=str(tmp_path / "config"), GEMINI_API_KEY="dummy",
                    XDG_STATE_HOME=str(tmp_path / "state"))  # fmt: skip
    installed = run([str(MEMIDX_BIN), "agent", "install", "gemini", "--scope", "project"],
                    project, env)  # fmt: skip
    assert installed.returncode == 0, installed.stderr

    listed = run(["gemini", "mcp", "list"], project, env)

    said = listed.stdout + listed.stderr  # Gemini CLI 0.61.0 lists on stderr
    assert listed.returncode == 0 and "memidx: /bin/sh" in said, said[-2000:]
    assert "(stdio) - Connected" in said, said[-2000:]
    assert not (project / "pwned").exists() and not (tmp_path / "pwned").exists()
