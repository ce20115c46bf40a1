"""Spark's text patterns in Python: a LIKE pattern as a regular expression, a Java regular expression (RLIKE,
`regexp_replace`) as a Python one, Java's way of finding its matches one after another, and a Java
replacement string (`regexp_replace`) as literal pieces and group numbers."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache

from engine.sql.errors import SqlRuntimeError, UnsupportedSql

_TERMINATORS = r"\n\r\x85\u2028\u2029"
"""Java's line terminators (without UNIX_LINES), as the text of a class."""
_DOT = rf"[^{_TERMINATORS}]"
"""Java's `.`: any character but a line terminator (Python's `.` stops at `\\n` only)."""
_DOT_ALL = r"(?s:.)"
_END = rf"(?:(?=(?:\r\n|[{_TERMINATORS}])?\Z)(?!(?<=\r)\n))"
"""Java's `$` (and `\\Z`): the end, or before a last line terminator (`\\r\\n` one), never inside `\\r\\n`."""
_LINE_END = rf"(?:(?=[{_TERMINATORS}]|\Z)(?!(?<=\r)\n))"
"""Java's `$` under MULTILINE: before any line terminator, or at the end; never inside `\\r\\n`."""
_LINE_START = r"(?:(?!\Z)(?:\A|(?<=[\n\x85\u2028\u2029])|(?<=\r)(?!\n)))"
"""Java's `^` under MULTILINE: at the start or after a line terminator, never inside `\\r\\n`, never at
the end (not even of empty text)."""
_VERTICAL = r"\n\x0b\f\r\x85\u2028\u2029"
"""Java's `\\v`, vertical whitespace (Python's `\\v` is the one character `\\x0b`)."""
_QUANTIFIER = re.compile(r"\{\d+(?:,\d*)?\}", re.ASCII)
_FLAG_GROUP = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])")
_OCTAL = re.compile(r"[0-7]{1,3}")
_BRACED = "pPxN"  # `\p{L}`, `\x{263a}`, `\N{name}`: the braces belong to the escape


class _Refused(ValueError):
    """A construct whose Java meaning the translation does not carry over to Python."""


def compiled_regex(pattern: str, after_cr: bool = False, text: str = "") -> re.Pattern[str]:
    """A compiled RLIKE or regexp_replace pattern (`java_regex`); one that does not compile (from a column,
    say), or that uses what the reference does not translate, fails the run in one line. Java's `\\w`, `\\d`,
    `\\s` and `(?i)` are ASCII's unless a pattern asks otherwise, and Python's Unicode's: compiled ASCII,
    `été` is no `^\\w+$` on either side. `after_cr`: for text that a `\\r` precedes (see `java_regex`).
    `text`, the text it is for, decides how far a word boundary looks back over combining marks
    (`_boundary`); without it, as far as none."""
    marks = _longest_mark_run(text) if "\\b" in pattern or "\\B" in pattern else 0
    return _compiled(pattern, after_cr, marks)


@lru_cache(maxsize=256)
def _compiled(pattern: str, after_cr: bool, marks: int) -> re.Pattern[str]:
    try:
        return re.compile(java_regex(pattern, after_cr, marks), re.ASCII)
    except (re.error, ValueError) as exc:
        shown = pattern if len(pattern) <= 60 else f"{pattern[:57]}..."
        raise UnsupportedSql(f"invalid regular expression {shown!r}: {exc}") from None


