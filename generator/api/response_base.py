"""What every response model shares: the base class, the month type and the descriptions used in several models."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

Month = Annotated[str, Field(pattern=r"^[0-9]{4}-(0[1-9]|1[0-2])$", description="calendar month, YYYY-MM")]
EQUITY = "sum of disclosed equity-round amounts (convertible notes included), whole USD; null when none"
OTHER = "sum of disclosed stake purchases, buyouts and debt, whole USD (not in total_raised_usd)"
CURRENT = "true for a public market cap or a private company's latest valuation not flagged stale; false otherwise"
ALSO_KNOWN_AS = ("names and tickers the company is also known by: former names, names sources use for it (a "
                 "translated name), tickers of earlier listings; `q` finds the company by them")
CONVERTED = "ISO 4217 currency the figure was reported in when converted to USD; null = reported in USD"


class Out(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # JSON has no NaN: refuse it at validation
