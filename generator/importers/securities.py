"""What an exchange's name for a listed security says: which kind of security it is, and the name of its issuer.

Exchange lists (the Nasdaq screener) have one row per security, named as the exchange names it: ``Apple Inc.
Common Stock``, ``Alphabet Inc. Class C Capital Stock``, ``Arbor Realty Trust 6.375% Series D Cumulative Redeemable
Preferred Stock``, ``Artius II Acquisition Inc. Units``. Only a company's equity (common stock, a share class,
ordinary shares, depositary shares of a foreign company, a partnership's or trust's units) stands for a company;
warrants, SPAC units, rights, preferreds and notes are securities *of* a company and never name one. ``kind``
tells them apart from the symbol and the name, ``issuer`` cuts the security's words off the name.

The rules were worked out on the 6,928 rows of the screener download of 2025-05-23 (``../shared/data``): see
``tests/test_nasdaq_screener.py`` for the cases that fixed each one.
"""

from __future__ import annotations

import re

from generator.importers.base import clean, display_name
from generator.importers.reference import COUNTRIES

EQUITY = "equity"
WARRANT = "warrant"
UNIT = "unit"
RIGHT = "right"
PREFERRED = "preferred"
NOTE = "note"
KINDS = (EQUITY, WARRANT, UNIT, RIGHT, PREFERRED, NOTE)

_ADS = re.compile(r"\b(American|Global) Deposi?tary\b|\b(American|Global) Depository\b|\bADS\b|\bADRs?\b|"
                  r"\bNY Registry\b|\bNew York Registry\b", re.I)
"""A foreign company's depositary shares: its equity, whatever they represent (even a unit or preferred shares)."""
_WARRANT = re.compile(r"\bwarrants?\b|\bADWs?\b", re.I)
"""A warrant, or an American depositary warrant (``Polestar ... Class C-1 ADS (ADW)``)."""
_RIGHT = re.compile(r"\brights?\b[.\s]*$|\bvalue rights?\b", re.I)
"""A right at the end of the name (``... Acquisition Corp. Rights``), or a contingent value right; ``the right to
receive`` inside a depositary share's description is not one."""
_NOTE = re.compile(r"\bnotes?\b|\bdebentures?\b|\bbonds\b|\bZONES\b|\bdue\s+(?:[A-Z][a-z]+\s+\d{1,2},?\s+)?\d{4}\b",
                   re.I)
_PREFERRED = re.compile(r"\bpreferred\b|\bpreference\b|\bpfd\b|\bdeposi?tary\b|\bdepository\b|\bdep shs\b|"
                        r"\d%|\bcapital trust [IVX]+$|\btrust preferred\b", re.I)
"""A preferred series by its name: preferred or preference shares, a bank's depositary shares of a preferred (the
ADS of a foreign company are matched first), a fixed rate (``5.50% Series A``), a capital trust's securities."""
_EQUITY_UNITS = re.compile(r"\b(common|partnership|beneficial|limited partners?'?)\s+units?\b|\bunits? of beneficial\b|"
                           r"\b(L\.?P\.?|partners|trust|class [A-Z])\s+units?\b|\bunits? representing\b", re.I)
"""Units that are a partnership's or trust's equity (``Common Units representing Limited Partner Interests``)."""
_UNIT = re.compile(r"\bunits?\b", re.I)
_COMMON = re.compile(r"\b(common|ordinary) (stock|shares?)\b|\bcapital stock\b", re.I)
_PREFERRED_SHARES = re.compile(r"\b(preferred|preference) (stock|shares?|units?)\b", re.I)
"""A name that calls the security common stock is equity unless it calls it preferred stock too: ``Bank Nova Scotia
Halifax Pfd 3 Ordinary Shares`` is the bank's common stock, ``Nuveen Preferred Securities & Income Opportunities Fund
Common Shares`` a fund's."""

_SECURITY_WORDS = re.compile(
    r"(?:\s|(?<=[a-z]\.))(?:Class [A-Z]\b|Series [A-Z0-9]\b|Common\b|COMMONSTOCK\b|Cmn Shs\b|Pfd\b|"
    r"Ordinary Shares?\b|Ordinary shs\b|Capital Stock\b|(?:American|Global) Deposi?tary\b|"
    r"(?:American|Global) Depository\b|ADS\b|ADRs?\b|Deposi?tary Shares?\b|Depository Shares?\b|NY Registry\b|"
    r"New York Registry\b|Shares? of Beneficial\b|Units? of Beneficial\b|Beneficial Unit\b|Beneficial Interests?\b|"
    r"Limited Partnership\b|Subordinate Voting\b|Voting (?:Ordinary|Common|Shares?)\b|Voting Shares?\b|"
    r"Non-Voting\b|Units?\b|Shares?\b|Warrants?\b|Rights?\b|\(each\b)",
    re.I)
