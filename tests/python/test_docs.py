"""The documentation runs: every shell and Python example of README.md and docs/*.md.

Each fenced code block of a runnable language is one test case, named `FILE:LINE` (the line of
its opening fence):

- ```sh / ```bash / ```shell: the block is a script, run with `set -eo pipefail`; every command
  must succeed.
- ```console: a terminal session. A line starting with `$ ` is a command (continued by a
  trailing `\\` or by a here-document up to its end marker); the lines after it, up to the next
  `$ `, are what it prints, stdout and stderr together, compared line by line (trailing spaces
  and blank lines at either end aside). `[..]` in a line matches any text within that line, a line that is only `...` matches
  any number of lines (none included). The command must succeed, unless the output's last line
  is `[exit status: N]`: then it must exit with N. The commands share one shell (a `cd` or a
  variable carries over); their standard input is empty.
- ```python / ```py: a script, run with the project's .venv interpreter; it must succeed.

Blocks in other languages, or none (model files, file layouts, formulas), are text; the check
`test_text_blocks_hold_no_commands` fails if one of them looks like a command line.

Every block runs in a fresh temporary folder that looks like the repository's root: copies of
`models/`, `examples/` and `tests/python/models/`, and links to the release build
(`target/release/fmu3d`, `target/release/libfmu_runtime.so`) and to `.venv`; `fmu3d`, `python`
and `python3` are on the PATH, which holds nothing else but a few file tools (see `TOOLS`). A
block may only run the programs of `PROGRAMS` and must finish within `TIMEOUT` seconds.

A block that cannot run here (it builds, benchmarks, runs the test suite itself, needs other
machines, or runs for minutes) is marked in the Markdown by an HTML comment on the line just
before its opening fence, with the reason:

    <!-- not run: builds the project and runs the whole test suite -->

A marked block is reported as skipped with its reason. An unmarked block that calls a program
outside `PROGRAMS`, fails, prints something else, or runs too long is a failure, so that no
example is left out silently. This checks the examples, not the engine: the references of the
physics are the other tests.
"""

import os
import re
import shlex
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]
RELEASE = REPOSITORY / "target" / "release"
VENV = REPOSITORY / ".venv"
#: Folders copied into every block's working folder (small: model files and scripts).
COPIED = ["models", "examples", "tests/python/models"]

SCRIPT = {"sh", "bash", "shell"}
SESSION = {"console", "shell-session"}
PYTHON = {"python", "py", "python3"}
RUNNABLE = SCRIPT | SESSION | PYTHON

#: File tools on the PATH of a block, besides `fmu3d`, `python` and `python3`.
TOOLS = {"cat", "cmp", "cp", "cut", "diff", "grep", "head", "ls", "mkdir", "mv", "rm", "sed",
         "sort", "tail", "touch", "tr", "wc"}
#: Programs a block may call by name: those on its PATH, shell builtins and keywords.
PROGRAMS = {"fmu3d", "python", "python3"} | TOOLS | {
    "cd", "echo", "export", "printf", "pwd", "read", "set", "test", "[", "true", "false",
    "unset", "for", "while", "if", "case", "done", "fi", "esac", "{", "}",
}
#: Paths under which `fmu3d` and `python` may be called as well.
PROGRAM_PATHS = {"target/release/fmu3d", ".venv/bin/python", ".venv/bin/python3"}
#: Words that make a command the test suite itself or a change of the environment.
FORBIDDEN_WORDS = {"pytest", "pip", "pip3"}
#: Seconds a block may take; the docs test as a whole should stay within a few seconds.
TIMEOUT = 30

