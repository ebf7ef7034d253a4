/**
 * Who signs in at the consent page. The connector is not an identity
 * provider: a deployment plugs its own in here (an upstream sign-in, a session
 * cookie of its app). Local development uses `LocalIdentity`, which trusts the
 * user name typed on the page and must never be enabled in production.
 */
import { USER_NAME, type Settings } from "../settings.js";

export interface IdentityProvider {
  /** Whether the consent page shows a user-name field (local development only). */
  readonly asksForUserName: boolean;
  /**
   * The user at the consent page: their ID, or a Response that signs them in
   * first (a redirect to an identity provider that comes back to this URL).
   * `form` is the submitted consent form, or null when the page is shown.
   */
  identify(request: Request, form: FormData | null): Promise<string | Response>;
}

/** Local development: the user is whoever the page says (`login_hint`, then the typed name). */
export class LocalIdentity implements IdentityProvider {
  readonly asksForUserName = true;

  constructor(private readonly defaultUser: string) {}

  async identify(request: Request, form: FormData | null): Promise<string | Response> {
    const typed = form?.get("user");
    const hint = new URL(request.url).searchParams.get("login_hint");
    const user = (typeof typed === "string" ? typed : (hint ?? this.defaultUser)).trim().toLowerCase();
    if (!USER_NAME.test(user)) {
      return new Response("A local user name is 1 to 64 of a-z, 0-9, '.', '_' or '-'.", { status: 400 });
    }
    return user;
  }
}

/** The identity provider this deployment configured, or null when none is. */
export function identityFor(settings: Settings): IdentityProvider | null {
  return settings.localSignIn === null ? null : new LocalIdentity(settings.localSignIn.defaultUser);
}
