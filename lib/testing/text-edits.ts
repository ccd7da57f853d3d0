import fc from "fast-check";

/**
 * One edit of a credential's text, for the properties that a credential is accepted only as it was
 * issued: a character replaced, inserted or removed at any place, or the text cut there.
 */
export interface TextEdit {
  kind: "replace" | "insert" | "remove" | "cut";
  /** Taken modulo the text's length, so one arbitrary fits every text. */
  at: number;
  char: string;
}

/** Edits drawing their characters from `alphabet` (a token's own and its neighbours'). */
export const textEdit = (alphabet: string): fc.Arbitrary<TextEdit> =>
  fc.record({
    kind: fc.constantFrom("replace", "insert", "remove", "cut"),
    at: fc.nat(),
    char: fc.constantFrom(...alphabet),
  });

/** `text` with `edit` made (possibly the same text: a character replaced by itself). */
export function applyEdit(text: string, { kind, at, char }: TextEdit): string {
  const i = at % text.length;
  if (kind === "replace") return text.slice(0, i) + char + text.slice(i + 1);
  if (kind === "insert") return text.slice(0, i) + char + text.slice(i);
  if (kind === "remove") return text.slice(0, i) + text.slice(i + 1);
  return text.slice(0, i);
}
