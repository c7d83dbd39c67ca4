"""What the synthesizer (``synth.py``) draws from: distributions, name parts, and small formatting helpers."""

from __future__ import annotations

import datetime as dt
import itertools
import math

AS_OF = dt.date(2025, 6, 30)
_AS_OF = AS_OF.toordinal()

SECTOR_WEIGHTS = {
    "enterprise-software": 18, "fintech": 14, "health-tech": 9, "consumer-internet": 9,
    "artificial-intelligence": 8, "e-commerce": 7, "biotech": 7, "hardware": 4, "cybersecurity": 4,
    "mobility": 4, "climate-energy": 4, "media-entertainment": 3, "edtech": 3, "crypto": 3, "consumer-goods": 3,
    "semiconductors": 2, "travel": 2, "space-defense": 1,
}
COUNTRY_WEIGHTS = {
    "us": 48, "cn": 9, "gb": 6, "in": 5, "de": 4, "fr": 3, "ca": 3, "il": 2.5, "sg": 2, "jp": 2, "kr": 2,
    "se": 1.5, "nl": 1.2, "br": 1.2, "au": 1.2, "ch": 1, "es": 1, "id": 0.8, "ie": 0.6, "fi": 0.5, "dk": 0.5,
}
"""Countries not named here weigh 0.3."""
US_EXCHANGES = (("nasdaq", 55), ("nyse", 40), ("nyse-american", 5))
NUMERIC_TICKER_DIGITS = {"hkex": 4, "tse": 4, "twse": 4, "krx": 6, "sse": 6, "szse": 6}
STATUS_WEIGHTS = (("public", 18), ("private", 67), ("acquired", 10), ("closed", 5))
LISTING_KINDS = (("ipo", 85), ("direct-listing", 4), ("spac-merger", 11))
PRIVATE_IPO_STATUSES = (("pipeline", 35), ("filed", 20), ("upcoming", 12), ("withdrawn", 15), ("postponed", 18))
INVESTOR_TYPES = (
    ("vc", 45), ("angel", 15), ("corporate", 8), ("growth", 6), ("accelerator", 5), ("private-equity", 5),
    ("family-office", 4), ("hedge-fund", 3), ("asset-manager", 3), ("crossover", 2), ("bank", 2), ("sovereign", 2),
)
INVESTOR_SUFFIX = {
    "vc": ("Ventures", "Capital", "Partners", "Venture Partners"), "growth": ("Growth", "Growth Partners"),
    "corporate": ("Corporate Ventures", "Ventures"), "sovereign": ("Investment Authority", "Sovereign Fund"),
    "crossover": ("Management", "Investors"), "private-equity": ("Equity Partners", "Private Equity"),
    "hedge-fund": ("Capital Management", "Fund"), "asset-manager": ("Asset Management", "Investments"),
    "accelerator": ("Accelerator", "Launchpad"), "bank": ("Bank",), "family-office": ("Family Office",),
}
STAGES = ("pre-seed", "seed", "series-a", "series-b", "series-c", "series-d", "series-e", "series-f", "series-g",
          "series-h", "series-i", "series-j")
SIDE_STAGES = ("debt", "convertible-note", "grant", "corporate", "undisclosed", "growth", "private-equity")
ROUND_BASIS = (("press-report", 70), ("company-report", 15), ("sec-filing", 10), ("estimate", 5))
NAME_SUFFIX = {
    "artificial-intelligence": ("AI", "Labs", "Intelligence"), "biotech": ("Bio", "Therapeutics", "Biosciences"),
    "climate-energy": ("Energy", "Power", "Climate"), "consumer-goods": ("Brands", "Goods", "Foods"),
    "consumer-internet": ("App", "Social"), "crypto": ("Chain", "Protocol", "Exchange"),
    "cybersecurity": ("Security", "Shield", "Defense"), "e-commerce": ("Market", "Shop", "Commerce"),
    "edtech": ("Learning", "Academy", "Education"), "enterprise-software": ("Software", "Cloud", "Systems", "Data"),
    "fintech": ("Pay", "Financial", "Bank", "Capital"), "hardware": ("Devices", "Robotics", "Instruments"),
    "health-tech": ("Health", "Care", "Medical"), "media-entertainment": ("Media", "Games", "Studios"),
    "mobility": ("Motors", "Mobility", "Logistics"), "semiconductors": ("Semiconductor", "Micro", "Silicon"),
    "space-defense": ("Space", "Aerospace", "Orbital"), "travel": ("Travel", "Trips", "Stays"),
}
GENERIC_SUFFIX = ("Labs", "Technologies", "Group", "Inc", "Works", "Networks")
GROSS_MARGIN = {"enterprise-software": 0.75, "cybersecurity": 0.75, "consumer-internet": 0.6, "fintech": 0.55,
                "hardware": 0.35, "consumer-goods": 0.4, "mobility": 0.2, "semiconductors": 0.5, "e-commerce": 0.4}
CITIES = {
    "us": ("San Francisco", "New York", "Austin", "Boston", "Seattle", "Los Angeles", "Palo Alto", "Chicago"),
    "cn": ("Beijing", "Shanghai", "Shenzhen", "Hangzhou"), "gb": ("London", "Cambridge", "Manchester"),
    "in": ("Bengaluru", "Mumbai", "Gurugram"), "de": ("Berlin", "Munich", "Hamburg"), "fr": ("Paris", "Lyon"),
    "ca": ("Toronto", "Vancouver", "Montreal"), "il": ("Tel Aviv", "Haifa"), "jp": ("Tokyo", "Osaka"),
    "kr": ("Seoul",), "br": ("Sao Paulo",), "au": ("Sydney", "Melbourne"), "se": ("Stockholm",),
}
"""Other countries get their capital-less default: no city (null)."""
PUBLISHERS = ("Market Wire", "The Daily Ledger", "Tech Dispatch", "Capital Journal", "Venture Report",
              "Global Business Review", "Deal Street", "The Listing Desk")

# --- names -------------------------------------------------------------------------------------------------------

_ONSETS = ("b", "br", "c", "cl", "d", "dr", "f", "fl", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p", "pr",
           "qu", "r", "s", "st", "sk", "t", "tr", "v", "w", "z", "")
_NUCLEI = ("a", "e", "i", "o", "u", "ai", "ea", "io", "ou", "y")
SYLLABLES = tuple(o + n for o in _ONSETS for n in _NUCLEI)
"""Open syllables; only a word's last syllable may close with a coda, which keeps names pronounceable."""
CODAS = ("", "", "", "n", "r", "s", "x", "l", "m", "t", "k", "nd", "st")


def _pick_table(pairs: tuple[tuple[str, float], ...]) -> tuple[list[str], list[float]]:
    values = [v for v, _ in pairs]
    return values, list(itertools.accumulate(w for _, w in pairs))


def _iso(ordinal: int) -> str:
    return dt.date.fromordinal(ordinal).isoformat()


def _sig3(value: float) -> int:
    """Round to three significant digits, as reported figures are."""
    if value < 1000:
        return max(1, int(value))
    scale = 10 ** (int(math.log10(value)) - 2)
    return int(round(value / scale)) * scale


def _money(usd: int) -> str:
    if usd >= 1_000_000_000:
        return f"${usd / 1e9:.1f} billion"
    if usd >= 1_000_000:
        return f"${usd / 1e6:.0f} million"
    return f"${usd:,}"
