/** Every table of the identity schema: what drizzle-kit generates migrations from and the runtime queries with. */
export { identity } from "./identity-schema.js";
export { boardKeyKind, boardKeys, type BoardKeyRow } from "./board-keys.table.js";
export { licenseKind, licensePeriod, licenses, type LicenseRow } from "./licenses.table.js";
export { signingKeys, type SigningKeyRow } from "../oauth/signing-keys.table.js";
