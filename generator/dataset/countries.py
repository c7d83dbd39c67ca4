"""ISO 3166-1 countries the dataset knows: alpha-2 code (the canonical ``country`` slug), alpha-3 code, name and
region. The importers map sources' names and alpha-3 codes through it; the query front door accepts a country by
any of its codes or its name."""

from __future__ import annotations

_COUNTRY_TABLE = """
ae ARE United Arab Emirates|middle-east-africa
ar ARG Argentina|latin-america
at AUT Austria|europe
au AUS Australia|asia-pacific
be BEL Belgium|europe
bm BMU Bermuda|north-america
br BRA Brazil|latin-america
bs BHS Bahamas|north-america
ca CAN Canada|north-america
ch CHE Switzerland|europe
cl CHL Chile|latin-america
cn CHN China|asia-pacific
co COL Colombia|latin-america
cr CRI Costa Rica|latin-america
cy CYP Cyprus|europe
cz CZE Czech Republic|europe
de DEU Germany|europe
dk DNK Denmark|europe
ec ECU Ecuador|latin-america
ee EST Estonia|europe
eg EGY Egypt|middle-east-africa
es ESP Spain|europe
fi FIN Finland|europe
fr FRA France|europe
gb GBR United Kingdom|europe
gg GGY Guernsey|europe
gi GIB Gibraltar|europe
gr GRC Greece|europe
hk HKG Hong Kong|asia-pacific
hr HRV Croatia|europe
id IDN Indonesia|asia-pacific
ie IRL Ireland|europe
il ISR Israel|middle-east-africa
in IND India|asia-pacific
is ISL Iceland|europe
it ITA Italy|europe
je JEY Jersey|europe
jo JOR Jordan|middle-east-africa
jp JPN Japan|asia-pacific
kr KOR South Korea|asia-pacific
ky CYM Cayman Islands|north-america
kz KAZ Kazakhstan|asia-pacific
li LIE Liechtenstein|europe
lt LTU Lithuania|europe
lu LUX Luxembourg|europe
mc MCO Monaco|europe
mo MAC Macau|asia-pacific
mt MLT Malta|europe
mx MEX Mexico|latin-america
my MYS Malaysia|asia-pacific
ng NGA Nigeria|middle-east-africa
nl NLD Netherlands|europe
no NOR Norway|europe
nz NZL New Zealand|asia-pacific
pa PAN Panama|latin-america
pe PER Peru|latin-america
ph PHL Philippines|asia-pacific
pl POL Poland|europe
pt PRT Portugal|europe
ru RUS Russia|europe
sa SAU Saudi Arabia|middle-east-africa
sc SYC Seychelles|middle-east-africa
se SWE Sweden|europe
sg SGP Singapore|asia-pacific
sn SEN Senegal|middle-east-africa
th THA Thailand|asia-pacific
tr TUR Turkey|europe
tw TWN Taiwan|asia-pacific
us USA United States|north-america
uy URY Uruguay|latin-america
uz UZB Uzbekistan|asia-pacific
vg VGB British Virgin Islands|north-america
vn VNM Vietnam|asia-pacific
xx XXX Unknown|unknown
za ZAF South Africa|middle-east-africa
"""

COUNTRIES: dict[str, tuple[str, str]] = {}
"""ISO 3166-1 alpha-2 code -> (name, region). ``xx`` (user-assigned in ISO 3166) is "not reported"."""
ALPHA3: dict[str, str] = {}
"""ISO 3166-1 alpha-3 code -> alpha-2 (Crunchbase writes USA, GBR...)."""
for _line in _COUNTRY_TABLE.strip().splitlines():
    _code, _alpha3, _rest = _line.split(" ", 2)
    _name, _region = _rest.split("|")
    COUNTRIES[_code] = (_name, _region)
    ALPHA3[_alpha3] = _code
COUNTRY_ALIASES = {
    "usa": "us", "united states of america": "us", "uk": "gb", "england": "gb", "great britain": "gb",
    "britain": "gb", "uae": "ae", "korea, republic of": "kr", "republic of korea": "kr", "korea": "kr",
    "south korea": "kr", "czechia": "cz", "hong kong sar": "hk", "macao": "mo", "russian federation": "ru",
    "viet nam": "vn", "the netherlands": "nl", "holland": "nl", "the bahamas": "bs",
    "virgin islands, british": "vg", "turkiye": "tr", "taiwan, province of china": "tw",
}
"""Other names and codes in common use (lowercase) -> alpha-2: what sources write and people type (``UK`` is
reserved by ISO 3166 for the United Kingdom, not assigned)."""
