"""The mapping table: how the sources' sectors, industries, countries and exchanges become canonical slugs.

Each vocabulary has its own table (``VOCABULARIES``); a value missing from its table is not guessed: the lookup
returns None, the record gets ``unclassified`` / ``xx`` (or no exchange), and the import report lists the value
with its count. README "Bring your own data" shows where to add a value.

Vocabularies: Yahoo-style sectors and industries (EDGAR-derived ``stock_sector_info.csv``), SIC codes (4-digit,
by range), Crunchbase 2013 ``category_code``, CB Insights and Maven unicorn industries, the Nasdaq screener's
sectors and industries, country names and ISO alpha-3 codes, and exchange names as the SEC and the Nasdaq calendar
write them.
"""

from __future__ import annotations

from generator.importers.reference import ALPHA3, COUNTRIES, COUNTRY_ALIASES

YAHOO_SECTORS = {
    "basic materials": "materials", "communication services": "media-entertainment",
    "consumer cyclical": "consumer-goods", "consumer defensive": "consumer-goods", "energy": "energy",
    "financial services": "financial-services", "financial": "financial-services", "healthcare": "healthcare",
    "industrials": "industrials", "real estate": "real-estate", "technology": "enterprise-software",
    "utilities": "utilities", "services": "professional-services",
}
"""Yahoo sector -> slug; used when the industry (below) says nothing more precise."""

YAHOO_INDUSTRIES = {
    "biotechnology": "biotech", "drug manufacturers—specialty & generic": "healthcare",
    "semiconductors": "semiconductors", "semiconductor equipment & materials": "semiconductors",
    "software—application": "enterprise-software", "software—infrastructure": "enterprise-software",
    "information technology services": "enterprise-software", "consumer electronics": "hardware",
    "computer hardware": "hardware", "communication equipment": "hardware",
    "electronic components": "hardware", "scientific & technical instruments": "hardware",
    "internet content & information": "consumer-internet", "internet retail": "e-commerce",
    "electronic gaming & multimedia": "media-entertainment", "entertainment": "media-entertainment",
    "telecom services": "telecom", "health information services": "health-tech",
    "auto manufacturers": "mobility", "auto parts": "mobility", "airlines": "travel", "lodging": "travel",
    "travel services": "travel", "resorts & casinos": "travel", "aerospace & defense": "space-defense",
    "credit services": "fintech", "solar": "climate-energy", "education & training services": "edtech",
    "shell companies": "blank-check", "restaurants": "consumer-services", "specialty retail": "consumer-services",
    "capital markets": "financial-services", "financial data & stock exchanges": "fintech",
    "trucking": "mobility", "railroads": "mobility", "integrated freight & logistics": "mobility",
}
"""Yahoo industry (lowercase) -> slug, for the industries a technology-minded API tells apart."""

CRUNCHBASE_CATEGORIES = {
    "advertising": "professional-services", "analytics": "enterprise-software", "automotive": "mobility",
    "biotech": "biotech", "cleantech": "climate-energy", "consulting": "professional-services",
    "design": "professional-services", "ecommerce": "e-commerce", "education": "edtech",
    "enterprise": "enterprise-software", "fashion": "consumer-goods", "finance": "fintech",
    "games_video": "media-entertainment", "government": "professional-services", "hardware": "hardware",
    "health": "health-tech", "hospitality": "travel", "legal": "professional-services",
    "local": "consumer-internet", "manufacturing": "industrials", "medical": "healthcare",
    "messaging": "consumer-internet", "mobile": "consumer-internet", "music": "media-entertainment",
    "nanotech": "materials", "network_hosting": "enterprise-software", "news": "media-entertainment",
    "nonprofit": "professional-services", "pets": "consumer-goods", "photo_video": "media-entertainment",
    "public_relations": "professional-services", "real_estate": "real-estate", "search": "consumer-internet",
    "security": "cybersecurity", "semiconductor": "semiconductors", "social": "consumer-internet",
    "software": "enterprise-software", "sports": "media-entertainment", "transportation": "mobility",
    "travel": "travel", "web": "consumer-internet",
}
"""Crunchbase ``category_code`` -> slug (``other`` and blank stay unclassified)."""

CBINSIGHTS_INDUSTRIES = {
    "enterprise tech": "enterprise-software", "financial services": "fintech", "insurance": "fintech",
    "consumer & retail": "consumer-goods", "industrials": "industrials",
    "healthcare & life sciences": "health-tech", "media & entertainment": "media-entertainment",
}
"""CB Insights unicorn industry -> slug. Unicorns in "Financial Services" are fintechs, not banks."""

