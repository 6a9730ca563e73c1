// The deal commitment, checked in the browser (docs/protocol.md, "The deal
// commitment"): the lowercase hex SHA-256 of
// "ballroom-commit/v1/{variant}/{deal_version}/{seed}/{race_id}".
//
// Web Crypto exists only in a secure context (HTTPS, or localhost). A page
// served over plain HTTP from another host checks with @noble/hashes (an
// audited SHA-256, shipped with the page) instead, and says which it used.

import { sha256 } from "/assets/vendor/noble-hashes/sha2.js";

/** The bytes the commitment hashes. Seeds may be BigInt: String keeps every digit. */
export function preimage(variant, dealVersion, seed, raceId) {
  return `ballroom-commit/v1/${variant}/${String(dealVersion)}/${String(seed)}/${raceId}`;
}

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 of a text, as hex, and which implementation computed it. */
export async function sha256Hex(text) {
  const bytes = new TextEncoder().encode(text);
  if (globalThis.isSecureContext && globalThis.crypto?.subtle) {
    return {
      digest: hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))),
      by: "Web Crypto",
    };
  }
  return {
    digest: hex(sha256(bytes)),
    by: "the page's SHA-256 (@noble/hashes; no Web Crypto over plain HTTP)",
  };
}

/** Whether the revealed seed matches the commitment published at the start. */
export async function checkCommitment(variant, dealVersion, seed, raceId, commitment) {
  const text = preimage(variant, dealVersion, seed, raceId);
  const { digest, by } = await sha256Hex(text);
  return { ok: digest === String(commitment).toLowerCase(), digest, by, text };
}
