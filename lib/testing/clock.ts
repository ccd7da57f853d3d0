/** `ms` milliseconds after `from` (before it when negative): the moments a test steps its clock through. */
export const later = (from: Date, ms: number): Date => new Date(from.getTime() + ms);
