"""PostgreSQL's string constants (manual, 4.1.2) as the standard ones sqlglot reads with the same value.

Escape strings (`E'\\t'`), Unicode strings (`U&'d\\0061t'`, with `UESCAPE`), bit strings (`B'101'`, and
`X'1F'`, which PostgreSQL reads as one) and constants continued over lines (`'foo'` newline `'bar'`, the
`quotecontinue` rule of PostgreSQL's lexer) are rewritten by PostgreSQL's own rules: sqlglot keeps escape
and Unicode strings as nodes it writes for no other dialect, decodes some escapes unlike PostgreSQL, and
joins two constants side by side on one line, which PostgreSQL refuses. Checked against a PostgreSQL 15
server (`tests/dbimport/test_ddl_pg_constants.py`).
"""

from __future__ import annotations

import re


class ConstantProblem(ValueError):
    """Why PostgreSQL would refuse a constant of the text."""


_PG_WORD = re.compile(r"[A-Za-z0-9_$\x80-\U0010ffff]+")
_PG_DOLLAR = re.compile(r"\$(?:[A-Za-z_\x80-\U0010ffff][A-Za-z0-9_\x80-\U0010ffff]*)?\$")
_PG_SPACE = re.compile(r"(?:[ \t\n\r\f]+|--[^\n\r]*)*")
_PG_CONTINUED = re.compile(r"(?:[ \t\f]|--[^\n\r]*)*[\n\r](?:[ \t\n\r\f]+|--[^\n\r]*[\n\r])*'")
"""What joins two string constants into one (`quotecontinue` in PostgreSQL's scan.l): white space holding a
line break, line comments allowed, then the next piece's quote. `'foo' 'bar'` on one line is a syntax error."""
_PG_BODY = {"": re.compile(r"(?:[^']|'')*'"), "E": re.compile(r"(?:[^'\\]|''|\\.)*'", re.DOTALL)}
_PG_STARTS = re.compile(r"'|[eEbBxXnN]'|[uU]&'")
_PG_UESCAPE = re.compile(r"UESCAPE(?![A-Za-z0-9_$\x80-\U0010ffff])", re.IGNORECASE)
_PG_DIGITS = {"B": frozenset("01"), "X": frozenset("0123456789abcdefABCDEF")}


def pg_constants(source: str) -> str:
    """PostgreSQL SQL with each string constant rewritten as the one sqlglot reads with PostgreSQL's value:
    an escape string (`E'\\t'`), a Unicode string (`U&'d\\0061t'`, `UESCAPE '!'`) and the pieces of a
    constant continued over lines (`'foo'` newline `'bar'`) become the standard constant of their text
    (`'dat'`, `'foobar'`), and a hex bit string (`X'1F'`) the binary one of its bits (`B'00011111'`).
    sqlglot keeps escape and Unicode strings as nodes it writes for no other dialect, decodes some escapes
    unlike PostgreSQL, and joins two constants side by side on one line, which PostgreSQL refuses.
    Names, comments and dollar-quoted text are passed over as they are."""
    out: list[str] = []
    pos = 0
    while pos < len(source):
        start, ch = pos, source[pos]
        prefix = ""
        if ch in "\"$" or source.startswith(("--", "/*"), pos):
            pos = _pg_skipped(source, pos)
        elif ch.isascii() and not (ch.isalnum() or ch == "_") and ch != "'":
            pos += 1
        elif ch != "'":
            match = _PG_WORD.match(source, pos)
            assert match is not None
            pos = match.end()
            word = match.group()
            if len(word) == 1 and word in "eEbBxXnN" and source.startswith("'", pos):
                prefix = word.upper()
            elif word in ("u", "U") and source.startswith("&'", pos):
                prefix, pos = "U&", pos + 1
        if pos == start or prefix:  # a string constant starts at `pos`
            text, pos = _pg_constant(source, pos, prefix)
            after = _pg_space(source, pos)
            if _PG_STARTS.match(source, after):
                raise ConstantProblem("two string constants side by side, which PostgreSQL joins only when a line "
                                     "break parts them")
            out.append(text)
        else:
            out.append(source[start:pos])
    return "".join(out)


