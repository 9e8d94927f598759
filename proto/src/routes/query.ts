import { z } from "zod";

/**
 * Query values arrive as string, string[] (a repeated parameter) or undefined.
 * A repeated parameter is refused rather than guessed at.
 */
export const Single = z.string({
  error: (issue) => (issue.input === undefined ? "is required" : Array.isArray(issue.input) ? "must be given once" : "must be a string"),
});

/** preview: only the value 1 is allowed. */
export const PreviewParam = Single.pipe(z.literal("1", { error: "the only allowed value is 1" }));

/** sample: only the value 1 is allowed. */
export const SampleParam = Single.pipe(z.literal("1", { error: "the only allowed value is 1" }));

export const MAX_BATCH = 10;

/**
 * A list parameter's raw value: one string (sym=AAPL,MSFT) or, given more than once, several
 * (sym=AAPL&sym=MSFT, what openapi-fetch and other generators send by default). Any other
 * parameter given twice stays refused (Single).
 */
const ListValue = z.union([z.string(), z.array(z.string())], {
  error: (issue) => (issue.input === undefined ? "is required" : "must be a string"),
});

/**
 * One to ten symbols, comma-separated, repeated, or both (their union in order): one list
 * either way, so every spelling has the same limits and the same read. Unknown symbols are
 * not an error here (the read answers them with the directory); an empty list or more than
 * ten is, duplicates counted (the read serves each once).
 */
export const SymList = ListValue.transform((v) =>
  (typeof v === "string" ? [v] : v)
    .flatMap((s) => s.split(","))
    .map((x) => x.trim().toUpperCase())
    .filter((x) => x.length > 0),
).pipe(
  z
    .array(z.string().max(16, "each symbol is at most 16 characters"))
    .min(1, "give one to ten symbols, comma-separated or repeated")
    .max(MAX_BATCH, `at most ${MAX_BATCH} symbols per read`),
);

export const SectorNameParam = Single.pipe(z.string().trim().min(1, "must not be empty").max(64));

/** GET /api/auth/nonce: the wallet address and the CAIP-2 chain it signs on (identity checks both). */
export const SignInAddressParam = Single.pipe(z.string().trim().min(1, "give the wallet address").max(128));
export const SignInChainParam = Single.pipe(
  z.string().trim().min(1, "give the CAIP-2 chain id: eip155:8453, solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp or algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k").max(80),
);

/** A session, YYYY-MM-DD. */
export const DateParam = Single.pipe(z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a session date, YYYY-MM-DD"));

/** How many sessions a history read reaches back: 1 to 250. */
export const DaysParam = Single.pipe(
  z
    .string()
    .regex(/^\d{1,3}$/, "a whole number of sessions, 1 to 250")
    .transform(Number)
    .pipe(z.number().int().min(1, "at least 1 session").max(250, "at most 250 sessions")),
);

/** One book's code, lower case: spx, qqq, macro or crypto. */
export const BookParam = Single.pipe(z.enum(["spx", "qqq", "macro", "crypto"], { error: "one of spx, qqq, macro, crypto" }));

/** A proof-chain seq: /api/board/proof?before= pages back through the chain from it. */
export const SeqParam = Single.pipe(
  z
    .string()
    .regex(/^[1-9]\d{0,9}$/, "a commitment's seq: a whole number from 1")
    .transform(Number)
    .pipe(z.number().int().max(2_147_483_647, "a commitment's seq is at most 2147483647")),
);

/** A committed board's content hash (or its snapshot hash), as /api/board/state and the event feed name it. */
export const BoardHashParam = Single.pipe(z.string().regex(/^[0-9a-f]{64}$/, "a board's content hash: 64 lowercase hex characters"));
