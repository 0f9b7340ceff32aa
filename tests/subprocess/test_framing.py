"""JsonFramer and repair_tail without processes: every split of every framing gives the same
objects; malformed input fails at the right moment with ProviderProtocolError."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lionagi.service import ProviderProtocolError
from lionagi.service._transport.subprocess import JsonFramer, repair_tail


def frame(blocks: list[bytes], **kw: Any) -> tuple[list[dict[str, Any]], str]:
    framer = JsonFramer(**kw)
    out: list[dict[str, Any]] = []
    for block in blocks:
        out.extend(framer.feed(block))
    out.extend(framer.close())
    return out, framer.tail


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
objects = st.lists(st.dictionaries(st.text(max_size=6), json_values, max_size=4), max_size=6)


@settings(max_examples=300, deadline=None)
@given(
    objs=objects,
    sep=st.sampled_from(["\n", "", " ", "\r\n", "\n\n", "\t"]),
    pretty=st.booleans(),
    cuts=st.lists(st.integers(min_value=0), max_size=12),
)
def test_any_split_of_any_framing_yields_the_same_objects(
    objs: list[dict[str, Any]], sep: str, pretty: bool, cuts: list[int]
) -> None:
    text = sep.join(json.dumps(o, ensure_ascii=False, indent=2 if pretty else None) for o in objs)
    data = (" \n" + text + sep).encode()
    out, tail = frame(split_at(data, cuts))
    assert out == objs
    assert tail == ""


def test_multibyte_character_split_between_blocks() -> None:
    data = json.dumps({"t": "✓é"}, ensure_ascii=False).encode() + b"\n"
    cut = data.index("✓".encode()) + 1
    assert frame([data[:cut], data[cut:]]) == ([{"t": "✓é"}], "")


def test_values_before_a_non_mapping_are_yielded_first() -> None:
    values = JsonFramer().feed(b'{"a":1}{"b":2}\n[1, 2]\n{"c":3}\n')
    assert next(values) == {"a": 1}
    assert next(values) == {"b": 2}
    with pytest.raises(ProviderProtocolError, match="expected a JSON object, got list"):
        next(values)


@pytest.mark.parametrize(
    ("data", "kind"), [(b"42\n", "int"), (b'"x"\n', "str"), (b"null\n", "NoneType")]
)
def test_scalars_are_protocol_errors(data: bytes, kind: str) -> None:
    with pytest.raises(ProviderProtocolError, match=f"got {kind}"):
        frame([data])


def test_a_malformed_complete_line_fails_at_once() -> None:
    framer = JsonFramer()
    with pytest.raises(ProviderProtocolError, match="malformed JSON"):
        list(framer.feed(b'not json\n{"a": 1}\n'))


def test_a_malformed_pretty_value_fails_once_its_line_is_complete() -> None:
    framer = JsonFramer()
    assert list(framer.feed(b'{\n  "a": 1\n')) == []  # may still continue
    with pytest.raises(ProviderProtocolError, match="malformed JSON"):
        list(framer.feed(b'  "b": 2\n}\n'))  # missing comma: can never become valid


def test_a_cut_without_newline_waits_for_more() -> None:
    framer = JsonFramer()
    assert list(framer.feed(b'{"a": tr')) == []
    assert list(framer.feed(b'ue}{"b"')) == [{"a": True}]
    assert list(framer.feed(b":2}")) == [{"b": 2}]


def test_incomplete_value_at_eof_is_the_tail() -> None:
    out, tail = frame([b'{"a":1}\n{"type":"result","text":"cut'])
    assert out == [{"a": 1}]
    assert tail == '{"type":"result","text":"cut'


def test_eof_inside_a_multibyte_character_marks_the_tail() -> None:
    data = '{"t":"✓'.encode()[:-1]
    _, tail = frame([data])
    assert tail.endswith("\ufffd")


def test_whitespace_only_stream_is_empty() -> None:
    assert frame([b" \n\r\n\t", b"\n"]) == ([], "")


def test_invalid_utf8_is_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match="UTF-8"):
        frame([b'{"a":"\xff"}\n'])


def test_runaway_value_is_bounded() -> None:
    framer = JsonFramer(max_value_chars=1000)
    for _ in range(9):
        assert list(framer.feed(b"x" * 100 if _ else b'{"a":"' + b"x" * 94)) == []
    with pytest.raises(ProviderProtocolError, match="exceeded 1000 characters"):
        list(framer.feed(b"x" * 101))


def test_one_huge_line_in_small_blocks() -> None:
    value = {"blob": "y" * 300_000, "n": list(range(1000))}
    data = json.dumps(value).encode() + b"\n"
    blocks = [data[i : i + 4096] for i in range(0, len(data), 4096)]
    assert frame(blocks) == ([value], "")


def test_concatenated_values_stream_without_any_newline() -> None:
    framer = JsonFramer()
    assert list(framer.feed(b'{"a":1}{"b"')) == [{"a": 1}]
    assert list(framer.feed(b":2}")) == [{"b": 2}]


def test_repair_tail_rules() -> None:
    assert repair_tail('{"a": 1', lambda t: {"a": 1}) == {"a": 1}
    with pytest.raises(ProviderProtocolError, match="ended inside a JSON value"):
        repair_tail('{"a": 1', None)
    with pytest.raises(ProviderProtocolError, match="could not turn into an object"):
        repair_tail('{"a": 1', lambda t: None)
    with pytest.raises(ProviderProtocolError, match="could not turn into an object"):
        repair_tail("[1", lambda t: [1])  # type: ignore[arg-type,return-value]

    def broken(tail: str) -> dict[str, Any]:
        raise ValueError("nope")

    with pytest.raises(ProviderProtocolError, match="repair failed") as info:
        repair_tail('{"a": 1', broken)
    assert isinstance(info.value.__cause__, ValueError)


def test_repair_with_json_repair_library() -> None:
    json_repair = pytest.importorskip("json_repair")
    tail = '{"type": "result", "result": "partial ans'
    repaired = repair_tail(tail, lambda t: json_repair.repair_json(t, return_objects=True))
    assert repaired["type"] == "result"


def test_error_excerpts_are_redacted() -> None:
    with pytest.raises(ProviderProtocolError) as info:
        frame([b"Authorization: Bearer abcdefghijklmnop1234\n"])
    assert "abcdefghijklmnop1234" not in str(info.value)
