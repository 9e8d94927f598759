let turn: Promise<void> | null = null;

/**
 * Resolves in this event-loop turn's check phase, for every read that asked in it at once.
 * nats.js writes what was published by the end of a microtask checkpoint in one socket write;
 * reads whose bus requests wait for the same turn thus share one write (and the bus server
 * one read) instead of one each. A write to the bus costs more CPU than the rest of a
 * licensed read's bus request, measured; the wait is the rest of this turn, not a timer.
 */
export function busTurn(): Promise<void> {
  turn ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      turn = null;
      resolve();
    }),
  );
  return turn;
}