def _pg_skipped(source: str, pos: int) -> int:
    """Where a quoted name, a comment or a dollar-quoted string that starts at `pos` ends (`pos + 1` for a
    `$` that starts none); the parse that follows says what is wrong with an unterminated one."""
    if source.startswith("--", pos):
        ends = [i for i in (source.find("\n", pos), source.find("\r", pos)) if i >= 0]
        return min(ends, default=len(source))
    if source.startswith("/*", pos):
        depth, pos = 1, pos + 2
        while depth and pos < len(source):
            if source.startswith("/*", pos):
                depth, pos = depth + 1, pos + 2
            elif source.startswith("*/", pos):
                depth, pos = depth - 1, pos + 2
            else:
                pos += 1
        return pos
    if source[pos] == '"':
        end = source.find('"', pos + 1)
        return len(source) if end < 0 else end + 1
    tag = _PG_DOLLAR.match(source, pos)
    if tag is None:
        return pos + 1
    end = source.find(tag.group(), tag.end())
    return len(source) if end < 0 else end + len(tag.group())


def _pg_space(source: str, pos: int) -> int:
    """`pos` past white space and comments."""
    while True:
        space = _PG_SPACE.match(source, pos)
        pos = space.end() if space else pos
        if not source.startswith("/*", pos):
            return pos
        pos = _pg_skipped(source, pos)


def _pg_constant(source: str, pos: int, prefix: str) -> tuple[str, int]:
    """The constant whose (first) quote is at `pos` as sqlglot should read it, and where it ends."""
    value, pos = _pg_value(source, pos, prefix)
    if prefix == "U&":
        escape = "\\"
        uescape = _PG_UESCAPE.match(source, _pg_space(source, pos))
        if uescape:
            after = _pg_space(source, uescape.end())
            quoted = "E" if source[after:after + 2] in ("E'", "e'") else ""
            if not source.startswith("'", after + len(quoted)):
                raise ConstantProblem("UESCAPE without its escape character")
            escape, pos = _pg_value(source, after + len(quoted), quoted)
            if len(escape) != 1 or escape in "0123456789abcdefABCDEF+'\" \t\n\r\f":
                raise ConstantProblem(f"UESCAPE {escape!r}, which is no escape character PostgreSQL takes")
        value = _unicode_string_text(value, escape)
    if prefix in _PG_DIGITS:
        wrong = next((d for d in value if d not in _PG_DIGITS[prefix]), None)
        if wrong is not None:
            kind = "binary" if prefix == "B" else "hexadecimal"
            raise ConstantProblem(f"{wrong!r} is not a {kind} digit, which PostgreSQL refuses in {prefix}'{value}'")
        bits = value if prefix == "B" else "".join(f"{int(d, 16):04b}" for d in value)
        return f"B'{bits}'", pos
    return ("N" if prefix == "N" else "") + "'" + value.replace("'", "''") + "'", pos


def _pg_value(source: str, pos: int, prefix: str) -> tuple[str, int]:
    """The value of the constant whose first quote is at `pos`, its pieces joined, and where it ends: the
    text of a string (a Unicode string's still with its escapes), the digits of a bit string."""
    bodies: list[str] = []
    while True:
        body = _PG_BODY["E" if prefix == "E" else ""].match(source, pos + 1)
        if body is None:
            raise ConstantProblem("not one SQL expression (a string constant is not closed)")
        bodies.append(body.group()[:-1])
        pos = body.end()
        more = _PG_CONTINUED.match(source, pos)
        if more is None:
            break
        pos = more.end() - 1
    if prefix == "E":
        return _escape_string_text(bodies), pos
    return "".join(bodies).replace("''", "'"), pos


_PG_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))|''|[^\\']+",
                        re.DOTALL)
_PG_LETTER_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_PG_UNICODE_ESCAPE = re.compile(r"\+([0-9A-Fa-f]{6})|([0-9A-Fa-f]{4})")


