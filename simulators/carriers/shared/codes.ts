import { randomInt } from 'node:crypto';

// Without 0/O and 1/I, as carriers print codes people read out on the phone.
const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export function randomCode(length: number): string {
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
}

export function randomDigits(length: number): string {
  return Array.from({ length }, () => randomInt(10)).join('');
}
