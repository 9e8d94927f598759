import type { TokenReply, TokenRequest } from "@board/proto";
import type { CodeGrants } from "./code-grant.js";
import type { LicenseClient, OAuth } from "./index.js";
import { refuse } from "./token-request.js";

export interface TokenEndpointDeps {
  oauth: Pick<OAuth, "token">;
  codeGrants: CodeGrants;
  /** The client credentials grant's authentication: the licence key as the secret of the licence's client id. */
  authenticateLicense: (clientId: string, secret: string) => Promise<LicenseClient | null>;
}

/** POST /oauth/token: each grant type to its handler. */
export function answerToken(d: TokenEndpointDeps, req: TokenRequest): Promise<TokenReply> {
  if (req.malformed !== undefined) return Promise.resolve(refuse("invalid_request", req.malformed));
  switch (req.grant_type) {
    case "client_credentials":
      return d.oauth.token(req, d.authenticateLicense);
    case "authorization_code":
      return d.codeGrants.authorizationCode(req);
    case "refresh_token":
      return d.codeGrants.refreshToken(req);
    case undefined:
    case "":
      return Promise.resolve(refuse("invalid_request", "grant_type is required"));
    default:
      return Promise.resolve(refuse("unsupported_grant_type", "the grant types are client_credentials, authorization_code and refresh_token"));
  }
}
