// /play: who this browser races as (guest, register, log in, log out), and
// the ways into a race: practice against a bot, a new race, a join code, a
// quick race. Every choice is a request the server answers; the page keeps
// nothing but the session token (identity.js).

import { LEVELS, practice, SPEEDS } from "/assets/js/bot.js";
import { fill, go, h } from "/assets/js/dom.js";
import { knownRaces } from "/assets/js/game.js";
import { forgetIdentity, loadIdentity, saveIdentity } from "/assets/js/identity.js";
import { VARIANTS } from "/assets/js/variants.js";
import { Wire, nodeUrl } from "/assets/js/wire.js";

function field(label, attributes) {
  const input = h("input", attributes);
  return { input, row: h("label", { class: "field" }, h("span", {}, label), input) };
}

function choice(label, name, options, chosen) {
  const select = h(
    "select",
    { name },
    options.map(([value, text]) => h("option", { value, selected: value === chosen }, text)),
  );
  return { select, row: h("label", { class: "field" }, h("span", {}, label), select) };
}

/** Runs `action` on click and on Enter in any of `inputs`; shows its failure in `say`. */
function wireUp(button, inputs, say, action) {
  const run = async () => {
    button.disabled = true;
    try {
      await action();
    } catch (error) {
      say(`✗ ${error.message}`);
    } finally {
      button.disabled = false;
    }
  };
  button.addEventListener("click", run);
  for (const input of inputs)
    input.addEventListener("keydown", (event) => event.key === "Enter" && run());
}

function identityPanel(wire, identity, say) {
  const name = field("Name", {
    name: "name",
    maxlength: 24,
    autocomplete: "username",
    value: identity?.name ?? "",
  });
  const password = field("Password", {
    name: "password",
    type: "password",
    maxlength: 128,
    autocomplete: "current-password",
  });
  const guest = h("button", { type: "button", class: "guest" }, "Play as guest");
  const login = h("button", { type: "button", class: "login" }, "Log in");
  const register = h("button", { type: "button", class: "register" }, "Register");
  const logout = h("button", { type: "button", class: "logout" }, "Log out");
  const chosenName = () => {
    const text = name.input.value.trim();
    if (!text) throw new Error("type a name first");
    return text;
  };
  wireUp(guest, [name.input], say, async () => {
    // A guest is a hello with a name: the server makes the session and its token.
    const fresh = new Wire(nodeUrl(location));
    try {
      saveIdentity(await fresh.open({ name: chosenName() }));
    } finally {
      fresh.close();
    }
    go(location.pathname);
  });
  const account = (type) => async () => {
    const said = await wire.request({
      t: type,
      name: chosenName(),
      password: password.input.value,
    });
    saveIdentity(said);
    go(location.pathname);
  };
  wireUp(login, [password.input], say, account("login"));
  wireUp(register, [], say, account("register"));
  wireUp(logout, [], say, async () => {
    // An account's token dies on the server; a guest's is simply forgotten here.
    if (identity && !identity.guest) await wire.request({ t: "logout" });
    forgetIdentity();
    go(location.pathname);
  });
  const who = identity
    ? h(
        "p",
        { class: "who" },
        "Playing as ",
        h("strong", {}, identity.name),
        identity.guest ? " (guest)" : " (account)",
        " ",
        logout,
      )
    : h("p", { class: "who" }, "Pick a name to play as a guest, or log in.");
  const upgrade = !identity || identity.guest;
  return h(
    "section",
    { class: "identity panel" },
    h("h2", {}, "Who you are"),
    who,
    upgrade
      ? h(
          "div",
          { class: "fields" },
          name.row,
          identity ? null : guest,
          password.row,
          h("span", { class: "buttons" }, login, register),
        )
      : null,
    h(
      "p",
      { class: "quiet" },
      "Your session is kept in this browser, for every tab of this site: " +
        "a race opened in a second tab continues there.",
    ),
  );
}

