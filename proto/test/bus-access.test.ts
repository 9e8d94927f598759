import { describe, expect, it } from "vitest";
import { BUS_ENDPOINTS, BUS_GRANTS, BUS_PRINCIPALS, busEndpoint, paymentsArrearsClear, paymentsArrearsList, SERVICE_NAMES } from "../src/index.js";

/** Who may call each subject, from the grants. */
const callers = (subject: string) => BUS_PRINCIPALS.filter((p) => BUS_GRANTS[p].calls.some((e) => e.subject === subject));

describe("bus grants against the catalogue of endpoints", () => {
  it("a dotted endpoint name nests under the service's group: payments.v1.arrears.list and .clear", () => {
    expect(paymentsArrearsList).toMatchObject({ service: "payments", group: "payments.v1.arrears", name: "list", subject: "payments.v1.arrears.list" });
    expect(paymentsArrearsClear).toMatchObject({ group: "payments.v1.arrears", name: "clear", subject: "payments.v1.arrears.clear" });
    expect(busEndpoint("payments", "status", paymentsArrearsList.request, paymentsArrearsList.reply)).toMatchObject({ group: "payments.v1", name: "status", subject: "payments.v1.status" });
  });

  it("every endpoint of the catalogue is served by its service, under <service>.v1, and has a caller", () => {
    for (const ep of BUS_ENDPOINTS) {
      expect(BUS_GRANTS[ep.service].serves, ep.subject).toBe(true);
      expect(ep.subject.startsWith(`${ep.service}.v1.`), ep.subject).toBe(true);
      expect(callers(ep.subject).length, ep.subject).toBeGreaterThan(0);
    }
  });

  it("every endpoint a principal may call is in the catalogue (so the contract test asks it)", () => {
    const catalogued = new Set(BUS_ENDPOINTS.map((e) => e.subject));
    expect(BUS_PRINCIPALS.flatMap((p) => BUS_GRANTS[p].calls.map((e) => e.subject)).filter((s) => !catalogued.has(s))).toEqual([]);
  });

  it("only the operator may call the licence and arrears endpoints (and the pings); the operator serves nothing", () => {
    const operatorOnly = BUS_GRANTS.operator.calls.map((e) => e.subject).filter((s) => callers(s).length === 1);
    expect(operatorOnly.sort()).toEqual(
      [
        "identity.v1.license_issue",
        "identity.v1.license_list",
        "identity.v1.license_cancel",
        "identity.v1.license_renew",
        "identity.v1.license_revoke",
        "payments.v1.arrears.list",
        "payments.v1.arrears.clear",
        ...SERVICE_NAMES.map((s) => `${s}.v1.ping`),
      ].sort(),
    );
    expect(BUS_GRANTS.operator.calls.every((e) => callers(e.subject).length === 1)).toBe(true);
    expect(BUS_GRANTS.operator.serves).toBe(false);
  });
});