MAVEN_INDUSTRIES = {
    "fintech": "fintech", "internet software & services": "enterprise-software",
    "e-commerce & direct-to-consumer": "e-commerce", "health": "health-tech",
    "artificial intelligence": "artificial-intelligence", "supply chain, logistics, & delivery": "mobility",
    "cybersecurity": "cybersecurity", "data management & analytics": "enterprise-software",
    "mobile & telecommunications": "consumer-internet", "hardware": "hardware",
    "auto & transportation": "mobility", "edtech": "edtech", "consumer & retail": "consumer-goods",
    "travel": "travel",
}
"""Maven Analytics unicorn industry (lowercase) -> slug (``Other`` stays unclassified)."""

NASDAQ_SECTORS = {
    "technology": "enterprise-software", "finance": "financial-services", "health care": "healthcare",
    "consumer discretionary": "consumer-goods", "consumer staples": "consumer-goods", "industrials": "industrials",
    "real estate": "real-estate", "energy": "energy", "utilities": "utilities", "basic materials": "materials",
    "telecommunications": "telecom",
}
"""Nasdaq screener sector -> slug, when the industry (below) says nothing more precise. ``Miscellaneous`` stays
unclassified. Nasdaq files some companies oddly (Airbnb under Finance, Visa under Consumer Discretionary): the
importer gives these only where no other source gave a sector."""

NASDAQ_INDUSTRIES = {
    "semiconductors": "semiconductors", "computer manufacturing": "hardware",
    "computer peripheral equipment": "hardware", "electronic components": "hardware",
    "computer communications equipment": "hardware",
    "radio and television broadcasting and communications equipment": "hardware",
    "consumer electronics/appliances": "hardware", "computer software: prepackaged software": "enterprise-software",
    "computer software: programming data processing": "enterprise-software", "edp services": "enterprise-software",
    "biotechnology: biological products (no diagnostic substances)": "biotech",
    "biotechnology: pharmaceutical preparations": "biotech", "biotechnology: commercial physical & biological resarch":
    "biotech", "biotechnology: in vitro & in vivo diagnostic substances": "biotech",
    "biotechnology: laboratory analytical instruments": "biotech", "pharmaceuticals and biotechnology": "biotech",
    "blank checks": "blank-check", "finance: consumer services": "fintech", "real estate": "real-estate",
    "real estate investment trusts": "real-estate", "homebuilding": "real-estate",
    "auto manufacturing": "mobility", "auto parts:o.e.m.": "mobility", "motor vehicles": "mobility",
    "railroads": "mobility", "trucking freight/courier services": "mobility",
    "air freight/delivery services": "mobility", "marine transportation": "mobility",
    "transportation services": "travel", "hotels/resorts": "travel",
    "aerospace": "space-defense", "military/government/technical": "space-defense", "restaurants": "consumer-services",
    "catalog/specialty distribution": "e-commerce", "department/specialty retail stores": "consumer-services",
    "other specialty stores": "consumer-services", "clothing/shoe/accessory stores": "consumer-services",
    "food chains": "consumer-services", "retail-drug stores and proprietary stores": "consumer-services",
    "services-misc. amusement & recreation": "media-entertainment", "movies/entertainment": "media-entertainment",
    "broadcasting": "media-entertainment", "cable & other pay television services": "telecom",
    "consumer electronics/video chains": "media-entertainment", "newspapers/magazines": "media-entertainment",
    "publishing": "media-entertainment", "advertising": "professional-services",
    "professional services": "professional-services", "major chemicals": "materials", "agricultural chemicals":
    "materials", "steel/iron ore": "materials", "precious metals": "materials", "metal mining": "materials",
    "oil & gas production": "energy", "integrated oil companies": "energy", "oilfield services/equipment": "energy",
    "electric utilities: central": "utilities", "water supply": "utilities", "power generation": "utilities",
    "major banks": "financial-services", "investment managers": "financial-services",
}
"""Nasdaq screener industry (lowercase) -> slug, for the industries that say more than their sector. Industries
Nasdaq files under several sectors (Telecommunications Equipment: carriers and equipment makers alike) are left to
the sector."""

