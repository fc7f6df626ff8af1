/** The shape of a catalogue in another language: every key of the Vietnamese one, each a string. */
export type Catalogue<T> = { [K in keyof T]: T[K] extends string ? string : Catalogue<T[K]> };
