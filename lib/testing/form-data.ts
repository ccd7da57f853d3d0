/** A server action's FormData from plain fields; a list gives the field once per item (`scopes[]`). */
export function formData(fields: Record<string, string | string[]>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) for (const item of [value].flat()) data.append(name, item);
  return data;
}
