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

/** Unpadded base64url back to bytes; throws on text that is not base64url. */
export function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** `bytes` random bytes as base64url: PKCE verifiers, states and nonces. */
export function randomBase64url(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}
