"""The synthesizer's market events: funding rounds and their investors, IPO records, private-market offerings,
secondary marks and financials
(a part of ``synth._Synth``, which supplies the random generator, the tables and the id counters)."""

from __future__ import annotations

import datetime as dt
import math

from generator.synth.vocab import (
    _AS_OF,
    AS_OF,
    GROSS_MARGIN,
    ROUND_BASIS,
    SIDE_STAGES,
    STAGES,
    _iso,
    _money,
    _pick_table,
    _sig3,
)


class MarketEvents:
    def funding(self, company_id: int, status: str, founded: int, valuation: int | None,
                listing_date: int | None) -> list[tuple[int, int | None, int | None, str]]:
        """Draw the company's rounds; return (date, post-money, amount, stage) oldest first."""
        rng = self.rng
        size = valuation or 1e7 * rng.paretovariate(1.2)
        if status == "public":
            size /= rng.uniform(2, 20)  # market value has grown since the last private round
        count = max(0, round(math.log(max(size, 1e6) / 1e7) / math.log(2.8) + rng.uniform(-0.5, 1.5)))
        if status != "private":
            count = min(count, rng.randrange(0, 6))
        count = min(count, 14)
        if count == 0:
            return []
        start = max(dt.date(founded, 1, 1).toordinal() + rng.randrange(540), dt.date(1995, 1, 1).toordinal())
        end = listing_date - 60 if listing_date else _AS_OF - int(rng.expovariate(1 / 500))
        end = min(max(end, start), _AS_OF)
        dates = sorted(self.day(start, end) for _ in range(count))
        first_stage = 0 if rng.random() < 0.3 else 1 if rng.random() < 0.7 else 2
        rounds = []
        post_money = float(size) * rng.uniform(0.6, 1.0)
        stage_index = min(first_stage + count - 1, len(STAGES) - 1)
        for position in range(count - 1, -1, -1):  # newest first: post-money falls going back in time
            if rng.random() < 0.12:
                stage = rng.choice(SIDE_STAGES)
            else:
                stage = STAGES[max(0, stage_index)]
                stage_index -= 1
            small = 0.1 if stage in ("grant", "convertible-note") else 1.0
            amount = _sig3(post_money * rng.uniform(0.08, 0.25) * small)
            disclosed_post = _sig3(post_money) if rng.random() < 0.6 and stage not in ("debt", "grant") else None
            rounds.append((dates[position], disclosed_post, amount if rng.random() < 0.9 else None, stage))
            post_money /= rng.uniform(1.6, 3.5)
        rounds.reverse()
        basis_table = _pick_table(ROUND_BASIS)
        for date, post, amount, stage in rounds:
            round_id = self.next_id("funding_rounds")
            self.add("funding_rounds", id=round_id, company_id=company_id, stage=stage, announced_date=_iso(date),
                     amount_usd=amount, post_money_valuation_usd=post, basis=self.choose(basis_table))
            k = 1 + int(rng.expovariate(1 / (0.6 + 0.5 * min(STAGES.index(stage) if stage in STAGES else 2, 6))))
            self.round_slots.append((round_id, min(k, 15)))
        return rounds

    def deal_round_investors(self) -> None:
        """Give every round its investors: each investor at least once, the rest by portfolio weight."""
        rng = self.rng
        slots = [round_id for round_id, k in self.round_slots for _ in range(k)]
        picks = [self.investor() for _ in slots]
        investors = list(range(1, len(self.investor_cumulative) + 1))
        rng.shuffle(investors)
        positions = list(range(len(slots)))
        rng.shuffle(positions)
        for position, investor_id in zip(positions, investors, strict=False):
            picks[position] = investor_id
        by_round: dict[int, list[int]] = {}
        for round_id, investor_id in zip(slots, picks, strict=True):
            members = by_round.setdefault(round_id, [])
            for _ in range(5):
                if investor_id not in members:
                    members.append(investor_id)
                    break
                investor_id = self.investor()
        weights = self.investor_weights
        for round_id in sorted(by_round):
            members = by_round[round_id]
            lead = None
            if rng.random() < 0.85:  # the investor with the largest portfolio leads the round
                lead = max(members, key=lambda i: (weights[i - 1], i))
            for investor_id in sorted(members):
                self.add("round_investors", round_id=round_id, investor_id=investor_id,
                         is_lead="true" if investor_id == lead else "false")

    # -- companies ------------------------------------------------------------------------------------------------

    def listed_ipo(self, company_id, name, exchange, ticker, kind, listing_date, valuation, us_listed,
                   filings, news) -> None:
        rng = self.rng
        filed = listing_date - 30 - rng.randrange(120)
        low = rng.randrange(500, 4000) // 100 * 100
        high = low + rng.choice((100, 200, 200, 300, 500))
        priced = listing_date - (1 if rng.random() < 0.8 else 0)
        offer = shares = proceeds = first_close = None
        cap = valuation or _sig3(1e8 * rng.paretovariate(0.9))
        if kind == "ipo":
            offer = max(100, int(rng.uniform(low * 0.85, high * 1.2)))
            proceeds = _sig3(cap * rng.uniform(0.05, 0.2))
            shares = proceeds * 100 // offer
            first_close = max(1, int(offer * (1 + rng.gauss(0.15, 0.3))))
        elif kind == "direct-listing":
            first_close = rng.randrange(500, 10000)
        self.add("ipos", id=self.next_id("ipos"), company_id=company_id, status="listed", exchange=exchange,
                 ticker=ticker, listing_kind=kind, filed_date=_iso(filed),
                 priced_date=_iso(priced) if kind == "ipo" else None, listing_date=_iso(listing_date),
                 price_range_low_cents=low if kind == "ipo" else None,
                 price_range_high_cents=high if kind == "ipo" else None, offer_price_cents=offer,
                 shares_offered=shares, proceeds_usd=proceeds,
                 valuation_at_ipo_usd=_sig3(cap * rng.uniform(0.3, 1.2)) if rng.random() < 0.8 else None,
                 first_day_close_cents=first_close, basis="sec-filing" if us_listed else "exchange-data")
        exchange_name = self.exchange_names[exchange]
        if us_listed:
            foreign = rng.random() < 0.15
            if kind == "spac-merger":
                filings.append(("S-4", filed, "Registration statement for business combination"))
            else:
                filings.append(("F-1" if foreign else "S-1", filed, "Registration statement"))
                for _ in range(rng.randrange(3)):
                    filings.append(("F-1/A" if foreign else "S-1/A", self.day(filed, priced),
                                    "Amended registration statement"))
                if kind == "ipo":
                    filings.append(("424B4", priced, "Final prospectus"))
            first_year = dt.date.fromordinal(listing_date).year
            for year in range(max(first_year, AS_OF.year - 5), AS_OF.year):
                filings.append(("20-F" if foreign else "10-K", dt.date(year + 1, 2, 10).toordinal() + rng.randrange(50),
                                f"Annual report for fiscal {year}"))
            for _ in range(rng.randrange(3)):
                filings.append(("8-K", self.day(listing_date, _AS_OF), "Current report"))
        if kind == "spac-merger":
            news.append((filed, f"{name} to go public via SPAC merger", "spac;ipo"))
        else:
            news.append((filed, f"{name} files for IPO on {exchange_name}", "ipo;filing"))
        if offer:
            news.append((priced, f"{name} prices IPO at ${offer / 100:.2f} per share", "ipo;pricing"))
        news.append((listing_date, f"{name} shares begin trading on {exchange_name}", "ipo;listing"))

    def private_ipo(self, company_id, name, country, status, end, cik, filings, news) -> None:
        rng = self.rng
        homes = self.home_exchanges.get(country, [])
        exchange = rng.choice(homes) if homes and country != "us" and rng.random() < 0.5 else \
            self.choose(self.us_exchanges)
        row: dict[str, object] = {"exchange": exchange, "basis": "press-report"}
        announced = filed = None
        if status == "pipeline":
            announced = self.day(end - 540, end)
            row["exchange"] = None
        else:
            filed = self.day(end - (180 if status == "upcoming" else 1500), end)
            if rng.random() < 0.4:
                announced = filed - rng.randrange(30, 300)
            row["ticker"] = self.ticker(name, exchange)
            row["basis"] = "sec-filing" if exchange in ("nasdaq", "nyse", "nyse-american") else "press-report"
        row["announced_date"] = _iso(announced) if announced else None
        row["filed_date"] = _iso(filed) if filed else None
        news_date = announced if status == "pipeline" else filed
        if status == "upcoming":
            row["expected_date"] = _iso(_AS_OF + 1 + rng.randrange(90))  # after as_of: allowed
            low = rng.randrange(800, 3000) // 100 * 100
            row.update(price_range_low_cents=low, price_range_high_cents=low + 200,
                       shares_offered=rng.randrange(5, 60) * 1_000_000)
        elif status == "withdrawn":
            news_date = self.day(filed + 30, min(filed + 600, end))
            row["withdrawn_date"] = _iso(news_date)
        elif status == "postponed":
            news_date = self.day(filed + 20, min(filed + 400, end))
            row["postponed_date"] = _iso(news_date)
        self.add("ipos", id=self.next_id("ipos"), company_id=company_id, status=status, listing_kind="ipo", **row)
        if filed and row["basis"] == "sec-filing":
            if cik is None:
                return  # filings are only recorded for companies with a CIK
            if rng.random() < 0.5:
                filings.append(("DRS", filed - rng.randrange(30, 120), "Draft registration statement"))
            filings.append(("S-1", filed, "Registration statement"))
            if status == "withdrawn":
                filings.append(("RW", news_date, "Registration withdrawal request"))
        tags = {"pipeline": "ipo", "filed": "ipo;filing", "upcoming": "ipo;filing", "withdrawn": "ipo;withdrawal",
                "postponed": "ipo;withdrawal"}[status]
        verb = {"pipeline": "is preparing an IPO", "filed": "files for IPO", "upcoming": "sets terms for IPO",
                "withdrawn": "withdraws IPO filing", "postponed": "postpones IPO"}[status]
        news.append((news_date, f"{name} {verb}", tags))

    def offering(self, company_id, name, valuation, forced, news) -> None:
        rng = self.rng
        kind, status = forced or (
            rng.choice(("tender", "tender", "secondary", "secondary", "placement")),
            rng.choice(("closed", "closed", "closed", "closed", "announced", "open", "cancelled")),
        )
        announced = self.day(_AS_OF - 1460, _AS_OF)
        close = None
        if status == "closed":
            close = min(announced + rng.randrange(60), _AS_OF)
        elif status == "open":
            close = announced + 30 + rng.randrange(60)  # may lie after as_of: allowed
        implied = _sig3(valuation * rng.uniform(0.7, 1.3))
        amount = _sig3(min(implied * 0.2, 5e6 * rng.paretovariate(1.2)))
        self.add("offerings", id=self.next_id("offerings"), company_id=company_id, kind=kind, status=status,
                 announced_date=_iso(announced), close_date=_iso(close) if close else None,
                 price_per_share_cents=rng.randrange(100, 50000) if kind == "tender" and rng.random() < 0.7 else None,
                 amount_usd=amount if rng.random() < 0.8 else None, implied_valuation_usd=implied,
                 lead_investor_id=self.investor() if rng.random() < 0.4 else None,
                 description={"tender": "Employee tender offer", "secondary": "Secondary share sale",
                              "placement": "Private placement"}[kind],
                 basis=rng.choice(("press-report", "press-report", "company-report", "estimate")))
        if kind == "tender":
            news.append((announced, f"{name} tender offer values company at {_money(implied)}", "tender;valuation"))
        else:
            news.append((announced, f"{name} {kind} share sale values company at {_money(implied)}",
                         "secondary;valuation"))

    def secondary_prices(self, company_id: int, valuation: int) -> None:
        rng = self.rng
        year, month = AS_OF.year, AS_OF.month
        lag = int(rng.expovariate(1 / 3))
        months = 6 + int(rng.expovariate(1 / 10))
        index = year * 12 + month - 1 - min(lag, 12)
        value = math.log(valuation)
        points = []
        for step in range(min(months, 48)):
            points.append((index - step, _sig3(math.exp(value))))
            value -= rng.gauss(0.01, 0.08)
        for month_index, implied in reversed(points):
            self.add("secondary_prices", company_id=company_id,
                     month=f"{month_index // 12:04d}-{month_index % 12 + 1:02d}-01", implied_valuation_usd=implied,
                     basis="estimate")

    def financials(self, company_id, status, sector, valuation, listing_date, us_listed) -> None:
        rng = self.rng
        if status == "public":
            first = max(dt.date.fromordinal(listing_date).year - 2, AS_OF.year - 5)
            years = range(first, AS_OF.year)
            basis = "sec-filing" if us_listed else "company-report"
        elif status == "private" and valuation is not None and rng.random() < 0.2:
            years = range(AS_OF.year - rng.choice((1, 1, 2)), AS_OF.year)
            basis = "estimate"
        else:
            return
        revenue = (valuation or 1e8) / math.exp(rng.gauss(1.6, 0.6))
        series = []
        for year in reversed(years):
            series.append((year, revenue))
            revenue /= 1 + max(-0.4, rng.gauss(0.2, 0.2))
        margin = GROSS_MARGIN.get(sector, 0.5)
        for year, revenue in reversed(series):
            detailed = basis != "estimate"
            net = int(revenue * max(-2.0, min(0.4, rng.gauss(-0.05, 0.15)))) if detailed else None
            self.add("financials", company_id=company_id, fiscal_year=year, revenue_usd=_sig3(revenue),
                     net_income_usd=net,
                     operating_income_usd=int(net + revenue * rng.gauss(0.03, 0.04)) if net is not None else None,
                     gross_margin=f"{max(-1.0, min(0.95, rng.gauss(margin, 0.08))):.2f}" if detailed else None,
                     employees=int(revenue / rng.uniform(150_000, 600_000)) if rng.random() < 0.8 else None,
                     basis=basis)
