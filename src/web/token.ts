// The bearer token of the console (CONTRACT section 10): it arrives in the URL fragment (`#token=…`, which a
// browser never sends), is moved at once to this tab's session storage, and the fragment is removed from the
// address bar and from history (replaceState: the entry holding it is replaced, not followed). No cookie.

const KEY = "adapter-command.console.token";

/** Takes the token out of the fragment, if it is there; then the token of this tab, if any. */
export function takeToken(): string | undefined {
  const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (match) {
    let token = match[1] ?? "";
    try {
      token = decodeURIComponent(token);
    } catch {
      // Not percent-encoded as the start line writes it: taken as it is.
    }
    history.replaceState(history.state, "", `${location.pathname}${location.search}`);
    if (token !== "") sessionStorage.setItem(KEY, token);
  }
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function keepToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
