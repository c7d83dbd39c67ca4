"""Reference rows the importers may need: every canonical sector, country and exchange slug they map onto.

A canonical folder gets the rows its records point at (and keeps the ones it already has). The first rows of each
table are those of the embedded dataset; the rest were added for real-world sources (broad sectors for
non-technology companies, more countries, US venues). ``unclassified`` and the country ``xx`` stand for "the source
did not say, or said something the mapping table does not know"; the import report counts them.
"""

from __future__ import annotations

from generator.dataset.countries import ALPHA3, COUNTRIES, COUNTRY_ALIASES  # noqa: F401  (re-exported: the ISO table is the dataset's)

SECTORS: dict[str, tuple[str, str]] = {
    'artificial-intelligence': (
        'Artificial Intelligence',
        'Foundation models, AI infrastructure and AI-first applications',
    ),
    'biotech': ('Biotech', 'Drug discovery, therapeutics and life-science tools'),
    'climate-energy': ('Climate & Energy', 'Renewable energy, batteries, electric power and climate technology'),
    'consumer-goods': ('Consumer Goods', 'Consumer brands and products sold direct or at retail'),
    'consumer-internet': ('Consumer Internet', 'Social, marketplaces, delivery and consumer apps'),
    'crypto': ('Crypto & Blockchain', 'Exchanges, stablecoins, wallets and blockchain infrastructure'),
    'cybersecurity': ('Cybersecurity', 'Security software and services'),
    'e-commerce': ('E-commerce', 'Online retail and commerce platforms'),
    'edtech': ('Education Technology', 'Online learning and education software'),
    'enterprise-software': ('Enterprise Software', 'Business software, cloud platforms and developer tools'),
    'fintech': ('Fintech', 'Payments, neobanks, lending, insurance technology and trading'),
    'hardware': ('Hardware & Devices', 'Consumer and industrial hardware, robotics and devices'),
    'health-tech': ('Health Tech', 'Digital health, telehealth and healthcare software and services'),
    'media-entertainment': ('Media & Entertainment', 'Streaming, gaming, music and content platforms'),
    'mobility': ('Mobility & Transportation', 'Ride-hailing, electric vehicles, autonomous driving and logistics'),
    'semiconductors': ('Semiconductors', 'Chip design, manufacturing and semiconductor equipment'),
    'space-defense': ('Space & Defense', 'Launch, satellites and defense technology'),
    'travel': ('Travel & Hospitality', 'Travel booking, lodging and hospitality platforms'),
    'financial-services': (
        'Financial Services',
        'Banks, asset managers, insurers, exchanges and other financial services',
    ),
    'healthcare': ('Healthcare', 'Healthcare providers, pharmaceuticals, medical devices and services'),
    'industrials': ('Industrials', 'Manufacturing, construction, aerospace, business services and transport equipment'),
    'energy': ('Energy', 'Oil, gas, coal and other energy production'),
    'utilities': ('Utilities', 'Electric, gas and water utilities'),
    'real-estate': ('Real Estate', 'Real-estate developers, operators and REITs'),
    'materials': ('Materials', 'Chemicals, metals, mining, paper and other basic materials'),
    'telecom': ('Telecommunications', 'Telecom carriers, networks and communication services'),
    'consumer-services': ('Consumer Services', 'Restaurants, retail stores, leisure and other consumer services'),
    'professional-services': (
        'Professional Services',
        'Consulting, legal, advertising, staffing and other business services',
    ),
    'blank-check': ('Blank Check (SPAC)', 'Special-purpose acquisition companies and other shell companies'),
    'unclassified': (
        'Unclassified',
        'The source gave no sector, or one the mapping table does not know (see the import report)',
    ),
}
"""slug -> (name, description)."""

EXCHANGES: dict[str, tuple[str, str, str]] = {
    'asx': ('Australian Securities Exchange', 'au', 'XASX'),
    'b3': ('B3 (Brasil Bolsa Balcao)', 'br', 'BVMF'),
    'bse': ('BSE (Bombay Stock Exchange)', 'in', 'XBOM'),
    'euronext-amsterdam': ('Euronext Amsterdam', 'nl', 'XAMS'),
    'euronext-paris': ('Euronext Paris', 'fr', 'XPAR'),
    'frankfurt': ('Frankfurt Stock Exchange (Xetra)', 'de', 'XETR'),
    'hkex': ('Hong Kong Stock Exchange', 'hk', 'XHKG'),
    'krx': ('Korea Exchange', 'kr', 'XKRX'),
    'lse': ('London Stock Exchange', 'gb', 'XLON'),
    'nasdaq': ('Nasdaq', 'us', 'XNAS'),
    'nasdaq-stockholm': ('Nasdaq Stockholm', 'se', 'XSTO'),
    'nse': ('National Stock Exchange of India', 'in', 'XNSE'),
    'nyse': ('New York Stock Exchange', 'us', 'XNYS'),
    'nyse-american': ('NYSE American', 'us', 'XASE'),
    'sgx': ('Singapore Exchange', 'sg', 'XSES'),
    'six': ('SIX Swiss Exchange', 'ch', 'XSWX'),
    'sse': ('Shanghai Stock Exchange', 'cn', 'XSHG'),
    'szse': ('Shenzhen Stock Exchange', 'cn', 'XSHE'),
    'tadawul': ('Saudi Exchange (Tadawul)', 'sa', 'XSAU'),
    'tse': ('Tokyo Stock Exchange', 'jp', 'XJPX'),
    'tsx': ('Toronto Stock Exchange', 'ca', 'XTSE'),
    'twse': ('Taiwan Stock Exchange', 'tw', 'XTAI'),
    'cboe': ('Cboe BZX Exchange', 'us', 'BATS'),
    'nyse-arca': ('NYSE Arca', 'us', 'ARCX'),
    'otc': ('OTC Markets', 'us', 'OTCM'),
    'us-not-reported': ('US market (exchange not reported by the source)', 'us', ''),
}
"""slug -> (name, country, MIC or '')."""

UNKNOWN_COUNTRY = "xx"
UNCLASSIFIED = "unclassified"
EXCHANGE_NOT_REPORTED = "us-not-reported"
