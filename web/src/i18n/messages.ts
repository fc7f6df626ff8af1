/** The shape of the messages in another language: every key of the Vietnamese ones, each a string. */
export type Messages<T> = { [K in keyof T]: T[K] extends string ? string : Messages<T[K]> };