SIC_RANGES: tuple[tuple[int, int, str], ...] = (
    (100, 999, "consumer-goods"), (1000, 1499, "materials"), (1311, 1389, "energy"),
    (1500, 1799, "industrials"), (2000, 2399, "consumer-goods"), (2400, 2799, "materials"),
    (2800, 2829, "materials"), (2830, 2836, "biotech"), (2840, 2899, "materials"), (2900, 2999, "energy"),
    (3000, 3569, "industrials"), (3570, 3579, "hardware"), (3580, 3659, "industrials"),
    (3660, 3669, "hardware"), (3670, 3679, "semiconductors"), (3680, 3699, "hardware"),
    (3700, 3719, "mobility"), (3720, 3729, "space-defense"), (3730, 3759, "mobility"),
    (3760, 3769, "space-defense"), (3800, 3840, "hardware"), (3841, 3851, "healthcare"),
    (3852, 3999, "consumer-goods"), (4000, 4499, "mobility"), (4500, 4599, "travel"), (4600, 4799, "mobility"),
    (4800, 4899, "telecom"), (4900, 4999, "utilities"), (5000, 5199, "industrials"),
    (5200, 5960, "consumer-services"), (5961, 5961, "e-commerce"), (5962, 5999, "consumer-services"),
    (6000, 6499, "financial-services"), (6500, 6599, "real-estate"), (6770, 6770, "blank-check"),
    (6600, 6799, "financial-services"), (7000, 7099, "travel"), (7200, 7369, "professional-services"),
    (7370, 7379, "enterprise-software"), (7380, 7799, "professional-services"),
    (7800, 7999, "media-entertainment"), (8000, 8099, "healthcare"), (8200, 8299, "edtech"),
    (8300, 8999, "professional-services"),
)
"""SIC code ranges -> slug; the narrowest range containing the code wins (EDGAR company records carry SIC)."""

SIC_NO_INDUSTRY = frozenset({"8880", "8888", "9995", "9999"})
"""EDGAR's SIC codes of filers with no industry: American Depositary Receipts, foreign governments,
non-operating establishments, not classified."""

_COUNTRY_NAMES = {name.lower(): code for code, (name, _) in COUNTRIES.items() if code != "xx"}

EXCHANGES = {
    "nasdaq": "nasdaq", "nasdaq capital": "nasdaq", "nasdaq global": "nasdaq",
    "nasdaq global select": "nasdaq", "nyse": "nyse", "nyse mkt": "nyse-american", "nyse american": "nyse-american",
    "amex": "nyse-american", "nyse arca": "nyse-arca", "otc": "otc", "cboe us": "cboe", "bats": "cboe",
}
"""Exchange as written by the SEC lists and the Nasdaq calendar (lowercase) -> exchange slug."""

VOCABULARIES = {
    "yahoo-sector": YAHOO_SECTORS, "yahoo-industry": YAHOO_INDUSTRIES, "crunchbase-category": CRUNCHBASE_CATEGORIES,
    "cbinsights-industry": CBINSIGHTS_INDUSTRIES, "maven-industry": MAVEN_INDUSTRIES, "exchange": EXCHANGES,
    "nasdaq-sector": NASDAQ_SECTORS, "nasdaq-industry": NASDAQ_INDUSTRIES,
}


class Mapper:
    """Looks values up and counts what did not map, per vocabulary (``unmapped[vocabulary][value]``)."""

    def __init__(self) -> None:
        self.unmapped: dict[str, dict[str, int]] = {}

    def miss(self, vocabulary: str, value: str) -> None:
        counts = self.unmapped.setdefault(vocabulary, {})
        counts[value] = counts.get(value, 0) + 1

    def lookup(self, vocabulary: str, value: str) -> str | None:
        key = value.strip().lower()
        found = VOCABULARIES[vocabulary].get(key)
        if found is None:
            self.miss(vocabulary, value.strip() or "(blank)")
        return found

    def sector(self, vocabulary: str, value: str) -> str | None:
        return self.lookup(vocabulary, value)

    def yahoo(self, sector: str, industry: str) -> str | None:
        found = YAHOO_INDUSTRIES.get(industry.strip().lower())
        return found if found is not None else self.lookup("yahoo-sector", sector)

    def nasdaq(self, sector: str, industry: str) -> str | None:
        """A Nasdaq screener row's sector: its industry where the table knows it, else its sector (a miss counted)."""
        found = NASDAQ_INDUSTRIES.get(industry.strip().lower())
        return found if found is not None else self.lookup("nasdaq-sector", sector)

    def sic(self, code: str) -> str | None:
        if code in SIC_NO_INDUSTRY:
            self.miss("sic", code)
            return None
        if code.isdigit():
            number = int(code)
            ranges = [r for r in SIC_RANGES if r[0] <= number <= r[1]]
            if ranges:
                return min(ranges, key=lambda r: r[1] - r[0])[2]
        self.miss("sic", code or "(blank)")
        return None

    def country(self, value: str) -> str | None:
        key = value.strip().lower()
        code = _COUNTRY_NAMES.get(key) or COUNTRY_ALIASES.get(key) or ALPHA3.get(value.strip().upper())
        if code is None:
            self.miss("country", value.strip() or "(blank)")
        return code

    def exchange(self, value: str) -> str | None:
        return self.lookup("exchange", value)