def java_regex(pattern: str, after_cr: bool = False, marks: int = 0) -> str:
    """A Java regular expression (Spark's RLIKE and regexp_*) as a Python one of the same matches, walked one
    character at a time, outside and inside character classes (where `.`, `$` and `^` are literal):

    - `.` is any character but a line terminator (`\\n`, `\\r`, `\\u0085`, `\\u2028`, `\\u2029`), or any
      character under DOTALL (`(?s)`);
    - `$` is the end or before a last line terminator (`\\r\\n` counts as one), and under MULTILINE (`(?m)`)
      before any line terminator; `^` under MULTILINE is the start or after a line terminator, but never
      at the end of the text; `\\Z` is `$` without MULTILINE, `\\z` the very end (Python's `\\Z`), `\\v`
      vertical whitespace;
    - the flags `(?s)`, `(?m)`, `(?i)` (and `(?-s)`..., `(?s:...)`) hold from where they are to the end of
      their group, alternatives after a `|` included, as in Java: `s` and `m` are applied here, `i` becomes a
      scoped `(?i:...)` around what follows in the group;
    - `\\Q...\\E` is quoted text, `\\0` takes up to three octal digits (`\\0101` is `A`);
    - `\\b` and `\\B` are Java 17's word boundaries (`_boundary`): its word characters are Unicode letters
      and digits and `_`, and a combining mark after one, where `\\w` is ASCII's (`éb` has no boundary
      before `b`); `marks` is the longest run of combining marks the text has.

    Refused (`_Refused`), where Java and Python read the same text differently, or only one of them reads
    it: a class within a class (`[a[b]]`, `[[:alpha:]]`) and an intersection (`&&`), the flags `x`, `d`,
    `u`, `U`, `c` (and Python's own), `(?P...)`, `(?#...)` and Python's other `(?` extensions, a `{` that
    begins no quantifier, a quantifier right after a flag group, `\\Q` or a back reference in a class, and a
    back reference followed by a digit (Java and Python take different numbers of digits). What Python
    cannot compile (Java's named groups, `\\h`, `\\R`...) is refused by the compilation.

    `after_cr` is for a `regexp_replace` from a position that a `\\r` precedes: Spark's matcher has the text
    from there on as its region, but its `$` still looks before it, and is no end between `\\r` and `\\n`.
    Not translated: Java's matcher walks UTF-16 units, so an empty match (`\\B`, `x*`, a lookaround) may fall
    between the two halves of a character beyond U+FFFF, which Spark then writes as `?` (`\\B` in `𝐀b`);
    Python's text has no such position."""
    end, line_end = (rf"(?:(?!\A\n){_END})", rf"(?:(?!\A\n){_LINE_END})") if after_cr else (_END, _LINE_END)
    out: list[str] = []
    saved: list[tuple[frozenset[str], bool, int]] = []  # the state outside each open group
    flags: frozenset[str] = frozenset()  # "s", "m" in effect
    caseless, wrapped = False, 0  # (?i) in effect; the (?i:/(?-i: opened in the current group
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i = _escape(pattern, i, out, end, marks)
            continue
        if char == "[":
            i = _char_class(pattern, i, out)
            continue
        if char == "(":
            flag_group = _FLAG_GROUP.match(pattern, i)
            if flag_group is not None:
                on, off = flag_group[1], flag_group[2] or ""
                unknown = sorted(set(on + off) - {"i", "s", "m"})
                if unknown:
                    raise _Refused(f"the inline flag {unknown[0]!r} is not translated")
                changed = frozenset(f for f in "sm" if f in on) | flags
                changed -= frozenset(f for f in "sm" if f in off)
                case = "i" in on or "i" in off
                now_caseless = ("i" in on and "i" not in off) if case else caseless
                i = flag_group.end()
                if flag_group[3] == ")":  # from here to the end of the group
                    if pattern[i:i + 1] in ("*", "+", "?", "{"):
                        raise _Refused("a quantifier right after a flag group (Java: dangling, or a literal '{')")
                    flags, caseless = changed, now_caseless
                    if case:
                        out.append("(?i:" if caseless else "(?-i:")
                        wrapped += 1
                else:  # (?flags:...): a group of its own
                    saved.append((flags, caseless, wrapped))
                    flags, caseless, wrapped = changed, now_caseless, 0
                    out.append(f"(?{'i' if 'i' in on else ''}{'-i' if 'i' in off else ''}:")
                continue
            opener = next((o for o in ("(?=", "(?!", "(?>", "(?<=", "(?<!", "(") if pattern.startswith(o, i)), "")
            if opener == "(" and pattern.startswith("(?", i):
                raise _Refused(f"the group {pattern[i:i + 3]!r}... is not Java's (or not translated)")
            saved.append((flags, caseless, wrapped))
            wrapped = 0
            out.append(opener)
            i += len(opener)
            continue
        if char == ")":
            out.append(")" * wrapped + ")")
            if saved:
                flags, caseless, wrapped = saved.pop()
            i += 1
            continue
        if char == "|":
            out.append(")" * wrapped + "|" + (("(?i:" if caseless else "(?-i:") if wrapped else ""))
            wrapped = min(wrapped, 1)
        elif char == ".":
            out.append(_DOT_ALL if "s" in flags else _DOT)
        elif char == "$":
            out.append(line_end if "m" in flags else end)
        elif char == "^":
            out.append(_LINE_START if "m" in flags else "^")
        elif char == "{":
            quantifier = _QUANTIFIER.match(pattern, i)
            if quantifier is None:
                raise _Refused("a '{' that begins no quantifier (Java: an illegal repetition)")
            out.append(quantifier[0])
            i = quantifier.end()
            continue
        else:
            out.append(char)
        i += 1
    out.append(")" * wrapped)
    return "".join(out)


