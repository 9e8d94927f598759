// Base64 without Buffer, so the same code runs in browsers (btoa is global in Node 16+ too).

export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export const base64Text = (text: string): string => base64(new TextEncoder().encode(text));
