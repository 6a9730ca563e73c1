// The page's one connection to the node: the documented msgpack protocol
// (docs/protocol.md) over the websocket of the page's own origin, as an
// anonymous spectator, or as a racer when `open` is given a name and a
// token (identity.js). Requests get an id and a promise; pushed messages go
// to whoever listens for their type.

import { decode, encode } from "/assets/vendor/msgpack/index.mjs";

const PROTOCOL_VERSION = 4;
const NAME = "Browser";
const MAX_FRAME = 1 << 20; // the server's own frame limit (docs/protocol.md, Limits)

/** A refusal from the server, with its error code. */
export class Refused extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export class Wire {
  constructor(url) {
    this.url = url;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject}
    this.listeners = new Map(); // type -> Set of functions
    this.onstate = () => {};
    this.socket = null;
    this.ready = null;
  }

  /**
   * Connects (once) and says hello; resolves with the welcome. `hello` adds
   * `name` and `token` (a racer's session); left out, the page is an anonymous
   * spectator named "Browser".
   */
  open(hello = {}) {
    if (this.ready) return this.ready;
    this.ready = new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url);
      socket.binaryType = "arraybuffer";
      this.socket = socket;
      socket.addEventListener("open", () => {
        const said = { t: "hello", v: PROTOCOL_VERSION, name: hello.name || NAME };
        if (hello.token) said.token = hello.token;
        this.request(said).then((welcome) => {
          this.welcome = welcome;
          resolve(welcome);
        }, reject);
      });
      socket.addEventListener("message", (event) => this.receive(event.data));
      socket.addEventListener("close", (event) => {
        const why = event.reason ? `: ${event.reason}` : "";
        const failure = new Refused("closed", `connection closed (${event.code}${why})`);
        this.closeCode = event.code;
        for (const { reject: fail } of this.pending.values()) fail(failure);
        this.pending.clear();
        this.ready = null;
        reject(failure);
        this.onstate("closed");
      });
    });
    return this.ready;
  }

  /** Sends a message and resolves with the reply carrying its id. */
  request(message) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(encode({ ...message, id }));
    });
  }

  /** Calls `listener` with every pushed message of type `type`; returns a remover. */
  on(type, listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(listener);
    return () => this.listeners.get(type).delete(listener);
  }

  receive(data) {
    if (!(data instanceof ArrayBuffer) || data.byteLength > MAX_FRAME) return;
    // Seeds are 64-bit: read such integers as BigInt so none loses digits.
    const message = decode(new Uint8Array(data), { useBigInt64: true });
    const id = message.id === undefined ? undefined : Number(message.id);
    if (id !== undefined && this.pending.has(id)) {
      const { resolve, reject } = this.pending.get(id);
      this.pending.delete(id);
      if (message.t === "error") reject(new Refused(message.code, message.message));
      else resolve(message);
      return;
    }
    for (const listener of this.listeners.get(message.t) ?? []) listener(message);
  }

  close() {
    this.listeners.clear();
    if (this.socket) this.socket.close(1000);
  }
}

/** The websocket address of the node that served this page. */
export function nodeUrl(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/`;
}