def _escape(pattern: str, i: int, out: list[str], end: str | None, marks: int = 0) -> int:
    """The escape at `i` (a backslash) as Python reads Java's, in a class where `end` (Java's `\\Z`) is None;
    the index after it."""
    in_class = end is None
    code = pattern[i + 1:i + 2]
    if code == "Q":
        if in_class:
            raise _Refused("\\Q...\\E in a class is not translated")
        close = pattern.find("\\E", i + 2)
        close = len(pattern) if close < 0 else close
        out.append(re.escape(pattern[i + 2:close]))
        return min(close + 2, len(pattern))
    if code == "0":
        octal = _OCTAL.match(pattern, i + 2)
        if octal is None:
            raise _Refused("a \\0 without octal digits (Java: an illegal octal escape)")
        digits = octal[0] if len(octal[0]) < 3 or octal[0] <= "377" else octal[0][:2]
        out.append(f"\\x{int(digits, 8):02x}")
        return i + 2 + len(digits)
    if code and code in "123456789" and (in_class or pattern[i + 2:i + 3] in tuple("0123456789")):
        raise _Refused("a back reference in a class, or followed by a digit (Java and Python read it apart)")
    if code in ("b", "B"):
        if in_class:  # Java: an illegal escape; Python: a backspace
            raise _Refused("\\b or \\B in a class (Java refuses it)")
        out.append(_boundary(marks, negated=code == "B"))
    elif code == "v":
        out.append(_VERTICAL if in_class else f"[{_VERTICAL}]")
    elif code == "z" and not in_class:
        out.append(r"\Z")
    elif code == "Z" and end is not None:
        out.append(end)
    elif code and code in _BRACED and pattern[i + 2:i + 3] == "{" and "}" in pattern[i + 3:]:
        close = pattern.index("}", i + 3) + 1
        out.append(pattern[i:close])
        return close
    else:
        out.append(pattern[i:i + 2])  # a last lone backslash stays, and Python refuses it
    return i + 2


def _char_class(pattern: str, i: int, out: list[str]) -> int:
    """The class opening at `i`, where `.`, `$` and `^` (but the first) are literal; the index after it."""
    out.append("[")
    i += 1
    if pattern[i:i + 1] == "^":
        out.append("^")
        i += 1
    if pattern[i:i + 1] == "]":  # a first `]` is literal, in Java as in Python
        out.append(r"\]")
        i += 1
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i = _escape(pattern, i, out, None)
            continue
        if char == "[":
            raise _Refused("a class within a class (Java's union; Python's literal '[')")
        if pattern.startswith("&&", i):
            raise _Refused("a class intersection '&&' (Java's; Python's literal '&')")
        out.append(char)
        i += 1
        if char == "]":
            return i
    return i  # unterminated: Python refuses it


def _boundary(marks: int, negated: bool) -> str:
    """Java 17's `\\b` (`\\B` negated), `Pattern.Bound`: a word character on one side of the position and none
    on the other, where a word character is a letter or a decimal digit (`Character.isLetterOrDigit`) or
    `_`, or a non-spacing mark whose run of marks follows a letter or digit (`hasBaseCharacter`), never
    looking before the matcher's region. Python's own `\\b` follows `\\w`, ASCII's here. A lookbehind has a
    fixed width, so one is written for each length of a run of marks up to `marks`, the longest the text
    has: exact for that text. Python's Unicode is 14.0 and Java 17's 13.0; a letter new in 14.0 is a word
    character here only."""
    word, base, mark = _word_classes()
    after_base = "".join(f"|(?<={base}{mark}{{{n}}})" for n in range(1, marks + 1))
    left = f"(?:(?<={word}){after_base})"
    right = f"(?:(?={word})|(?={mark})(?:(?<={base}){after_base}))" if marks else f"(?={word})"
    return f"(?:{left}{right}|(?!{left})(?!{right}))" if negated else f"(?:{left}(?!{right})|(?!{left}){right})"


