import type { z } from "zod";

/**
 * The operator CLI (SPEC.md, Operator CLI). Each command validates its flags with zod and returns
 * the JSON object printed on stdout. Repeatable flags arrive as arrays.
 */
export interface CliCommand<S extends z.ZodType = z.ZodType> {
  description: string;
  /** Flag names as typed (kebab-case), e.g. "--install-setting" → "install-setting". */
  flags: S;
  /** Flags that may be given more than once; they always arrive as arrays. */
  repeatable?: readonly string[];
  run(flags: z.infer<S>): Promise<Record<string, unknown>>;
}

export function defineCommand<S extends z.ZodType>(command: CliCommand<S>): CliCommand {
  return command as unknown as CliCommand;
}
