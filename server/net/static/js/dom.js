// Small helpers for building the page. Text always goes in as text, never as
// markup: names and labels come from other people.

/** An element with attributes (class, href, …) and children (nodes or text). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    // Styles through the CSSOM: the page's policy refuses style attributes.
    else if (name === "style") {
      for (const [property, setting] of Object.entries(value)) {
        element.style.setProperty(property, String(setting));
      }
    } else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** Replaces everything inside `parent` with `children`. */
export function fill(parent, ...children) {
  parent.replaceChildren();
  for (const child of children.flat()) {
    if (child !== undefined && child !== null && child !== false) parent.append(child);
  }
  return parent;
}

/** Seconds as m:ss (or h:mm:ss). */
export function clock(seconds) {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** A player's display name from a race info's `names` (or the id). */
export function nameOf(info, player) {
  return (info && info.names && info.names[player]) || player;
}

/** How a race may be watched, in words. */
export function policyText(spectate, delay) {
  if (spectate === "live") return "live";
  if (spectate === "delayed") return `${Number(delay)} s behind`;
  return "after the race";
}

/**
 * What a race is called where a person picks it: its join code; a tournament's
 * table (which has none) by its tournament's name; a quick race or a daily
 * deal's race (made by the server, no code either) by what it is.
 */
export function raceName(info) {
  if (info.code) return String(info.code);
  if (info.tournament) return info.host_name || "tournament table";
  if (info.host === "quick") return "quick race";
  if (info.host === "daily") return "daily deal";
  return String(info.id);
}

/** The link to a tournament table's tournament page (null for any other race). */
export function tournamentLink(info) {
  if (!info.tournament || !info.tournament_code) return null;
  return h(
    "a",
    { href: `/tournament/${encodeURIComponent(info.tournament_code)}`, class: "tournament-link" },
    info.host_name || String(info.tournament_code),
  );
}

/** Opens another of the page's addresses without reloading (main.js shows it). */
export function go(path) {
  if (path !== location.pathname) history.pushState(null, "", path);
  window.dispatchEvent(new PopStateEvent("popstate"));
}
