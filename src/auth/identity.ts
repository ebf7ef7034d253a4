/**
 * Who signs in at the consent page. The connector is not an identity
 * provider: a deployment names an OpenID Connect provider (`OidcIdentity`,
 * src/auth/oidc.ts), where the person signs in after consenting. Local
 * development uses `LocalIdentity`, which trusts the user name typed on the
 * page and must never be enabled in production (settings refuse it with a
 * public PUBLIC_URL or with OIDC_ISSUER).
 */
import { USER_NAME, type Settings } from "../settings.js";
import { OidcIdentity } from "./oidc.js";

/** The two ways to sign in: the user is known on the consent page (local), or after it, at the provider. */
type IdentityProvider = LocalIdentity | OidcIdentity;

/** Local development: the user is whoever the page says (`login_hint`, then the typed name). */
export class LocalIdentity {
  constructor(private readonly defaultUser: string) {}

  /** The user at the consent page, or a refusal; `form` is the submitted consent form, or null when the page is shown. */
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
  if (settings.oidc !== null) return new OidcIdentity(settings.oidc);
  return settings.localSignIn === null ? null : new LocalIdentity(settings.localSignIn.defaultUser);
}