def _escape_string_text(bodies: list[str]) -> str:
    """The text of PostgreSQL's `E'body'` (manual, 4.1.2.2), continued over `bodies`: `\\b \\f \\n \\r \\t`,
    octal and hex byte values, `\\uXXXX` and `\\UXXXXXXXX` code points (a surrogate pair as two `\\u`, in one
    piece), `''` and `\\'` for a quote, any other escaped character as itself. Each piece is decoded alone
    (`E'\\1'` newline `'23'` is byte 1 then `23`); the bytes must be UTF-8 without NUL, as a UTF8 database
    requires."""
    out = bytearray()
    for body in bodies:
        out += _escape_string_bytes(body)
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError:
        raise ConstantProblem("an escape string whose bytes are not UTF-8, which PostgreSQL refuses") from None
    if "\x00" in text:
        raise ConstantProblem("an escape string holding a NUL character, which PostgreSQL refuses")
    return text


def _escape_string_bytes(body: str) -> bytes:
    out = bytearray()
    pairing = _Surrogates("an escape string")
    pos = 0
    while pos < len(body):
        match = _PG_ESCAPE.match(body, pos)
        if match is None:
            raise ConstantProblem("an escape string PostgreSQL would not read")
        octal, hexa, short, long, other = match.groups()
        code = int(short or long, 16) if short or long else None
        pairing.check(code)
        if code is not None:
            out += pairing.joined(code)
        elif octal is not None:
            out.append(int(octal, 8) & 0xFF)
        elif hexa is not None:
            out.append(int(hexa, 16))
        elif other is not None:
            if other in "uU":
                raise ConstantProblem(f"an escape string with a short \\{other} escape, which PostgreSQL refuses")
            out += _PG_LETTER_ESCAPES.get(other, other).encode()
        else:
            out += b"'" if match.group() == "''" else match.group().encode()
        pos = match.end()
    pairing.check(None)
    return bytes(out)


def _unicode_string_text(value: str, escape: str) -> str:
    """The text of PostgreSQL's `U&'value'` (manual, 4.1.2.3): the escape character then four hex digits, or
    `+` and six, is a code point (a surrogate pair as two); the escape character twice is itself."""
    out = bytearray()
    pairing = _Surrogates("a Unicode string")
    pos = 0
    while pos < len(value):
        at = value.find(escape, pos)
        if at < 0:
            at = len(value)
        if at > pos:
            pairing.check(None)
            out += value[pos:at].encode()
            pos = at
            continue
        if value.startswith(escape, at + 1):
            pairing.check(None)
            out += escape.encode()
            pos = at + 2
            continue
        match = _PG_UNICODE_ESCAPE.match(value, at + 1)
        if match is None:
            raise ConstantProblem(f"a Unicode string with an invalid escape at {value[at:at + 8]!r}, which "
                                 "PostgreSQL refuses")
        code = int(match.group(1) or match.group(2), 16)
        pairing.check(code)
        out += pairing.joined(code)
        pos = match.end()
    pairing.check(None)
    text = out.decode("utf-8")
    if "\x00" in text:
        raise ConstantProblem("a Unicode string holding a NUL character, which PostgreSQL refuses")
    return text


class _Surrogates:
    """The code points of one string's escapes, with PostgreSQL's rules: a high surrogate must be followed
    at once by a low one (the two are one character); none is alone, nor 0, nor past U+10FFFF."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.high: int | None = None

    def check(self, code: int | None) -> None:
        """Refuse what follows a high surrogate unless it is the low one (`code` None: not an escape)."""
        if self.high is not None and (code is None or not 0xDC00 <= code <= 0xDFFF):
            raise ConstantProblem(f"{self.what} with half a Unicode surrogate pair, which PostgreSQL refuses")

    def joined(self, code: int) -> bytes:
        """The UTF-8 of the escape's character: none yet for a high surrogate, the pair's for a low one."""
        if self.high is not None:
            code, self.high = 0x10000 + ((self.high - 0xD800) << 10) + (code - 0xDC00), None
        elif 0xD800 <= code <= 0xDBFF:
            self.high = code
            return b""
        if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise ConstantProblem(f"{self.what} with the Unicode escape value {code:X}, which PostgreSQL refuses")
        return chr(code).encode()