function racePanel(wire, say, account) {
  const variants = VARIANTS.map((v) => [v.id, v.title]);
  const variant = choice("Game", "variant", variants, "royal-cotillion");
  const level = choice(
    "Bot",
    "level",
    LEVELS.map((l) => [l, l]),
    "greedy",
  );
  const speed = choice(
    "Bot speed",
    "speed",
    SPEEDS.map((n) => [String(n), `${n} moves/s`]),
    "1.5",
  );
  const racers = choice(
    "Racers",
    "racers",
    [2, 3, 4, 5, 6, 7, 8].map((n) => [String(n), String(n)]),
    "2",
  );
  const code = field("Join code", { name: "code", maxlength: 12, autocomplete: "off" });
  const tournament = field("Tournament code", {
    name: "tournament",
    maxlength: 12,
    autocomplete: "off",
  });
  const entry = field("Entry password (if any)", {
    name: "entry",
    type: "password",
    maxlength: 64,
    autocomplete: "off",
  });
  const enter = h("button", { type: "button", class: "enter" }, "Enter tournament");
  const practiceButton = h("button", { type: "button", class: "practice" }, "Practice vs bot");
  const create = h("button", { type: "button", class: "create" }, "Create race");
  const join = h("button", { type: "button", class: "join" }, "Join");
  const quick = h("button", { type: "button", class: "quick" }, "Quick race");
  // The day's deal is the same for every account: accounts only, once a day.
  const daily = account ? h("button", { type: "button", class: "daily" }, "Daily deal") : null;
  const leaveQueue = h("button", { type: "button", class: "leave-queue", hidden: true }, "Leave");
  const queued = h("p", { class: "queued", role: "status" });
  const showQueue = (state) => {
    fill(queued, state.queued ? `Waiting for a quick race (rating ${state.rating ?? "?"})…` : "");
    leaveQueue.hidden = !state.queued;
  };
  wireUp(practiceButton, [], say, () =>
    practice(wire, variant.select.value, level.select.value, Number(speed.select.value)),
  );
  wireUp(create, [], say, async () => {
    const made = await wire.request({
      t: "create_race",
      variant: variant.select.value,
      max_players: Number(racers.select.value),
      time_limit: 600,
    });
    go(`/play/${made.race.id}`);
  });
  wireUp(join, [code.input], say, async () => {
    const joined = await wire.request({ t: "join_race", code: code.input.value.trim() });
    go(`/play/${joined.race.id}`);
  });
  wireUp(quick, [], say, async () =>
    showQueue(await wire.request({ t: "quick_race", variant: variant.select.value })),
  );
  wireUp(enter, [tournament.input, entry.input], say, async () => {
    const request = { t: "join_tournament", code: tournament.input.value.trim() };
    if (entry.input.value) request.password = entry.input.value;
    const joined = await wire.request(request);
    go(`/play/tournament/${encodeURIComponent(joined.tournament.code)}`);
  });
  wireUp(leaveQueue, [], say, async () => showQueue(await wire.request({ t: "leave_queue" })));
  if (daily)
    wireUp(daily, [], say, async () => {
      const found = await wire.request({ t: "play_daily", variant: variant.select.value });
      knownRaces.set(found.race, found.info);
      go(`/play/${found.race}`);
    });
  return {
    showQueue,
    panel: h(
      "section",
      { class: "start panel" },
      h("h2", {}, "Race"),
      h("div", { class: "fields" }, variant.row, level.row, speed.row, practiceButton),
      h("div", { class: "fields" }, racers.row, create),
      h("div", { class: "fields" }, code.row, join),
      h("div", { class: "fields" }, quick, leaveQueue, daily),
      h("div", { class: "fields" }, tournament.row, entry.row, enter),
      queued,
    ),
  };
}

export async function showPlay(wire, main, stop) {
  document.title = "Ballroom · play";
  const identity = loadIdentity();
  const notice = h("p", { class: "notice", role: "status" });
  const say = (text) => fill(notice, text);
  const parts = [h("h1", {}, "Ballroom: race"), notice, identityPanel(wire, identity, say)];
  if (identity) {
    const { panel, showQueue } = racePanel(wire, say, !identity.guest);
    parts.push(panel);
    stop.push(
      wire.on("queue", showQueue),
      // A quick race found (now, or while this browser was away): to its board.
      wire.on("matched", (m) => {
        knownRaces.set(m.race, m.info);
        go(`/play/${m.race}`);
      }),
    );
  }
  fill(main, parts);
}
