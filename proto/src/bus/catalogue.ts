import { boardRead } from "./board.js";
import { SERVICE_NAMES, type BusEndpoint } from "./endpoint.js";
import {
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
} from "./payments.js";
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
} from "./identity.js";
import { identityAuthorize, identityConsent, identityRegister } from "./oauth.js";
import { meteringConsume, meteringConsumeMany, meteringNewCredential, meteringReadsServed, meteringRefund } from "./metering.js";
import { pingEndpoint } from "./ping.js";

/** Every endpoint served on the bus today: the contract test sends each one a request and checks the reply. */
export const BUS_ENDPOINTS: readonly BusEndpoint[] = [
  ...SERVICE_NAMES.map((s) => pingEndpoint(s)),
  boardRead,
  paymentsRequirements,
  paymentsCatalogue,
  paymentsClaim,
  paymentsSettle,
  paymentsRelease,
  paymentsStatus,
  paymentsDidDocument,
  paymentsReceipt,
  paymentsArrearsList,
  paymentsArrearsClear,
  identityResolve,
  identityFreeKey,
  identitySignInChallenge,
  identitySignInVerify,
  identityToken,
  identityJwks,
  identityAuthorize,
  identityConsent,
  identityRegister,
  identityLicenseIssue,
  identityLicenseList,
  identityLicenseCancel,
  identityLicenseRenew,
  identityLicenseRevoke,
  meteringConsume,
  meteringConsumeMany,
  meteringRefund,
  meteringReadsServed,
  meteringNewCredential,
];
