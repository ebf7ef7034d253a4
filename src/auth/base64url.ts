/** The SHA-256 digest of a text's UTF-8: PKCE challenges and the issuer's tag and long subjects of user IDs. */
export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** Bytes as unpadded base64url (RFC 4648 §5): PKCE challenges (RFC 7636) and hashed OpenID subjects. */
export function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
