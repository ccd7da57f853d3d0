-- The order of names on the screens (lib/integrations/list-page-read.ts), as JavaScript's
-- Intl.Collator("en", { sensitivity: "base", numeric: true }) compares them: ICU's English,
-- primary strength (case and accents ignored), digits as numbers. The locale is in ICU's own
-- keyword form (PGlite's ICU ignores the BCP 47 form, en-u-kn-true-ks-level1), the semicolon
-- between its keywords written as \073: the migration runner splits statements at every semicolon.
CREATE COLLATION IF NOT EXISTS "name_order" (provider = icu, locale = E'en@colNumeric=yes\073colStrength=primary', deterministic = false);
