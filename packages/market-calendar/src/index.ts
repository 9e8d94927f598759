// Public API of @board/market-calendar: the NYSE regular-hours calendar (New York time).

export { holidayName, earlyClose, holidaysIn, type Holiday } from "./holidays.js";
export {
  type Session,
  sessionOn,
  isTradingDay,
  isMarketOpen,
  sessionAt,
  nextSession,
  previousSession,
  tradingDayOf,
  addTradingDays,
  nyDate,
} from "./sessions.js";
export { MORNING_LEAD_MINUTES, nextRefreshAt, runSlotsBetween } from "./schedule.js";
export { freshnessAt, freshnessHeaders, type DataDelay, type FreshnessBlock, type FreshnessHeaders } from "./freshness.js";
export { formatNewYork, formatPacific } from "./time.js";