"""Where the security's description starts: the issuer's name is what comes before the first of these."""
_TAIL = re.compile(r"\s*\(([^()]*)\)\s*$")
_MARKERS = frozenset({"the", "reit", "new", "holding co", "holding company", "hc", "d/b/a", "publ", "cda"}
                     | {name.lower() for name, _ in COUNTRIES.values()})
"""Trailing parentheses that mark a country or a form, not the issuer (``(Canada)``, ``(The)``, ``(REIT)``). A US
state stays, as EDGAR keeps it: it tells apart issuers of one name (``First Bancorp Inc (ME)``)."""
_RENAMED = re.compile(r"^(name to be changed|formerly)\b", re.I)
_DBA = re.compile(r"^(?:D/B/A|DBA)\s+", re.I)
"""``D/B/A Compass Diversified Holdings``, ``DBA Sempra``: the name the issuer does business as follows."""
_NEW = re.compile(r"\s+New$")


def kind(symbol: str, name: str) -> str:
    """The kind of security a row of an exchange list is, from its symbol and name (``KINDS``)."""
    symbol, name = symbol.strip().upper(), clean(name)
    if "^" in symbol:  # Nasdaq's symbol for a preferred series (ABR^D), and for the units and notes of one
        return PREFERRED
    if symbol.endswith("/WS") or _WARRANT.search(name):
        return WARRANT
    if _ADS.search(name):
        return EQUITY
    if _RIGHT.search(name):
        return RIGHT
    if _COMMON.search(name) and not _PREFERRED_SHARES.search(name):
        return EQUITY
    if _NOTE.search(name):
        return NOTE
    if _PREFERRED.search(name):
        return PREFERRED
    if _UNIT.search(name) and not _EQUITY_UNITS.search(name):
        return UNIT
    return EQUITY


def _halves(name: str) -> str:
    """A name written twice (``STARWOOD PROPERTY TRUST INC. Starwood Property Trust Inc.``) once, in the half that
    is not all capitals."""
    words = name.split()
    half = len(words) // 2
    if len(words) % 2 == 0 and half and [w.lower() for w in words[:half]] == [w.lower() for w in words[half:]]:
        first, second = " ".join(words[:half]), " ".join(words[half:])
        return second if first.isupper() and not second.isupper() else first
    return name


def issuer(name: str) -> str:
    """The issuer's name in a security's name: ``Alphabet Inc. Class C Capital Stock`` -> ``Alphabet Inc.``,
    ``Boeing Company (The) Common Stock`` -> ``Boeing Company``; '' when the name is only a security's.

    A trailing parenthesis that names a country, ``The`` or ``REIT`` goes; any other stays, since it tells apart
    issuers of one name (``First Bancorp Inc (ME)``, ``Nuveen ... Fund (MA)``)."""
    text = clean(name)
    match = _SECURITY_WORDS.search(text)
    if match:
        text = text[:match.start()]
    text = _DBA.sub("", text.strip(" ,;:-"))
    text = _NEW.sub("", _halves(text[:-1] if text.endswith(").") else text))
    while (tail := _TAIL.search(text)) and (tail.group(1).strip().lower() in _MARKERS or _RENAMED.match(tail.group(1))):
        text = _NEW.sub("", text[:tail.start()].strip(" ,;:-"))
    return display_name(text) if len(text.split()) > 1 else text


def issuer_key(name: str) -> str:
    """The issuer's name as share classes of one issuer spell it alike (case and punctuation aside); unlike
    ``identity.normalise`` it keeps legal forms, which tell ``Graham Holdings Company`` from ``Graham Corporation``."""
    return " ".join(re.findall(r"[a-z0-9]+", name.lower()))


def related(a: str, b: str) -> bool:
    """Whether two symbols can be classes of one issuer's stock: one is the other with a class added (``GOOG`` and
    ``GOOGL``, ``Z`` and ``ZG``, ``HEI`` and ``HEI-A``, ``FAT`` and ``FATBB``) or with its last letter changed
    (``BRK-A`` and ``BRK-B``, ``LBRDA`` and ``LBRDK``); ``FBNC`` and ``FBP`` (two First Bancorps) are not."""
    short, long = sorted((a, b), key=len)
    if len(short) == len(long):
        return len(short) > 1 and short[:-1] == long[:-1] and short != long
    return long.startswith(short) and len(long) - len(short) <= 2
