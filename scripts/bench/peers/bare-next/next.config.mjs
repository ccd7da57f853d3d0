// A bare Next.js app for the bench: nothing configured, so it measures the framework alone.
export default {};
