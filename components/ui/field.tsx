import { type ComponentProps, createElement, type ReactNode } from "react";

export const inputClass =
  "block w-full rounded-md border-0 px-3 py-2 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-500 placeholder:text-slate-500 focus:ring-2 focus:ring-inset focus:ring-brand-600 aria-[invalid=true]:ring-red-500";

/** A labelled form field with its error beside it, wired up for screen readers. */
export function Field({
  id,
  label,
  error,
  hint,
  children,
}: {
  id: string;
  label: string;
  error?: string;
  hint?: string;
  children: ReactNode;
}) {
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      {children}
      <FieldNotes id={id} error={error} hint={hint} />
    </div>
  );
}

/** The hint (until there is an error) or the error below a control, with the ids `describedBy` names. */
export function FieldNotes({ id, error, hint }: { id: string; error?: string; hint?: string }) {
  return (
    <>
      {hint && !error ? (
        <p id={`${id}-hint`} className="text-xs text-slate-500">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="text-sm text-red-600">
          {error}
        </p>
      ) : null}
    </>
  );
}

/** What a labelled control needs: its id, label, and the error or hint said beside it. */
interface FieldFrame {
  id: string;
  label: string;
  error?: string;
  hint?: string;
  /** Added to inputClass (font-mono, a width). */
  className?: string;
}

type Control = "input" | "textarea" | "select";
type ControlFieldProps<T extends Control> = FieldFrame & Omit<ComponentProps<T>, "id" | "className">;

/** A Field holding one control of the given tag, tied to its label, hint and error. */
function ControlField<T extends Control>({
  tag,
  id,
  label,
  error,
  hint,
  className,
  ...control
}: { tag: T } & ControlFieldProps<T>) {
  const props = {
    ...describedBy(id, error, hint),
    ...control,
    className: className ? `${inputClass} ${className}` : inputClass,
  };
  return (
    <Field id={id} label={label} error={error} hint={hint}>
      {createElement(tag, props)}
    </Field>
  );
}

export function InputField(props: ControlFieldProps<"input">) {
  return <ControlField tag="input" {...props} />;
}

export function TextareaField(props: ControlFieldProps<"textarea">) {
  return <ControlField tag="textarea" {...props} />;
}

/** Its options are the children. */
export function SelectField(props: ControlFieldProps<"select">) {
  return <ControlField tag="select" {...props} />;
}

/** A group of radios or checkboxes under a legend, with its error below, tied to it for screen readers. */
export function ChoiceGroup({
  legend,
  errorId,
  error,
  errorClassName = "text-sm text-red-600",
  children,
  ...fieldset
}: {
  legend: string;
  errorId: string;
  error?: string;
  errorClassName?: string;
  children: ReactNode;
} & Omit<ComponentProps<"fieldset">, "children">) {
  return (
    <fieldset {...fieldset} aria-describedby={error ? errorId : undefined}>
      <legend className="text-sm font-medium text-slate-800">{legend}</legend>
      {children}
      {error ? (
        <p id={errorId} className={errorClassName}>
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

/** The boxes of the forms' checkboxes and radios (16 px). */
export const checkboxClass = "h-4 w-4 rounded border-slate-500";
export const radioClass = "h-4 w-4 border-slate-500";

/** One radio or checkbox with its words beside it; className styles the box itself. */
export function Choice({
  children,
  labelClassName = "flex items-center gap-2 text-sm",
  ...input
}: { children: ReactNode; labelClassName?: string } & Omit<ComponentProps<"input">, "children">) {
  return (
    <label className={labelClassName}>
      <input {...input} />
      {children}
    </label>
  );
}

/** Props that tie an input to its Field's error and hint. */
export function describedBy(id: string, error?: string, hint?: string) {
  const ids = [error ? `${id}-error` : null, hint && !error ? `${id}-hint` : null].filter(Boolean);
  return {
    id,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": ids.length ? ids.join(" ") : undefined,
  } as const;
}

export function FormMessage({ error, message }: { error?: string; message?: string }) {
  if (error) {
    return (
      <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 ring-1 ring-red-200">
        {error}
      </p>
    );
  }
  if (message) {
    return (
      <p role="status" className="rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-800 ring-1 ring-emerald-200">
        {message}
      </p>
    );
  }
  return null;
}
