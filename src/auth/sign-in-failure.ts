/**
 * Why a sign-in through the upstream provider stopped: what the person reads
 * on the page and its HTTP status (4xx for the person's or the browser's side,
 * 502 for the provider's). The text names what went wrong and never carries a
 * code, a token or a secret.
 */
export class SignInFailure extends Error {
  constructor(
    readonly status: 400 | 403 | 502,
    /** One or two plain sentences, for the page. */
    readonly explanation: string,
  ) {
    super(explanation);
    this.name = "SignInFailure";
  }
}
