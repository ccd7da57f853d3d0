"use client";

import { useEffect, useId, useMemo, useRef, useState } from "react";
import { checkboxClass, inputClass } from "@/components/ui/field";
import type { ScopeGroup } from "./types";

/**
 * The scopes of one level, grouped and searchable. Every checkbox stays in the form while a search
 * hides it, so a filtered view never drops a chosen scope. Each checkbox is named exactly by its
 * scope; the description is its aria-describedby.
 */
export function ScopePicker({
  groups,
  selected,
  onChange,
  error,
  levelWords,
}: {
  groups: ScopeGroup[];
  selected: ReadonlySet<string>;
  onChange: (next: Set<string>) => void;
  error?: string;
  levelWords: string;
}) {
  const id = useId();
  const [query, setQuery] = useState("");
  const q = query.trim().toLowerCase();
  const total = useMemo(() => groups.reduce((n, g) => n + g.scopes.length, 0), [groups]);

  const visible = useMemo(() => {
    const matches = new Set<string>();
    for (const g of groups) {
      const groupHit = g.group.toLowerCase().includes(q);
      for (const s of g.scopes) {
        if (!q || groupHit || s.name.toLowerCase().includes(q) || s.description.toLowerCase().includes(q)) {
          matches.add(s.name);
        }
      }
    }
    return matches;
  }, [groups, q]);

  function toggle(names: string[], on: boolean) {
    const next = new Set(selected);
    for (const n of names) on ? next.add(n) : next.delete(n);
    onChange(next);
  }

  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;

  return (
    <fieldset aria-describedby={error ? `${errorId} ${hintId}` : hintId} aria-invalid={error ? true : undefined}>
      <legend className="text-sm font-medium text-slate-800">Scopes</legend>
      <p id={hintId} className="mt-1 text-xs text-slate-500">
        Only the {total} scopes that work for {levelWords} are listed. Give it only what it needs; you can change them
        later without a new token.
      </p>
      {error ? (
        <p id={errorId} className="mt-1 text-sm text-red-600">
          {error}
        </p>
      ) : null}
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <label htmlFor={`${id}-search`} className="sr-only">
          Search scopes
        </label>
        <input
          id={`${id}-search`}
          type="search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            // Enter in the search box must not submit the form.
            if (e.key === "Enter") e.preventDefault();
            // Escape clears the search first; only an empty search lets it cancel the form.
            if (e.key === "Escape" && query) {
              e.preventDefault();
              e.stopPropagation();
              setQuery("");
            }
          }}
          placeholder="Search scopes, e.g. contacts"
          autoComplete="off"
          className={`${inputClass} max-w-xs`}
        />
        <p aria-live="polite" className="text-sm text-slate-600">
          {selected.size} of {total} selected
          {q ? ` · ${visible.size} match${visible.size === 1 ? "" : "es"}` : ""}
        </p>
        {selected.size ? (
          <button
            type="button"
            onClick={() => onChange(new Set())}
            className="text-sm text-brand-700 underline-offset-2 hover:underline"
          >
            Clear selection
          </button>
        ) : null}
      </div>
      {/* relative: the groups' sr-only legends are absolutely positioned; without a positioned box
          they escape the scroll box and lengthen the page by the hidden rows' height. */}
      <div
        className={`relative mt-3 max-h-[26rem] space-y-4 overflow-y-auto rounded-md p-3 ring-1 ${error ? "ring-red-300" : "ring-slate-200"}`}
      >
        {visible.size === 0 ? <p className="text-sm text-slate-600">No scope matches “{query.trim()}”.</p> : null}
        {groups.map((g) => (
          <ScopeGroupBox key={g.group} group={g} visible={visible} selected={selected} toggle={toggle} id={id} />
        ))}
      </div>
    </fieldset>
  );
}

function ScopeGroupBox({
  group,
  visible,
  selected,
  toggle,
  id,
}: {
  group: ScopeGroup;
  visible: ReadonlySet<string>;
  selected: ReadonlySet<string>;
  toggle: (names: string[], on: boolean) => void;
  id: string;
}) {
  const shown = group.scopes.filter((s) => visible.has(s.name)).map((s) => s.name);
  const chosen = group.scopes.filter((s) => selected.has(s.name)).length;
  const shownChosen = shown.filter((n) => selected.has(n)).length;
  const all = shown.length > 0 && shownChosen === shown.length;
  const some = shownChosen > 0 && !all;
  const selectAllRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (selectAllRef.current) selectAllRef.current.indeterminate = some;
  }, [some]);
  const slug = `${id}-${group.group.replace(/\W+/g, "-")}`;

  return (
    <fieldset hidden={shown.length === 0} className="space-y-2">
      <legend className="sr-only">{group.group}</legend>
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-100 pb-1">
        <span aria-hidden="true" className="text-sm font-semibold text-slate-800">
          {group.group}
        </span>
        <span className="flex items-center gap-3 text-xs text-slate-500">
          <span>
            {chosen}/{group.scopes.length} selected
          </span>
          <label className="flex items-center gap-1.5 text-slate-700">
            <input
              ref={selectAllRef}
              type="checkbox"
              checked={all}
              onChange={(e) => toggle(shown, e.target.checked)}
              aria-label={`Select all ${group.group} scopes${shown.length < group.scopes.length ? " shown" : ""}`}
              className={checkboxClass}
            />
            <span aria-hidden="true">Select all</span>
          </label>
        </span>
      </div>
      <div className="grid gap-x-6 gap-y-1.5 sm:grid-cols-2">
        {group.scopes.map((s) => {
          const inputId = `${slug}-${s.name.replace(/\W+/g, "-")}`;
          return (
            <div key={s.name} hidden={!visible.has(s.name)} className="flex items-start gap-2">
              <input
                id={inputId}
                type="checkbox"
                name="scopes[]"
                value={s.name}
                checked={selected.has(s.name)}
                onChange={(e) => toggle([s.name], e.target.checked)}
                aria-describedby={`${inputId}-desc`}
                className={`mt-0.5 shrink-0 ${checkboxClass}`}
              />
              <div className="min-w-0 leading-tight">
                <label htmlFor={inputId} className="font-mono text-[13px] break-all text-slate-900">
                  {s.name}
                </label>
                <p id={`${inputId}-desc`} className="text-xs text-slate-500">
                  {s.description}
                </p>
              </div>
            </div>
          );
        })}
      </div>
    </fieldset>
  );
}
