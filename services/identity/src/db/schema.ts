/** Every table of the identity schema: what drizzle-kit generates migrations from and the runtime queries with. */
export { identity } from "./identity-schema.js";
export { boardKeyKind, boardKeys, type BoardKeyRow } from "./board-keys.table.js";
export { licenseKind, licensePeriod, licenses, type LicenseRow } from "./licenses.table.js";
export { signingKeys, type SigningKeyRow } from "../oauth/signing-keys.table.js";
export { clientAuthMethod, oauthClients, type OAuthClientRow } from "../oauth/clients.table.js";
export { authorizationCodes, refreshFamilies, refreshTokens, type AuthorizationCodeRow, type RefreshFamilyRow, type RefreshTokenRow } from "../oauth/grants.table.js";