MARKER = re.compile(r"^\s*<!--\s*not run:\s*(?P<reason>.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
EXIT_STATUS = re.compile(r"^\[exit status: (?P<status>\d+)\]$")
HEREDOC = re.compile(r"<<-?\s*(?P<quote>['\"]?)(?P<word>\w+)(?P=quote)")
#: A line of a text block that reads like a command to type.
COMMAND_LIKE = re.compile(
    r"^\s*(\$ |fmu3d |\./target/|\.venv/bin/|cargo |bash |python3? |scripts/)")


@dataclass
class Block:
    document: Path
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    marker: str | None  # the reason of a `not run` marker, or None
    marker_line: int | None

    @property
    def id(self):
        return f"{self.document.relative_to(REPOSITORY)}:{self.line}"


def parse(document):
    """The fenced code blocks of a Markdown file, and the problems of its markers."""
    lines = document.read_text(encoding="utf-8").splitlines()
    blocks, problems = [], []
    name = document.relative_to(REPOSITORY)
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            if lines[index].lstrip().startswith("<!--") and re.search(r"not[ _-]?run",
                                                                      lines[index]):
                if not MARKER.match(lines[index]) or not MARKER.match(lines[index]).group(
                        "reason"):
                    problems.append(f"{name}:{index + 1}: a `not run` marker must read "
                                    f"`<!-- not run: REASON -->` on a line of its own")
            index += 1
            continue
        indent, fence = opening.group("indent"), opening.group("fence")
        language = opening.group("info").strip().split(" ")[0].split(",")[0].lower()
        start = index
        body = []
        index += 1
        while index < len(lines):
            closing = lines[index].strip()
            if set(closing) == {fence[0]} and len(closing) >= len(fence):
                break
            line = lines[index]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            index += 1
        index += 1  # past the closing fence
        previous = start - 1
        while previous >= 0 and not lines[previous].strip():
            previous -= 1
        marker = MARKER.match(lines[previous]) if previous >= 0 else None
        blocks.append(Block(document, start + 1, language, "\n".join(body) + "\n",
                            marker.group("reason") if marker else None,
                            previous + 1 if marker else None))
    return blocks, problems


BLOCKS, MARKER_PROBLEMS = [], []
for _document in DOCUMENTS:
    _blocks, _problems = parse(_document)
    BLOCKS += _blocks
    MARKER_PROBLEMS += _problems
RUNNABLE_BLOCKS = [block for block in BLOCKS if block.language in RUNNABLE]
TEXT_BLOCKS = [block for block in BLOCKS if block.language not in RUNNABLE]


def logical_lines(text):
    """The command lines of shell text: here-document bodies left out, `\\` continuations
    joined, comments and empty lines dropped."""
    physical = text.splitlines()
    commands, index = [], 0
    while index < len(physical):
        line = physical[index]
        index += 1
        while line.endswith("\\") and index < len(physical):
            line = line[:-1] + " " + physical[index]
            index += 1
        heredoc = HEREDOC.search(line)
        if heredoc:
            while index < len(physical) and physical[index].strip() != heredoc.group("word"):
                index += 1
            index += 1
        if line.strip() and not line.lstrip().startswith("#"):
            commands.append(line)
    return commands


def programs(command_line):
    """The programs a shell command line calls: the first word of each simple command, also
    inside `$( )`, after environment assignments and redirections."""
    lexer = shlex.shlex(command_line, posix=True, punctuation_chars=True)
    lexer.whitespace = " \t\r"
    lexer.wordchars += "$~-./*=%,:+@^[]{}"
    try:
        tokens = list(lexer)
    except ValueError as error:  # an unclosed quote
        raise AssertionError(f"cannot read the shell line {command_line!r}: {error}") from None
    found, expect_command, skip_next = [], True, False
    for token in tokens:
        if skip_next:
            skip_next = False
            continue
        if token in {";", "&&", "||", "|", "&", "(", ")", "\n", "do", "then", "else", "!"}:
            expect_command = True
            continue
        if set(token) <= set("<>&") or re.fullmatch(r"\d*[<>]+&?", token):
            skip_next = True  # the target of a redirection
            continue
        if not expect_command:
            continue
        if re.fullmatch(r"[A-Za-z_]\w*=.*", token):
            if token.endswith("$"):  # NAME=$( ... ): the command follows the parenthesis
                expect_command = True
            continue
        found.append(token)
        expect_command = False
    return found


def refusal(block):
    """Why the suite will not run an (unmarked) block, or None."""
    if block.language in PYTHON:
        return None
    text = block.text
    if block.language in SESSION:
        text = "\n".join(command for command, _ in session(block.text))
    for line in logical_lines(text):
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        if any(word.split("/")[-1] in FORBIDDEN_WORDS for word in words):
            return f"`{line.strip()}` runs the test suite or changes the environment"
        for program in programs(line):
            allowed = (program in PROGRAMS and "/" not in program) or any(
                program.rstrip("/").endswith(path) for path in PROGRAM_PATHS)
            if not allowed:
                return f"`{line.strip()}` calls `{program}`, which the docs test does not run"
    return None


def session(text):
    """A console block as (command, expected output lines) pairs."""
    lines = text.splitlines()
    pairs, index = [], 0
    while index < len(lines) and not lines[index].startswith("$ "):
        if lines[index].strip():
            raise AssertionError(f"a console block starts with a `$ ` command, not "
                                 f"{lines[index]!r}")
        index += 1
    while index < len(lines):
        command = [lines[index][2:]]
        index += 1
        while command[-1].endswith("\\") and index < len(lines):
            command.append(lines[index])
            index += 1
        heredoc = HEREDOC.search(" ".join(command))
        if heredoc:
            while index < len(lines) and lines[index].strip() != heredoc.group("word"):
                command.append(lines[index])
                index += 1
            if index < len(lines):
                command.append(lines[index])
                index += 1
        output = []
        while index < len(lines) and not lines[index].startswith("$ "):
            output.append(lines[index])
            index += 1
        pairs.append(("\n".join(command), output))
    return pairs


def matches(expected, actual):
    """Whether the actual output lines fit the expected ones, with `[..]` and `...`."""
    pattern = ""
    for line in expected:
        if line.strip() == "...":
            pattern += r"(?:[^\n]*\n)*?"
        else:
            pattern += ".*?".join(map(re.escape, line.split("[..]"))) + r"\n"
    text = "".join(line + "\n" for line in actual)
    return re.fullmatch(pattern, text) is not None


def trimmed(lines):
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


@pytest.fixture
def workspace(tmp_path):
    """A folder that looks like the repository's root, and the environment to run blocks in."""
    fmu3d, runtime = RELEASE / "fmu3d", RELEASE / "libfmu_runtime.so"
    if not fmu3d.is_file() or not runtime.is_file():
        pytest.fail(f"{fmu3d} or {runtime} is missing: run "
                    "`cargo build --release -p fmu-runtime -p packager` first", pytrace=False)
    work = tmp_path / "repository"
    for folder in COPIED:
        shutil.copytree(REPOSITORY / folder, work / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.fmu", "*.csv"))
    (work / "target" / "release").mkdir(parents=True)
    for built in (fmu3d, runtime):
        (work / "target" / "release" / built.name).symlink_to(built)
    (work / ".venv").symlink_to(VENV)
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    (bin_folder / "fmu3d").symlink_to(fmu3d)
    for name in ("python", "python3"):
        (bin_folder / name).symlink_to(VENV / "bin" / "python")
    for tool in TOOLS:
        found = shutil.which(tool)
        if found:
            (bin_folder / tool).symlink_to(found)
    env = {key: value for key, value in os.environ.items()
           if key in {"HOME", "USER", "LOGNAME", "TMPDIR", "TERM"}}
    env.update(PATH=str(bin_folder), LC_ALL="C.UTF-8", PYTHONDONTWRITEBYTECODE="1",
               SOURCE_DATE_EPOCH="1700000000")
    return work, env


def run(program, source, work, env):
    """Runs a script file (stdin empty, stdout and stderr together) in its own process group,
    which a timeout ends as a whole: (exit status, output)."""
    script = work.parent / ("block.py" if program.endswith("python") else "block.sh")
    script.write_text(source, encoding="utf-8")
    arguments = [program, str(script)]
    if program == "/bin/bash":
        arguments[1:1] = ["--noprofile", "--norc"]
    process = subprocess.Popen(arguments, cwd=work, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"ran longer than {TIMEOUT} s: too long for the docs test; shorten the "
                    f"example or mark it `<!-- not run: REASON -->`", pytrace=False)
    return process.returncode, output


def run_session(block, work, env):
    pairs = session(block.text)
    script = "exec 2>&1\n" + "".join(f"{command}\nprintf '\\036%s\\036\\n' \"$?\"\n"
                                     for command, _ in pairs)
    _, output = run("/bin/bash", script, work, env)
    chunks = re.split(r"\x1e(\d+)\x1e\n", output)
    outputs = list(zip(chunks[0::2], chunks[1::2]))
    failures = []
    for number, (command, expected) in enumerate(pairs):
        if number >= len(outputs):
            failures.append(f"$ {command}\nnot run: the shell stopped before it:\n{chunks[-1]}")
            break
        output, status = outputs[number]
        expected = trimmed(expected)
        want_status = 0
        if expected and EXIT_STATUS.match(expected[-1]):
            want_status = int(EXIT_STATUS.match(expected[-1]).group("status"))
            expected = trimmed(expected[:-1])
        actual = trimmed(output.splitlines())
        problems = []
        if int(status) != want_status:
            problems.append(f"exit status {status}, documented {want_status}")
        if not matches(expected, actual):
            problems.append("the output differs")
        if problems:
            failures.append(f"$ {command}\n{', '.join(problems)}.\n--- documented:\n"
                            + "\n".join(expected) + "\n--- printed:\n" + "\n".join(actual))
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)


@pytest.mark.parametrize("block", RUNNABLE_BLOCKS, ids=lambda block: block.id)
def test_block(block, workspace):
    if block.marker is not None:
        pytest.skip(f"{block.id}: not run: {block.marker}")
    reason = refusal(block)
    if reason:
        pytest.fail(f"{reason}: mark the block with `<!-- not run: REASON -->` on the line "
                    f"before its opening fence, or change it", pytrace=False)
    work, env = workspace
    if block.language in SESSION:
        run_session(block, work, env)
        return
    if block.language in SCRIPT:
        status, output = run("/bin/bash", "set -eo pipefail\n" + block.text, work, env)
    else:
        status, output = run(str(VENV / "bin" / "python"), block.text, work, env)
    if status != 0:
        pytest.fail(f"the block failed (exit status {status}):\n{output}", pytrace=False)


def test_the_documents_have_blocks():
    """The parser finds the examples (an empty list would pass everything)."""
    run = [block.id for block in RUNNABLE_BLOCKS if block.marker is None]
    assert any(name.startswith("README.md:") for name in run), run
    assert any(name.startswith("docs/") for name in run), run


def test_markers_are_well_formed_and_placed():
    """A `not run` marker has a reason and stands just before a runnable block."""
    problems = list(MARKER_PROBLEMS)
    for document in DOCUMENTS:
        lines = document.read_text(encoding="utf-8").splitlines()
        used = {block.marker_line for block in BLOCKS
                if block.document == document and block.marker is not None}
        for number, line in enumerate(lines, start=1):
            if MARKER.match(line) and number not in used:
                problems.append(f"{document.relative_to(REPOSITORY)}:{number}: the marker "
                                f"is not just before a code block")
    problems += [f"{block.id}: a `not run` marker before a `{block.language or 'text'}` "
                 f"block, which is never run" for block in TEXT_BLOCKS if block.marker]
    problems += [f"{block.id}: a `not run` marker needs a reason" for block in BLOCKS
                 if block.marker == ""]
    assert not problems, "\n".join(problems)


def test_text_blocks_hold_no_commands():
    """A block without a runnable language holds no command line: a command to type is
    written in a ```sh or ```console block, so that it is run."""
    problems = [f"{block.id}: `{line.strip()}` looks like a command; put it in a ```sh or "
                f"```console block" for block in TEXT_BLOCKS
                for line in block.text.splitlines() if COMMAND_LIKE.match(line)]
    assert not problems, "\n".join(problems)
