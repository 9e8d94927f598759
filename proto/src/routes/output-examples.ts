// Generated from a served board by test/integration/output-examples.ts: do not edit.
// Each paid route's read of the integration stack's fixture board (a licensed read, as served), every list cut to its first entry.

/** The bazaar listing's output example per paid route path. */
export const OUTPUT_EXAMPLES: Readonly<Record<string, unknown>> = {
  "/api/board/agent": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "provider": {
      "name": "simulator",
      "detail": "test fixture seed 2",
      "simulated": true
    },
    "book_order": [
      "spx"
    ],
    "books": {
      "spx": {
        "code": "spx",
        "title": "SPX",
        "members": 13,
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "spx: SECTORS_ON",
          "since": "2026-11-20",
          "pending": null,
          "index_sym": "SPY",
          "index_above_sma50": true,
          "index_above_sma200": true,
          "breadth_50": 55,
          "breadth_200": 60,
          "ladder": {
            "index": true,
            "sectors": [
              "Semis"
            ],
            "names": "green_sectors"
          }
        },
        "index_card": {
          "sym": "SPY",
          "label": "Index",
          "score": 5,
          "pct": 5,
          "light": "cold",
          "state": "WAIT",
          "above_sma50": false,
          "green": true,
          "ranked_in": "macro"
        },
        "sector_cards": [
          {
            "sym": "EAX",
            "label": "Industrials",
            "score": 14,
            "pct": 14,
            "light": "firing",
            "state": "READY",
            "above_sma50": false,
            "green": false,
            "ranked_in": "macro"
          }
        ],
        "lanes": {
          "risk_adjusted": [],
          "swing": []
        }
      },
      "qqq": {
        "code": "qqq",
        "title": "QQQ",
        "members": 12,
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "qqq: SECTORS_ON",
          "since": "2026-11-20",
          "pending": null,
          "index_sym": "SPY",
          "index_above_sma50": true,
          "index_above_sma200": true,
          "breadth_50": 55,
          "breadth_200": 60,
          "ladder": {
            "index": true,
            "sectors": [
              "Semis"
            ],
            "names": "green_sectors"
          }
        },
        "index_card": {
          "sym": "SPY",
          "label": "Index",
          "score": 18,
          "pct": 18,
          "light": "firing",
          "state": "CHASE",
          "above_sma50": false,
          "green": true,
          "ranked_in": "macro"
        },
        "sector_cards": [
          {
            "sym": "EAX",
            "label": "Industrials",
            "score": 14,
            "pct": 14,
            "light": "firing",
            "state": "READY",
            "above_sma50": false,
            "green": false,
            "ranked_in": "macro"
          }
        ],
        "lanes": {
          "risk_adjusted": [],
          "swing": []
        }
      },
      "macro": {
        "code": "macro",
        "title": "MACRO",
        "members": 13,
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "macro: SECTORS_ON",
          "since": "2026-11-20",
          "pending": null,
          "index_sym": "SPY",
          "index_above_sma50": true,
          "index_above_sma200": true,
          "breadth_50": 55,
          "breadth_200": 60,
          "ladder": {
            "index": true,
            "sectors": [
              "Bonds"
            ],
            "names": "green_sectors"
          }
        },
        "index_card": {
          "sym": "SPY",
          "label": "Index",
          "score": 31,
          "pct": 31,
          "light": "cold",
          "state": "FALLING",
          "above_sma50": false,
          "green": true,
          "ranked_in": "macro"
        },
        "sector_cards": [
          {
            "sym": "EAX",
            "label": "Industrials",
            "score": 14,
            "pct": 14,
            "light": "firing",
            "state": "READY",
            "above_sma50": false,
            "green": false,
            "ranked_in": "macro"
          }
        ],
        "lanes": {
          "risk_adjusted": [],
          "swing": []
        }
      },
      "crypto": {
        "code": "crypto",
        "title": "CRYPTO",
        "members": 2,
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "crypto: SECTORS_ON",
          "since": "2026-11-20",
          "pending": null,
          "index_sym": "BTC-USD",
          "index_above_sma50": true,
          "index_above_sma200": true,
          "breadth_50": 55,
          "breadth_200": 60,
          "ladder": {
            "index": true,
            "sectors": [
              "Crypto"
            ],
            "names": "green_sectors"
          }
        },
        "index_card": {
          "sym": "BTC-USD",
          "label": "Index",
          "score": 44,
          "pct": 44,
          "light": "cold",
          "state": "READY",
          "above_sma50": true,
          "green": true,
          "ranked_in": "macro"
        },
        "sector_cards": [
          {
            "sym": "EAX",
            "label": "Industrials",
            "score": 14,
            "pct": 14,
            "light": "firing",
            "state": "READY",
            "above_sma50": false,
            "green": false,
            "ranked_in": "macro"
          }
        ],
        "lanes": {
          "risk_adjusted": [],
          "swing": []
        }
      }
    },
    "names": [
      {
        "sym": "BTC-USD",
        "name": "Test name 0",
        "sector": "Crypto",
        "bk": [
          "crypto"
        ],
        "price": 32.02,
        "chg_pct": -2.8,
        "opp_score": 22,
        "opp_pct": 22,
        "state": "READY",
        "prev_state": null,
        "light": "firing",
        "entry_q": 54,
        "hold_q": 66,
        "hold_label": "STRONG",
        "is_leader": false,
        "growth_score": 10,
        "gap_risk": 0,
        "dollar_volume": 23000000,
        "adv20_usd": 24000000,
        "liquidity": "C",
        "ranked_in": "crypto",
        "tt_count": 4,
        "trigger": "pullback",
        "trigger_date": "2026-11-20",
        "days_in_state": 11
      }
    ],
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/regime": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "books": {
      "spx": {
        "title": "SPX",
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "spx: SECTORS_ON",
          "since": "2026-11-20",
          "pending": null,
          "index_sym": "SPY",
          "index_above_sma50": true,
          "index_above_sma200": true,
          "breadth_50": 55,
          "breadth_200": 60,
          "ladder": {
            "index": true,
            "sectors": [
              "Semis"
            ],
            "names": "green_sectors"
          }
        }
      },
      "qqq": {
        "title": "QQQ",
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "qqq: SECTORS_ON",
          "since": "2026-11-20",
          "pending": null,
          "index_sym": "SPY",
          "index_above_sma50": true,
          "index_above_sma200": true,
          "breadth_50": 55,
          "breadth_200": 60,
          "ladder": {
            "index": true,
            "sectors": [
              "Semis"
            ],
            "names": "green_sectors"
          }
        }
      },
      "macro": {
        "title": "MACRO",
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "macro: SECTORS_ON",
          "since": "2026-11-20",
          "pending": null,
          "index_sym": "SPY",
          "index_above_sma50": true,
          "index_above_sma200": true,
          "breadth_50": 55,
          "breadth_200": 60,
          "ladder": {
            "index": true,
            "sectors": [
              "Bonds"
            ],
            "names": "green_sectors"
          }
        }
      },
      "crypto": {
        "title": "CRYPTO",
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "crypto: SECTORS_ON",
          "since": "2026-11-20",
          "pending": null,
          "index_sym": "BTC-USD",
          "index_above_sma50": true,
          "index_above_sma200": true,
          "breadth_50": 55,
          "breadth_200": 60,
          "ladder": {
            "index": true,
            "sectors": [
              "Crypto"
            ],
            "names": "green_sectors"
          }
        }
      }
    },
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/buylist": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "books": {
      "spx": {
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "spx: SECTORS_ON"
        },
        "risk_adjusted": [],
        "swing": []
      },
      "qqq": {
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "qqq: SECTORS_ON"
        },
        "risk_adjusted": [],
        "swing": []
      },
      "macro": {
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "macro: SECTORS_ON"
        },
        "risk_adjusted": [],
        "swing": []
      },
      "crypto": {
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "crypto: SECTORS_ON"
        },
        "risk_adjusted": [],
        "swing": []
      }
    },
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/indices": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "books": {
      "spx": {
        "index": {
          "sym": "SPY",
          "label": "Index",
          "score": 5,
          "pct": 5,
          "light": "cold",
          "state": "WAIT",
          "above_sma50": false,
          "green": true,
          "ranked_in": "macro"
        },
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "spx: SECTORS_ON"
        }
      },
      "qqq": {
        "index": {
          "sym": "SPY",
          "label": "Index",
          "score": 18,
          "pct": 18,
          "light": "firing",
          "state": "CHASE",
          "above_sma50": false,
          "green": true,
          "ranked_in": "macro"
        },
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "qqq: SECTORS_ON"
        }
      },
      "macro": {
        "index": {
          "sym": "SPY",
          "label": "Index",
          "score": 31,
          "pct": 31,
          "light": "cold",
          "state": "FALLING",
          "above_sma50": false,
          "green": true,
          "ranked_in": "macro"
        },
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "macro: SECTORS_ON"
        }
      },
      "crypto": {
        "index": {
          "sym": "BTC-USD",
          "label": "Index",
          "score": 44,
          "pct": 44,
          "light": "cold",
          "state": "READY",
          "above_sma50": true,
          "green": true,
          "ranked_in": "macro"
        },
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "crypto: SECTORS_ON"
        }
      }
    },
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/sectors": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "sectors": [
      {
        "name": "Semis",
        "sym": "EOX",
        "label": "Semis",
        "score": 96,
        "pct": 96,
        "light": "cold",
        "state": "FALLING",
        "above_sma50": true,
        "green": true,
        "ranked_in": "macro"
      }
    ],
    "green_by_book": {
      "spx": [
        "Semis"
      ],
      "qqq": [
        "Semis"
      ],
      "macro": [
        "Bonds"
      ],
      "crypto": [
        "Crypto"
      ]
    },
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/top-volume": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "sectors": {
      "Industrials": [
        {
          "sym": "TM1",
          "name": "Test name 38",
          "sector": "Industrials",
          "bk": [
            "macro"
          ],
          "price": 38.02,
          "chg_pct": -2.2,
          "opp_score": 28,
          "opp_pct": 28,
          "state": "CHASE",
          "prev_state": null,
          "light": "cold",
          "entry_q": 96,
          "hold_q": 84,
          "hold_label": "TRIM",
          "is_leader": false,
          "growth_score": 40,
          "gap_risk": 52,
          "dollar_volume": 29000000,
          "adv20_usd": 30000000,
          "liquidity": "C",
          "ranked_in": "macro",
          "tt_count": 1,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 5
        }
      ],
      "Financials": [
        {
          "sym": "TN1",
          "name": "Test name 39",
          "sector": "Financials",
          "bk": [
            "spx"
          ],
          "price": 75.02,
          "chg_pct": 1.5,
          "opp_score": 65,
          "opp_pct": 65,
          "state": "FALLING",
          "prev_state": null,
          "light": "cold",
          "entry_q": 55,
          "hold_q": 95,
          "hold_label": "EXIT",
          "is_leader": false,
          "growth_score": 25,
          "gap_risk": 85,
          "dollar_volume": 66000000,
          "adv20_usd": 67000000,
          "liquidity": "A",
          "ranked_in": "spx",
          "tt_count": 2,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 6
        }
      ],
      "Real Estate": [
        {
          "sym": "TV0",
          "name": "Test name 21",
          "sector": "Real Estate",
          "bk": [
            "spx"
          ],
          "price": 109.02,
          "chg_pct": 4.9,
          "opp_score": 99,
          "opp_pct": 99,
          "state": "SETUP",
          "prev_state": null,
          "light": "cold",
          "entry_q": 93,
          "hold_q": 97,
          "hold_label": "HOLD",
          "is_leader": true,
          "growth_score": 95,
          "gap_risk": 91,
          "dollar_volume": 100000000,
          "adv20_usd": 101000000,
          "liquidity": "A",
          "ranked_in": "spx",
          "tt_count": 0,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 4
        }
      ],
      "Energy": [
        {
          "sym": "TW0",
          "name": "Test name 22",
          "sector": "Energy",
          "bk": [
            "qqq"
          ],
          "price": 46.02,
          "chg_pct": -1.4,
          "opp_score": 36,
          "opp_pct": 36,
          "state": "WAIT",
          "prev_state": null,
          "light": "cold",
          "entry_q": 52,
          "hold_q": 8,
          "hold_label": "WEAKENING",
          "is_leader": false,
          "growth_score": 80,
          "gap_risk": 24,
          "dollar_volume": 37000000,
          "adv20_usd": 38000000,
          "liquidity": "C",
          "ranked_in": "qqq",
          "tt_count": 0,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 1
        }
      ],
      "Consumer Discretionary": [
        {
          "sym": "TX0",
          "name": "Test name 23",
          "sector": "Consumer Discretionary",
          "bk": [
            "macro"
          ],
          "price": 83.02,
          "chg_pct": 2.3,
          "opp_score": 73,
          "opp_pct": 73,
          "state": "CHASE",
          "prev_state": null,
          "light": "cold",
          "entry_q": 11,
          "hold_q": 19,
          "hold_label": "TRIM",
          "is_leader": false,
          "growth_score": 65,
          "gap_risk": 57,
          "dollar_volume": 74000000,
          "adv20_usd": 75000000,
          "liquidity": "A",
          "ranked_in": "macro",
          "tt_count": 1,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 2
        }
      ],
      "Commodities": [
        {
          "sym": "TY0",
          "name": "Test name 24",
          "sector": "Commodities",
          "bk": [
            "spx"
          ],
          "price": 20.02,
          "chg_pct": -4,
          "opp_score": 10,
          "opp_pct": 10,
          "state": "FALLING",
          "prev_state": null,
          "light": "cold",
          "entry_q": 70,
          "hold_q": 30,
          "hold_label": "EXIT",
          "is_leader": false,
          "growth_score": 50,
          "gap_risk": 90,
          "dollar_volume": 11000000,
          "adv20_usd": 12000000,
          "liquidity": "C",
          "ranked_in": "spx",
          "tt_count": 1,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 11
        }
      ],
      "Health Care": [
        {
          "sym": "TZ0",
          "name": "Test name 25",
          "sector": "Health Care",
          "bk": [
            "qqq"
          ],
          "price": 57.02,
          "chg_pct": -0.3,
          "opp_score": 47,
          "opp_pct": 47,
          "state": "READY",
          "prev_state": null,
          "light": "firing",
          "entry_q": 29,
          "hold_q": 41,
          "hold_label": "STRONG",
          "is_leader": false,
          "growth_score": 35,
          "gap_risk": 23,
          "dollar_volume": 48000000,
          "adv20_usd": 49000000,
          "liquidity": "C",
          "ranked_in": "qqq",
          "tt_count": 2,
          "trigger": "breakout",
          "trigger_date": "2026-11-20",
          "days_in_state": 12
        }
      ],
      "Consumer Staples": [
        {
          "sym": "TA1",
          "name": "Test name 26",
          "sector": "Consumer Staples",
          "bk": [
            "macro"
          ],
          "price": 94.02,
          "chg_pct": 3.4,
          "opp_score": 84,
          "opp_pct": 84,
          "state": "SETUP",
          "prev_state": null,
          "light": "cold",
          "entry_q": 88,
          "hold_q": 52,
          "hold_label": "HOLD",
          "is_leader": true,
          "growth_score": 20,
          "gap_risk": 56,
          "dollar_volume": 85000000,
          "adv20_usd": 86000000,
          "liquidity": "A",
          "ranked_in": "macro",
          "tt_count": 3,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 1
        }
      ],
      "Information Technology": [
        {
          "sym": "TB1",
          "name": "Test name 27",
          "sector": "Information Technology",
          "bk": [
            "spx"
          ],
          "price": 31.02,
          "chg_pct": -2.9,
          "opp_score": 21,
          "opp_pct": 21,
          "state": "WAIT",
          "prev_state": null,
          "light": "cold",
          "entry_q": 47,
          "hold_q": 63,
          "hold_label": "WEAKENING",
          "is_leader": false,
          "growth_score": 5,
          "gap_risk": 89,
          "dollar_volume": 22000000,
          "adv20_usd": 23000000,
          "liquidity": "C",
          "ranked_in": "spx",
          "tt_count": 3,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 10
        }
      ],
      "Utilities": [
        {
          "sym": "TC1",
          "name": "Test name 28",
          "sector": "Utilities",
          "bk": [
            "qqq"
          ],
          "price": 68.02,
          "chg_pct": 0.8,
          "opp_score": 58,
          "opp_pct": 58,
          "state": "CHASE",
          "prev_state": null,
          "light": "cold",
          "entry_q": 6,
          "hold_q": 74,
          "hold_label": "TRIM",
          "is_leader": false,
          "growth_score": 90,
          "gap_risk": 22,
          "dollar_volume": 59000000,
          "adv20_usd": 60000000,
          "liquidity": "A",
          "ranked_in": "qqq",
          "tt_count": 4,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 11
        }
      ],
      "Materials": [
        {
          "sym": "TD1",
          "name": "Test name 29",
          "sector": "Materials",
          "bk": [
            "macro"
          ],
          "price": 105.02,
          "chg_pct": 4.5,
          "opp_score": 95,
          "opp_pct": 95,
          "state": "FALLING",
          "prev_state": null,
          "light": "cold",
          "entry_q": 65,
          "hold_q": 85,
          "hold_label": "EXIT",
          "is_leader": true,
          "growth_score": 75,
          "gap_risk": 55,
          "dollar_volume": 96000000,
          "adv20_usd": 97000000,
          "liquidity": "A",
          "ranked_in": "macro",
          "tt_count": 5,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 12
        }
      ],
      "Income": [
        {
          "sym": "TE1",
          "name": "Test name 30",
          "sector": "Income",
          "bk": [
            "spx"
          ],
          "price": 42.02,
          "chg_pct": -1.8,
          "opp_score": 32,
          "opp_pct": 32,
          "state": "READY",
          "prev_state": null,
          "light": "firing",
          "entry_q": 24,
          "hold_q": 96,
          "hold_label": "STRONG",
          "is_leader": false,
          "growth_score": 60,
          "gap_risk": 88,
          "dollar_volume": 33000000,
          "adv20_usd": 34000000,
          "liquidity": "C",
          "ranked_in": "spx",
          "tt_count": 5,
          "trigger": "pullback",
          "trigger_date": "2026-11-20",
          "days_in_state": 9
        }
      ],
      "Communication Services": [
        {
          "sym": "TF1",
          "name": "Test name 31",
          "sector": "Communication Services",
          "bk": [
            "qqq"
          ],
          "price": 79.02,
          "chg_pct": 1.9,
          "opp_score": 69,
          "opp_pct": 69,
          "state": "SETUP",
          "prev_state": null,
          "light": "cold",
          "entry_q": 83,
          "hold_q": 7,
          "hold_label": "HOLD",
          "is_leader": false,
          "growth_score": 45,
          "gap_risk": 21,
          "dollar_volume": 70000000,
          "adv20_usd": 71000000,
          "liquidity": "A",
          "ranked_in": "qqq",
          "tt_count": 6,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 10
        }
      ],
      "Biotech & Pharma": [
        {
          "sym": "TG1",
          "name": "Test name 32",
          "sector": "Biotech & Pharma",
          "bk": [
            "macro"
          ],
          "price": 16.02,
          "chg_pct": -4.4,
          "opp_score": 6,
          "opp_pct": 6,
          "state": "WAIT",
          "prev_state": null,
          "light": "cold",
          "entry_q": 42,
          "hold_q": 18,
          "hold_label": "WEAKENING",
          "is_leader": false,
          "growth_score": 30,
          "gap_risk": 54,
          "dollar_volume": 7000000,
          "adv20_usd": 8000000,
          "liquidity": "C",
          "ranked_in": "macro",
          "tt_count": 6,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 7
        }
      ],
      "Semis": [
        {
          "sym": "TH1",
          "name": "Test name 33",
          "sector": "Semis",
          "bk": [
            "spx"
          ],
          "price": 53.02,
          "chg_pct": -0.7,
          "opp_score": 43,
          "opp_pct": 43,
          "state": "CHASE",
          "prev_state": null,
          "light": "cold",
          "entry_q": 1,
          "hold_q": 29,
          "hold_label": "TRIM",
          "is_leader": false,
          "growth_score": 15,
          "gap_risk": 87,
          "dollar_volume": 44000000,
          "adv20_usd": 45000000,
          "liquidity": "C",
          "ranked_in": "spx",
          "tt_count": 7,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 8
        }
      ],
      "Bonds": [
        {
          "sym": "TI1",
          "name": "Test name 34",
          "sector": "Bonds",
          "bk": [
            "qqq"
          ],
          "price": 90.02,
          "chg_pct": 3,
          "opp_score": 80,
          "opp_pct": 80,
          "state": "FALLING",
          "prev_state": null,
          "light": "cold",
          "entry_q": 60,
          "hold_q": 40,
          "hold_label": "EXIT",
          "is_leader": false,
          "growth_score": 0,
          "gap_risk": 20,
          "dollar_volume": 81000000,
          "adv20_usd": 82000000,
          "liquidity": "A",
          "ranked_in": "qqq",
          "tt_count": 8,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 9
        }
      ],
      "Internet & Media": [
        {
          "sym": "TJ1",
          "name": "Test name 35",
          "sector": "Internet & Media",
          "bk": [
            "macro"
          ],
          "price": 27.02,
          "chg_pct": -3.3,
          "opp_score": 17,
          "opp_pct": 17,
          "state": "READY",
          "prev_state": null,
          "light": "firing",
          "entry_q": 19,
          "hold_q": 51,
          "hold_label": "STRONG",
          "is_leader": false,
          "growth_score": 85,
          "gap_risk": 53,
          "dollar_volume": 18000000,
          "adv20_usd": 19000000,
          "liquidity": "C",
          "ranked_in": "macro",
          "tt_count": 8,
          "trigger": "breakout",
          "trigger_date": "2026-11-20",
          "days_in_state": 6
        }
      ],
      "Precious Metals": [
        {
          "sym": "TK1",
          "name": "Test name 36",
          "sector": "Precious Metals",
          "bk": [
            "spx"
          ],
          "price": 64.02,
          "chg_pct": 0.4,
          "opp_score": 54,
          "opp_pct": 54,
          "state": "SETUP",
          "prev_state": null,
          "light": "cold",
          "entry_q": 78,
          "hold_q": 62,
          "hold_label": "HOLD",
          "is_leader": false,
          "growth_score": 70,
          "gap_risk": 86,
          "dollar_volume": 55000000,
          "adv20_usd": 56000000,
          "liquidity": "A",
          "ranked_in": "spx",
          "tt_count": 0,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 7
        }
      ],
      "Software": [
        {
          "sym": "TL1",
          "name": "Test name 37",
          "sector": "Software",
          "bk": [
            "qqq"
          ],
          "price": 101.02,
          "chg_pct": 4.1,
          "opp_score": 91,
          "opp_pct": 91,
          "state": "WAIT",
          "prev_state": null,
          "light": "cold",
          "entry_q": 37,
          "hold_q": 73,
          "hold_label": "WEAKENING",
          "is_leader": true,
          "growth_score": 55,
          "gap_risk": 19,
          "dollar_volume": 92000000,
          "adv20_usd": 93000000,
          "liquidity": "A",
          "ranked_in": "qqq",
          "tt_count": 1,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 8
        }
      ],
      "Crypto": [
        {
          "sym": "ETH-USD",
          "name": "Test name 1",
          "sector": "Crypto",
          "bk": [
            "crypto"
          ],
          "price": 69.02,
          "chg_pct": 0.9,
          "opp_score": 59,
          "opp_pct": 59,
          "state": "SETUP",
          "prev_state": null,
          "light": "cold",
          "entry_q": 13,
          "hold_q": 77,
          "hold_label": "HOLD",
          "is_leader": false,
          "growth_score": 95,
          "gap_risk": 0,
          "dollar_volume": 60000000,
          "adv20_usd": 61000000,
          "liquidity": "A",
          "ranked_in": "crypto",
          "tt_count": 5,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 12
        }
      ]
    },
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/name": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "names": [
      {
        "sym": "BTC-USD",
        "name": "Test name 0",
        "sector": "Crypto",
        "bk": [
          "crypto"
        ],
        "price": 32.02,
        "chg_pct": -2.8,
        "opp_score": 22,
        "opp_pct": 22,
        "state": "READY",
        "prev_state": null,
        "light": "firing",
        "entry_q": 54,
        "hold_q": 66,
        "hold_label": "STRONG",
        "is_leader": false,
        "growth_score": 10,
        "gap_risk": 0,
        "dollar_volume": 23000000,
        "adv20_usd": 24000000,
        "liquidity": "C",
        "ranked_in": "crypto",
        "tt_count": 4,
        "trigger": "pullback",
        "trigger_date": "2026-11-20",
        "days_in_state": 11,
        "book": "crypto",
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "crypto: SECTORS_ON"
        }
      }
    ],
    "unknown": [],
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/leaders": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "books": {
      "spx": [
        {
          "sym": "TV0",
          "name": "Test name 21",
          "sector": "Real Estate",
          "bk": [
            "spx"
          ],
          "price": 109.02,
          "chg_pct": 4.9,
          "opp_score": 99,
          "opp_pct": 99,
          "state": "SETUP",
          "prev_state": null,
          "light": "cold",
          "entry_q": 93,
          "hold_q": 97,
          "hold_label": "HOLD",
          "is_leader": true,
          "growth_score": 95,
          "gap_risk": 91,
          "dollar_volume": 100000000,
          "adv20_usd": 101000000,
          "liquidity": "A",
          "ranked_in": "spx",
          "tt_count": 0,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 4,
          "book": "spx",
          "regime": {
            "verdict": "SECTORS_ON",
            "stance": "be-selective",
            "line": "spx: SECTORS_ON"
          }
        }
      ],
      "qqq": [
        {
          "sym": "TK0",
          "name": "Test name 10",
          "sector": "Materials",
          "bk": [
            "qqq"
          ],
          "price": 102.02,
          "chg_pct": 4.2,
          "opp_score": 92,
          "opp_pct": 92,
          "state": "READY",
          "prev_state": null,
          "light": "firing",
          "entry_q": 44,
          "hold_q": 76,
          "hold_label": "STRONG",
          "is_leader": true,
          "growth_score": 60,
          "gap_risk": 28,
          "dollar_volume": 93000000,
          "adv20_usd": 94000000,
          "liquidity": "A",
          "ranked_in": "qqq",
          "tt_count": 2,
          "trigger": "pullback",
          "trigger_date": "2026-11-20",
          "days_in_state": 9,
          "book": "qqq",
          "regime": {
            "verdict": "SECTORS_ON",
            "stance": "be-selective",
            "line": "qqq: SECTORS_ON"
          }
        }
      ],
      "macro": [
        {
          "sym": "TC0",
          "name": "Test name 2",
          "sector": "Real Estate",
          "bk": [
            "macro"
          ],
          "price": 106.02,
          "chg_pct": 4.6,
          "opp_score": 96,
          "opp_pct": 96,
          "state": "WAIT",
          "prev_state": null,
          "light": "cold",
          "entry_q": 72,
          "hold_q": 88,
          "hold_label": "WEAKENING",
          "is_leader": true,
          "growth_score": 80,
          "gap_risk": 64,
          "dollar_volume": 97000000,
          "adv20_usd": 98000000,
          "liquidity": "A",
          "ranked_in": "macro",
          "tt_count": 6,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 1,
          "book": "macro",
          "regime": {
            "verdict": "SECTORS_ON",
            "stance": "be-selective",
            "line": "macro: SECTORS_ON"
          }
        }
      ],
      "crypto": [
        {
          "sym": "ETH-USD",
          "name": "Test name 1",
          "sector": "Crypto",
          "bk": [
            "crypto"
          ],
          "price": 69.02,
          "chg_pct": 0.9,
          "opp_score": 59,
          "opp_pct": 59,
          "state": "SETUP",
          "prev_state": null,
          "light": "cold",
          "entry_q": 13,
          "hold_q": 77,
          "hold_label": "HOLD",
          "is_leader": false,
          "growth_score": 95,
          "gap_risk": 0,
          "dollar_volume": 60000000,
          "adv20_usd": 61000000,
          "liquidity": "A",
          "ranked_in": "crypto",
          "tt_count": 5,
          "trigger": null,
          "trigger_date": null,
          "days_in_state": 12,
          "book": "crypto",
          "regime": {
            "verdict": "SECTORS_ON",
            "stance": "be-selective",
            "line": "crypto: SECTORS_ON"
          }
        }
      ]
    },
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/movers": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "gainers": [
      {
        "sym": "TV0",
        "name": "Test name 21",
        "sector": "Real Estate",
        "bk": [
          "spx"
        ],
        "price": 109.02,
        "chg_pct": 4.9,
        "opp_score": 99,
        "opp_pct": 99,
        "state": "SETUP",
        "prev_state": null,
        "light": "cold",
        "entry_q": 93,
        "hold_q": 97,
        "hold_label": "HOLD",
        "is_leader": true,
        "growth_score": 95,
        "gap_risk": 91,
        "dollar_volume": 100000000,
        "adv20_usd": 101000000,
        "liquidity": "A",
        "ranked_in": "spx",
        "tt_count": 0,
        "trigger": null,
        "trigger_date": null,
        "days_in_state": 4,
        "book": "spx",
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "spx: SECTORS_ON"
        }
      }
    ],
    "losers": [
      {
        "sym": "TN0",
        "name": "Test name 13",
        "sector": "Biotech & Pharma",
        "bk": [
          "qqq"
        ],
        "price": 13.02,
        "chg_pct": -4.7,
        "opp_score": 3,
        "opp_pct": 3,
        "state": "CHASE",
        "prev_state": null,
        "light": "cold",
        "entry_q": 21,
        "hold_q": 9,
        "hold_label": "TRIM",
        "is_leader": false,
        "growth_score": 15,
        "gap_risk": 27,
        "dollar_volume": 4000000,
        "adv20_usd": 5000000,
        "liquidity": "C",
        "ranked_in": "qqq",
        "tt_count": 3,
        "trigger": null,
        "trigger_date": null,
        "days_in_state": 4,
        "book": "qqq",
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "qqq: SECTORS_ON"
        }
      }
    ],
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/sector": {
    "product": "scored-market-board",
    "sectors": [
      {
        "name": "Industrials",
        "etf": "EAX",
        "members": 2
      }
    ],
    "unknown": {},
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/crypto": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "crypto": {
      "verdict": "NAMES_ON",
      "line": "crypto: trend on",
      "assets": [
        {
          "sym": "BTC-USD",
          "trend": "on",
          "utc_close_date": "2026-11-20",
          "utc_close": 32.02,
          "sma50": 30.419,
          "distance_pct": 5.26,
          "since": "2026-11-20",
          "price": 32.02
        }
      ]
    },
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/crypto/night": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "night": {
      "since": "2026-11-20T16:00:00-05:00",
      "assets": [
        {
          "sym": "BTC-USD",
          "price_at_us_close": 32.02,
          "price": 31.123440000000002,
          "change_pct": -2.8
        }
      ],
      "read": "risk-on",
      "line": "crypto overnight: fixture"
    },
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/tradfi-risk": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "tradfi": {
      "verdict": "SECTORS_ON",
      "stance": "be-selective",
      "line": "macro: SECTORS_ON",
      "credit_ok": true,
      "groups": [
        {
          "group": "bonds",
          "syms": [
            "TC0"
          ],
          "read": "supportive"
        }
      ]
    },
    "members": [
      {
        "sym": "TC0",
        "name": "Test name 2",
        "sector": "Real Estate",
        "bk": [
          "macro"
        ],
        "price": 106.02,
        "chg_pct": 4.6,
        "opp_score": 96,
        "opp_pct": 96,
        "state": "WAIT",
        "prev_state": null,
        "light": "cold",
        "entry_q": 72,
        "hold_q": 88,
        "hold_label": "WEAKENING",
        "is_leader": true,
        "growth_score": 80,
        "gap_risk": 64,
        "dollar_volume": 97000000,
        "adv20_usd": 98000000,
        "liquidity": "A",
        "ranked_in": "macro",
        "tt_count": 6,
        "trigger": null,
        "trigger_date": null,
        "days_in_state": 1,
        "book": "macro",
        "regime": {
          "verdict": "SECTORS_ON",
          "stance": "be-selective",
          "line": "macro: SECTORS_ON"
        }
      }
    ],
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/hold": {
    "product": "scored-market-board",
    "asof_daily": "2026-11-20",
    "computed_at": "2026-11-20T09:55:00-08:00",
    "intraday": true,
    "names": [
      {
        "sym": "BTC-USD",
        "name": "Test name 0",
        "price": 32.02,
        "hold_q": 66,
        "hold_label": "STRONG",
        "state": "READY"
      }
    ],
    "unknown": [],
    "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns.",
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/asof": {
    "product": "scored-market-board",
    "date": "2026-11-19",
    "commitment": {
      "seq": 1,
      "asof_daily": "2026-11-19",
      "computed_at": "2026-11-19T13:00:00-08:00",
      "intraday": false,
      "content_hash": "e80aea3a142b9cd1cbbae0581e4162e95aaaef43cf18fc9a8a3d05a7bcdc7af4",
      "previous": "0000000000000000000000000000000000000000000000000000000000000000",
      "commitment": "ce823632460102552c612146e999231eb495d93e876646270307c79a56b8fdbd",
      "committed_at": "2026-11-28T03:35:38.593Z"
    },
    "board": {
      "product": "scored-market-board",
      "asof_daily": "2026-11-19",
      "computed_at": "2026-11-19T13:00:00-08:00",
      "intraday": false,
      "provider": {
        "name": "simulator",
        "detail": "test fixture seed 1",
        "simulated": true
      },
      "book_order": [
        "spx"
      ],
      "books": {
        "spx": {
          "code": "spx",
          "title": "SPX",
          "members": 13,
          "regime": {
            "verdict": "SELECTIVE",
            "stance": "be-selective",
            "line": "spx: SELECTIVE",
            "since": "2026-11-19",
            "pending": null,
            "index_sym": "SPY",
            "index_above_sma50": true,
            "index_above_sma200": true,
            "breadth_50": 55,
            "breadth_200": 60,
            "ladder": {
              "index": true,
              "sectors": [
                "Semis"
              ],
              "names": "green_sectors"
            }
          },
          "index_card": {
            "sym": "SPY",
            "label": "Index",
            "score": 98,
            "pct": 98,
            "light": "cold",
            "state": "WAIT",
            "above_sma50": true,
            "green": true,
            "ranked_in": "macro"
          },
          "sector_cards": [
            {
              "sym": "EAX",
              "label": "Industrials",
              "score": 7,
              "pct": 7,
              "light": "firing",
              "state": "READY",
              "above_sma50": false,
              "green": false,
              "ranked_in": "macro"
            }
          ],
          "lanes": {
            "risk_adjusted": [],
            "swing": []
          }
        },
        "qqq": {
          "code": "qqq",
          "title": "QQQ",
          "members": 12,
          "regime": {
            "verdict": "SELECTIVE",
            "stance": "be-selective",
            "line": "qqq: SELECTIVE",
            "since": "2026-11-19",
            "pending": null,
            "index_sym": "SPY",
            "index_above_sma50": true,
            "index_above_sma200": true,
            "breadth_50": 55,
            "breadth_200": 60,
            "ladder": {
              "index": true,
              "sectors": [
                "Semis"
              ],
              "names": "green_sectors"
            }
          },
          "index_card": {
            "sym": "SPY",
            "label": "Index",
            "score": 11,
            "pct": 11,
            "light": "firing",
            "state": "CHASE",
            "above_sma50": false,
            "green": true,
            "ranked_in": "macro"
          },
          "sector_cards": [
            {
              "sym": "EAX",
              "label": "Industrials",
              "score": 7,
              "pct": 7,
              "light": "firing",
              "state": "READY",
              "above_sma50": false,
              "green": false,
              "ranked_in": "macro"
            }
          ],
          "lanes": {
            "risk_adjusted": [],
            "swing": []
          }
        },
        "macro": {
          "code": "macro",
          "title": "MACRO",
          "members": 13,
          "regime": {
            "verdict": "SELECTIVE",
            "stance": "be-selective",
            "line": "macro: SELECTIVE",
            "since": "2026-11-19",
            "pending": null,
            "index_sym": "SPY",
            "index_above_sma50": true,
            "index_above_sma200": true,
            "breadth_50": 55,
            "breadth_200": 60,
            "ladder": {
              "index": true,
              "sectors": [
                "Bonds"
              ],
              "names": "green_sectors"
            }
          },
          "index_card": {
            "sym": "SPY",
            "label": "Index",
            "score": 24,
            "pct": 24,
            "light": "cold",
            "state": "FALLING",
            "above_sma50": false,
            "green": true,
            "ranked_in": "macro"
          },
          "sector_cards": [
            {
              "sym": "EAX",
              "label": "Industrials",
              "score": 7,
              "pct": 7,
              "light": "firing",
              "state": "READY",
              "above_sma50": false,
              "green": false,
              "ranked_in": "macro"
            }
          ],
          "lanes": {
            "risk_adjusted": [],
            "swing": []
          }
        },
        "crypto": {
          "code": "crypto",
          "title": "CRYPTO",
          "members": 2,
          "regime": {
            "verdict": "SELECTIVE",
            "stance": "be-selective",
            "line": "crypto: SELECTIVE",
            "since": "2026-11-19",
            "pending": null,
            "index_sym": "BTC-USD",
            "index_above_sma50": true,
            "index_above_sma200": true,
            "breadth_50": 55,
            "breadth_200": 60,
            "ladder": {
              "index": true,
              "sectors": [
                "Crypto"
              ],
              "names": "green_sectors"
            }
          },
          "index_card": {
            "sym": "BTC-USD",
            "label": "Index",
            "score": 37,
            "pct": 37,
            "light": "cold",
            "state": "READY",
            "above_sma50": false,
            "green": true,
            "ranked_in": "macro"
          },
          "sector_cards": [
            {
              "sym": "EAX",
              "label": "Industrials",
              "score": 7,
              "pct": 7,
              "light": "firing",
              "state": "READY",
              "above_sma50": false,
              "green": false,
              "ranked_in": "macro"
            }
          ],
          "lanes": {
            "risk_adjusted": [],
            "swing": []
          }
        }
      },
      "names": [
        {
          "sym": "BTC-USD",
          "name": "Test name 0",
          "sector": "Crypto",
          "bk": [
            "crypto"
          ],
          "price": 21.01,
          "chg_pct": -3.9,
          "opp_score": 11,
          "opp_pct": 11,
          "state": "READY",
          "prev_state": null,
          "light": "firing",
          "entry_q": 77,
          "hold_q": 33,
          "hold_label": "STRONG",
          "is_leader": false,
          "growth_score": 55,
          "gap_risk": 0,
          "dollar_volume": 12000000,
          "adv20_usd": 13000000,
          "liquidity": "C",
          "ranked_in": "crypto",
          "tt_count": 2,
          "trigger": "pullback",
          "trigger_date": "2026-11-19",
          "days_in_state": 12
        }
      ],
      "disclaimer": "Research publication, identical for every reader; not individualized investment advice. Scores describe historical and technical structure, not future returns."
    },
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/regime/history": {
    "product": "scored-market-board",
    "books": [
      "spx"
    ],
    "days": 60,
    "first_session": "2026-11-19",
    "last_session": "2026-11-20",
    "changes": [
      {
        "book": "crypto",
        "date": "2026-11-20",
        "computed_at": "2026-11-20T17:55:00.000Z",
        "seq": 2,
        "from": "SELECTIVE",
        "to": "SECTORS_ON",
        "figures": {
          "index_sym": "BTC-USD",
          "breadth_50": 55,
          "breadth_200": 60,
          "index_above_sma50": true,
          "index_above_sma200": true
        }
      }
    ],
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/name/history": {
    "product": "scored-market-board",
    "days": 20,
    "names": [
      {
        "sym": "BTC-USD",
        "sessions": [
          {
            "date": "2026-11-19",
            "state": "READY",
            "light": "firing",
            "trigger": "pullback",
            "opp_score": 11,
            "opp_pct": 11,
            "entry_q": 77,
            "hold_q": 33,
            "hold_label": "STRONG",
            "price": 21.01
          }
        ]
      }
    ],
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  },
  "/api/board/changes": {
    "product": "scored-market-board",
    "from": {
      "seq": 1,
      "content_hash": "e80aea3a142b9cd1cbbae0581e4162e95aaaef43cf18fc9a8a3d05a7bcdc7af4",
      "asof_daily": "2026-11-19",
      "computed_at": "2026-11-19T21:00:00.000Z"
    },
    "to": {
      "seq": 2,
      "content_hash": "4462345946285b20d10d606c3580a88d7bd407b6a0d4a8a6945d3e93ee444c7c",
      "asof_daily": "2026-11-20",
      "computed_at": "2026-11-20T17:55:00.000Z"
    },
    "verdicts": [
      {
        "book": "spx",
        "from": "SELECTIVE",
        "to": "SECTORS_ON"
      }
    ],
    "lanes": [],
    "states": [],
    "newly_firing": [],
    "freshness": {
      "market_open": false,
      "data_age_seconds": 639638,
      "next_refresh_at": "2026-11-30T08:00:00-05:00",
      "poll_hint": "The market closed early today (1:00 pm ET); the next board is the morning board at next_refresh_at (2026-11-30T08:00:00-05:00), 90 minutes before the open, so do not buy again before then."
    }
  }
};
