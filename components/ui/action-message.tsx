/**
 * A small action's answer in a line beside its button: the refusal (read out at once) or the
 * confirmation. FormMessage in ./field is the boxed one at the top of a whole form.
 */
export function ActionMessage({
  error,
  message,
  className = "text-sm",
}: {
  error?: string;
  message?: string;
  /** Size and width; the colours are fixed. */
  className?: string;
}) {
  if (error) {
    return (
      <p role="alert" className={`${className} text-red-600`}>
        {error}
      </p>
    );
  }
  return message ? (
    <p role="status" className={`${className} text-emerald-700`}>
      {message}
    </p>
  ) : null;
}
