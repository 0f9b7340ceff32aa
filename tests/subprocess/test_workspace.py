"""Workspace and file-field containment: checked before launch, errors name the field."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lionagi.service import AgenticRequestValidationError
from lionagi.service._transport.subprocess import contained_path, resolve_workspace


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "file.txt").write_text("x")
    (tmp_path / "outside").mkdir()
    return root


def test_absent_repo_is_the_current_directory(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    assert resolve_workspace(None, None) == repo.resolve()
    assert resolve_workspace(None, "sub") == (repo / "sub").resolve()


@pytest.mark.parametrize("workspace", [None, ""])
def test_empty_workspace_is_the_repo(repo: Path, workspace: str | None) -> None:
    assert resolve_workspace(repo, workspace) == repo.resolve()


def test_relative_workspace_inside(repo: Path) -> None:
    assert resolve_workspace(repo, "sub/deeper") == (repo / "sub" / "deeper").resolve()
    assert resolve_workspace(str(repo), "./sub") == (repo / "sub").resolve()


@pytest.mark.parametrize(
    "workspace",
    ["/etc", "//server/share", "C:\\Windows", "\\\\server\\share", "~", "~/x"],
)
def test_absolute_workspace_is_rejected(repo: Path, workspace: str) -> None:
    with pytest.raises(AgenticRequestValidationError, match="absolute") as info:
        resolve_workspace(repo, workspace)
    assert info.value.field == "workspace"


@pytest.mark.parametrize("workspace", ["..", "../outside", "sub/../../outside", "sub/../sub"])
def test_lexical_traversal_is_rejected_even_if_it_lands_inside(repo: Path, workspace: str) -> None:
    with pytest.raises(AgenticRequestValidationError, match=r"'\.\.'") as info:
        resolve_workspace(repo, workspace)
    assert info.value.field == "workspace"


def test_symlink_escape_is_rejected(repo: Path) -> None:
    (repo / "escape").symlink_to(repo.parent / "outside", target_is_directory=True)
    with pytest.raises(AgenticRequestValidationError, match="outside the repository") as info:
        resolve_workspace(repo, "escape")
    assert info.value.field == "workspace"


def test_symlink_inside_is_allowed(repo: Path) -> None:
    (repo / "alias").symlink_to(repo / "sub", target_is_directory=True)
    assert resolve_workspace(repo, "alias") == (repo / "sub").resolve()


def test_repo_behind_a_symlink_still_contains_its_children(repo: Path) -> None:
    link = repo.parent / "repo-link"
    link.symlink_to(repo, target_is_directory=True)
    assert resolve_workspace(link, "sub") == (repo / "sub").resolve()


def test_missing_or_file_workspace_is_rejected(repo: Path) -> None:
    with pytest.raises(AgenticRequestValidationError, match="does not exist"):
        resolve_workspace(repo, "nope")
    with pytest.raises(AgenticRequestValidationError, match="not a directory"):
        resolve_workspace(repo, "file.txt")


def test_missing_repo_names_repo(tmp_path: Path) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        resolve_workspace(tmp_path / "absent", None)
    assert info.value.field == "repo"
    # The directory may come from elsewhere (a deployment's cwd): the error names that origin.
    for workspace in (None, "sub"):
        with pytest.raises(AgenticRequestValidationError) as info:
            resolve_workspace(tmp_path / "absent", workspace, repo_field="cwd")
        assert info.value.field == "cwd"


def test_symlink_loop_is_rejected(repo: Path) -> None:
    (repo / "loop").symlink_to(repo / "loop")
    with pytest.raises(AgenticRequestValidationError):
        contained_path(repo, "loop/x", field="files")


def test_symlink_loop_is_rejected_where_lenient_resolve_keeps_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python 3.13's non-strict resolve() returns a path with the loop left in instead of
    # raising; CI runs 3.11, so model that here and check the loop is still refused.
    resolve = Path.resolve

    def lenient(self: Path, strict: bool = False) -> Path:
        return resolve(self, strict=True) if strict else Path(os.path.abspath(self))

    monkeypatch.setattr(Path, "resolve", lenient)
    (repo / "loop").symlink_to(repo / "loop")
    with pytest.raises(AgenticRequestValidationError, match="cannot be resolved") as info:
        contained_path(repo, "loop/x", field="files")
    assert info.value.field == "files"
    # A path that does not exist yet is still accepted.
    assert contained_path(repo, "new/file.md", field="files") == repo / "new/file.md"


def test_contained_path_for_file_fields(repo: Path) -> None:
    assert contained_path(repo, "file.txt", field="files") == (repo / "file.txt").resolve()
    assert contained_path(repo, "new/file.md", field="files") == (repo / "new/file.md").resolve()
    with pytest.raises(AgenticRequestValidationError, match="does not exist") as info:
        contained_path(repo, "new/file.md", field="attachments", must_exist=True)
    assert info.value.field == "attachments"
    for bad in ["/etc/passwd", "../x", "", "a\x00b"]:
        with pytest.raises(AgenticRequestValidationError) as info:
            contained_path(repo, bad, field="files")
        assert info.value.field == "files"
    (repo / "leak").symlink_to(repo.parent / "outside")
    with pytest.raises(AgenticRequestValidationError, match="symlink"):
        contained_path(repo, "leak/secret.txt", field="files")
    assert os.fspath(contained_path(repo, Path("sub"), field="files")).endswith("sub")
