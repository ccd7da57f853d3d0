/**
 * The tag of a test that checks how screens look and respond (layout at each width and scheme,
 * axe, contrast, keyboard focus), whose outcome does not depend on the database behind the server.
 * `.ci/run` runs the suite on PGlite and on PostgreSQL at once; these run in one of the two
 * (scripts/test-all.ts, NPM_TEST_SHARED_CHECKS=skip in the other). What a screen shows, and every
 * flow through it, is still tested on both.
 */
export const SCREEN_CHECK_TAG = "@screens";

/** A test's or describe's details that tag it a screen check. */
export const screenCheck = { tag: SCREEN_CHECK_TAG };
