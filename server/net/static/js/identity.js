// Who this browser races as: the session the server gave it (a guest's, or an
// account's after register or login), kept in localStorage under one key.
//
// Why localStorage: it is shared by every tab of this origin, as the terminal
// client's token file is shared by its windows, so a browser is one player
// (one identity per seat): a second tab that opens a race of this player
// takes the seat, and the server tells the first (`seat_taken`). It is read
// by this origin's scripts only, and the page's policy runs no script but its
// own files (no inline script, no third-party script, no frames), so no other
// site and no injected markup can read the token; other sites cannot use it
// either, since the node refuses websockets from foreign origins.

const KEY = "ballroom.session";

/** The kept session {name, token, player, guest}, or null. */
export function loadIdentity() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) ?? "null");
    if (kept && typeof kept.token === "string" && typeof kept.name === "string") return kept;
  } catch {
    // A damaged entry is no identity.
  }
  return null;
}

/** Keeps what `welcome` or `account` said, for every tab and later visits. */
export function saveIdentity(said) {
  const kept = {
    name: String(said.name),
    token: String(said.token),
    player: String(said.player),
    guest: said.guest !== false,
  };
  localStorage.setItem(KEY, JSON.stringify(kept));
  return kept;
}

/** Forgets the session (after logout, or a token the server no longer knows). */
export function forgetIdentity() {
  localStorage.removeItem(KEY);
}

/** Calls `listener` when another tab logs in or out; returns a remover. */
export function onIdentityChange(listener) {
  const heard = (event) => {
    if (event.key === KEY || event.key === null) listener(loadIdentity());
  };
  window.addEventListener("storage", heard);
  return () => window.removeEventListener("storage", heard);
}
