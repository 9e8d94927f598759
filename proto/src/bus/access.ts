import { boardRead, SNAPSHOT_STREAM, SNAPSHOT_SUBJECT } from "./board.js";
import { BOARD_PUBLISHED_SUBJECT } from "./board-events.js";
import { SERIES_STREAM, SERIES_SUBJECTS } from "./series.js";
import { SERVICE_NAMES, type BusEndpoint, type ServiceName } from "./endpoint.js";
import { pingEndpoint } from "./ping.js";
import {
  identityFreeKey,
  identityJwks,
  identityLicenseCancel,
  identityLicenseIssue,
  identityLicenseList,
  identityLicenseRenew,
  identityLicenseRevoke,
  identityResolve,
  identitySignInChallenge,
  identitySignInVerify,
  identityToken,
  KEY_RETIRED_SUBJECT,
  LICENSE_REVOKED_SUBJECT,
} from "./identity.js";
import { identityAuthorize, identityConsent, identityRegister } from "./oauth.js";
import {
  BURST_MEMBERS_SUBJECT,
  BURST_TAKE_SUBJECTS,
  meteringConsume,
  meteringConsumeMany,
  meteringNewCredential,
  meteringReadsServed,
  meteringRefund,
  READS_SERVED_EVENT_SUBJECT,
  SERVED_READ_SUBJECT,
  SERVED_READS_STREAM,
} from "./metering.js";
import {
  PAYMENT_RAILS_EVENT_SUBJECT,
  paymentsArrearsClear,
  paymentsArrearsList,
  paymentsCatalogue,
  paymentsClaim,
  paymentsDidDocument,
  paymentsReceipt,
  paymentsRelease,
  paymentsRequirements,
  paymentsSettle,
  paymentsStatus,
  SETTLEMENT_EVENT_SUBJECT,
} from "./payments.js";

/**
 * Who connects to the bus: each service with its own credential, and the operator (the
 * licence and arrears CLIs), the only one that may issue, list, cancel, renew or revoke
 * licences, and list or clear the payers in arrears.
 */
export type BusPrincipal = ServiceName | "operator";
export const BUS_PRINCIPALS: readonly BusPrincipal[] = ["gateway", "identity", "metering", "payments", "board", "scanner-ingest", "operator"];

/**
 * A JetStream stream a principal uses. `manage` creates and updates it (its subjects and
 * limits): the operator's alone, since a stream widened to another service's subjects would
 * let whoever reads it read that traffic (nats-server does not check a stream's subjects
 * against the updater's own rights). `info` reads its state; `consume` reads it through a
 * consumer.
 */
export interface StreamUse {
  stream: string;
  manage?: boolean;
  info?: boolean;
  consume?: boolean;
  /** Reads single messages by subject (Direct Get / STREAM.MSG.GET). */
  get?: boolean;
}

/**
 * What a principal does on the bus beyond serving its own endpoints (every service serves
 * `<service>.v1.*`, answers the NATS services API, and replies to what it receives): the
 * endpoints it calls, the plain subjects it publishes and subscribes to, and its streams.
 */
export interface BusGrant {
  calls: readonly BusEndpoint[];
  publishes: readonly string[];
  subscribes: readonly string[];
  streams: readonly StreamUse[];
  /** Serves `<service>.v1.*` (the operator serves nothing). */
  serves: boolean;
}

/** Every JetStream stream of the system: the deploy step (the operator) creates each, no service does. */
export const BUS_STREAMS: readonly string[] = [SNAPSHOT_STREAM, SERVED_READS_STREAM, SERIES_STREAM];

const LICENCE_ENDPOINTS = [identityLicenseIssue, identityLicenseList, identityLicenseCancel, identityLicenseRenew, identityLicenseRevoke];
/** Payers whose transfer failed after their read was served: listed and cleared by the operator alone. */
const ARREARS_ENDPOINTS = [paymentsArrearsList, paymentsArrearsClear];

