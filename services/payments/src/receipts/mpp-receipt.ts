import type { CommitmentRef } from "@board/proto";
import type { JWSSignedReceipt } from "@x402/extensions/offer-receipt";
import type { Receipt } from "mppx";

/**
 * MPP's Payment-Receipt with what the x402 receipt states too (MPP receipts carry method
 * fields beyond the base set; mppx keeps unknown fields): the board version's content hash,
 * commitment and commitment number, and the same signed receipt as a JWS (`signedReceipt`).
 * mppx is loaded when MPP is first used: a replica without MPP never holds it.
 */
export async function mppReceiptWithProof(serialized: string, signed: JWSSignedReceipt | null, commitment: CommitmentRef | undefined): Promise<string> {
  if (!signed && !commitment) return serialized;
  const { Receipt } = await import("mppx");
  const receipt = Receipt.deserialize(serialized);
  return Receipt.serialize({
    ...receipt,
    ...(commitment && { contentHash: commitment.content_hash, commitment: commitment.commitment, proofSeq: commitment.seq }),
    ...(signed && { signedReceipt: signed.signature }),
  } as Receipt.Receipt);
}