@lru_cache(maxsize=1)
def _word_classes() -> tuple[str, str, str]:
    """Java's word character, its letter or digit, and its non-spacing mark, as Python classes: Python's
    Unicode `\\w` is `str.isalnum()` and `_`, so Java's is that without the Nl and No numbers (`½`, `Ⅻ`, `²`)."""
    numbers, marks = [], []
    for point in range(0x110000):
        char = chr(point)
        category = unicodedata.category(char)
        if category == "Mn":
            marks.append(point)
        elif category in ("Nl", "No") and char.isalnum():
            numbers.append(point)
    others = _ranges(numbers)
    return f"(?u:[^\\W{others}])", f"(?u:[^\\W_{others}])", f"[{_ranges(marks)}]"


def _ranges(points: list[int]) -> str:
    """Sorted code points as the ranges of a class, each as `\\U` escapes."""
    out, i = [], 0
    while i < len(points):
        j = i
        while j + 1 < len(points) and points[j + 1] == points[j] + 1:
            j += 1
        out.append(f"\\U{points[i]:08x}" + (f"-\\U{points[j]:08x}" if j > i else ""))
        i = j + 1
    return "".join(out)


def _longest_mark_run(text: str) -> int:
    """The longest run of non-spacing marks in `text`, rounded up to a power of two (fewer compiled forms)."""
    if text.isascii():
        return 0
    longest = run = 0
    for char in text:
        run = run + 1 if unicodedata.category(char) == "Mn" else 0
        longest = max(longest, run)
    return 0 if longest == 0 else 1 << (longest - 1).bit_length()


def java_matches(regex: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """The matches Java's `Matcher.find` gives one after another: each search starts where the last match
    ended, one character further after an empty match. (Python's `finditer` and `sub` also try a longer
    match at the place of an empty one: `regexp_replace('ab', '|a', '-')` is `-a-b-`, not `---b-`.)"""
    found: list[re.Match[str]] = []
    position = 0
    while position <= len(text):
        match = regex.search(text, position)
        if match is None:
            break
        found.append(match)
        position = match.end() + (match.end() == match.start())
    return found


def like_regex(pattern: str) -> str:
    """A LIKE pattern as a regex: `%` any text, `_` one character, a backslash escapes the next one."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if char == "%" else "." if char == "_" else re.escape(char))
        i += 1
    return "".join(out)


def java_replacement(text: str, groups: int, names: Mapping[str, int]) -> list[str | int]:
    """A Java replacement string as literal pieces and group numbers; what Java's `appendReplacement` refuses
    (a `$` naming no group, a last backslash) is Spark's INVALID_REGEXP_REPLACE, an error of the row."""
    pieces: list[str | int] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            if i + 1 == len(text):  # Java: "character to be escaped is missing"
                raise SqlRuntimeError("regexp_replace: the replacement ends in a backslash that quotes nothing")
            pieces.append(text[i + 1])
            i += 2
        elif char == "$" and text[i + 1:i + 2] == "{" and "}" in text[i + 2:]:
            name = text[i + 2:text.index("}", i + 2)]
            if name not in names:
                raise SqlRuntimeError(f"regexp_replace: no group named {name!r}")
            pieces.append(names[name])
            i += len(name) + 3
        elif char == "$" and text[i + 1:i + 2].isdigit():
            number, i = int(text[i + 1]), i + 2
            while i < len(text) and text[i].isdigit() and number * 10 + int(text[i]) <= groups:
                number, i = number * 10 + int(text[i]), i + 1
            if number > groups:
                raise SqlRuntimeError(f"regexp_replace: no group {number}")
            pieces.append(number)
        elif char == "$":
            raise SqlRuntimeError("regexp_replace: a $ in the replacement names no group")
        else:
            pieces.append(char)
            i += 1
    return pieces