/**
 * Least privilege, per principal. A change to who calls what is a change here, and the bus
 * refuses anything else (see the bus-auth tests): the gateway, the internet-facing pod, can
 * read the board, ask identity to resolve credentials, meter and pay, and nothing more.
 */
export const BUS_GRANTS: Readonly<Record<BusPrincipal, BusGrant>> = {
  gateway: {
    calls: [
      boardRead,
      identityResolve,
      identityFreeKey,
      identitySignInChallenge,
      identitySignInVerify,
      identityToken,
      identityJwks,
      identityAuthorize,
      identityConsent,
      identityRegister,
      meteringConsume,
      meteringConsumeMany,
      meteringRefund,
      meteringNewCredential,
      paymentsRequirements,
      paymentsClaim,
      paymentsSettle,
      paymentsRelease,
      paymentsCatalogue,
      paymentsStatus,
      paymentsDidDocument,
  paymentsReceipt,
    ],
    // Served reads go to metering's stream: a plain publish to its subject, acknowledged to the inbox.
    publishes: [SERVED_READ_SUBJECT],
    // Each replica follows the board's publications and pushes them to its /api/board/events streams,
    // and identity's licence revocations, to drop what it keeps of a revoked licence.
    subscribes: [BOARD_PUBLISHED_SUBJECT, LICENSE_REVOKED_SUBJECT, KEY_RETIRED_SUBJECT],
    // The name pages draw a name's series of the delayed board, read by subject.
    streams: [{ stream: SERIES_STREAM, info: true, get: true }],
    serves: true,
  },
  // The replica that revokes a licence tells every identity and gateway replica (their caches).
  identity: { calls: [], publishes: [LICENSE_REVOKED_SUBJECT, KEY_RETIRED_SUBJECT], subscribes: [LICENSE_REVOKED_SUBJECT], streams: [], serves: true },
  // Replicas share the burst limit: they announce themselves to each other and send a check
  // on to the replica owning its bucket (its take endpoint is under metering.v1.>, served).
  metering: {
    calls: [],
    publishes: [READS_SERVED_EVENT_SUBJECT, BURST_MEMBERS_SUBJECT, BURST_TAKE_SUBJECTS],
    subscribes: [BURST_MEMBERS_SUBJECT],
    streams: [{ stream: SERVED_READS_STREAM, info: true, consume: true }],
    serves: true,
  },
  payments: {
    calls: [identitySignInChallenge],
    publishes: [SETTLEMENT_EVENT_SUBJECT, PAYMENT_RAILS_EVENT_SUBJECT],
    subscribes: [],
    streams: [],
    serves: true,
  },
  board: {
    calls: [meteringReadsServed, paymentsStatus],
    publishes: [BOARD_PUBLISHED_SUBJECT],
    subscribes: [SETTLEMENT_EVENT_SUBJECT, READS_SERVED_EVENT_SUBJECT, PAYMENT_RAILS_EVENT_SUBJECT],
    streams: [{ stream: SNAPSHOT_STREAM, info: true, consume: true }],
    serves: true,
  },
  "scanner-ingest": {
    calls: [],
    publishes: [SNAPSHOT_SUBJECT, SERIES_SUBJECTS],
    subscribes: [],
    streams: [{ stream: SNAPSHOT_STREAM, info: true, get: true }],
    serves: true,
  },
  // The operator also pings every service (the launcher's readiness wait, a health check by hand)
  // and is the one that creates and updates the streams (the deploy step): no service may.
  operator: {
    calls: [...LICENCE_ENDPOINTS, ...ARREARS_ENDPOINTS, ...SERVICE_NAMES.map(pingEndpoint)],
    publishes: [],
    subscribes: [],
    streams: BUS_STREAMS.map((stream) => ({ stream, manage: true })),
    serves: false,
  },
};

/** The inbox prefix of a principal's connection: replies to it come only there, and only it may subscribe there. */
export const inboxPrefixOf = (principal: BusPrincipal): string => `_INBOX_${principal.replace(/-/g, "_")}`;
