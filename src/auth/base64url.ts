/** Bytes as unpadded base64url (RFC 4648 §5): PKCE challenges (RFC 7636) and hashed OpenID subjects. */
export function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
