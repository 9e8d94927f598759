import { paymentsStatus, type PaymentsMode } from "@board/proto";
import { request, type NatsConnection } from "@board/service-kit";

/** The page is not held up long by payments: its mode only adds a banner. */
const MODE_TIMEOUT_MS = 500;

/** Whether payments runs development chains, as payments says; null when it does not answer (the page keeps what it knew). */
export async function readPaymentsMode(deps: { nc: NatsConnection; timeoutMs: number }): Promise<PaymentsMode | null> {
  try {
    return (await request(deps.nc, paymentsStatus, {}, { timeoutMs: Math.min(deps.timeoutMs, MODE_TIMEOUT_MS) })).mode;
  } catch {
    return null;
  }
}
