import { hkdfSync } from "node:crypto";

/** Fixed salt and label: RECEIPT_SECRET is already high-entropy; they only keep this use of it apart from any other. */
const SALT = "board.payments.v1";
export const RECEIPT_KEY_ENCRYPTION_LABEL = "board.payments.receipt-key-encryption";

/** The 32-byte key that encrypts receipt signing keys at rest: HKDF-SHA256 of RECEIPT_SECRET. */
export const receiptKeyEncryptionKey = (receiptSecret: string): Uint8Array =>
  new Uint8Array(hkdfSync("sha256", receiptSecret, SALT, RECEIPT_KEY_ENCRYPTION_LABEL, 32));
