import { apiRoute } from "@/lib/api/handler";
import { HttpError } from "@/lib/api/http-error";

/** Any path nothing else serves: SPEC.md's JSON error body, for every method. */
const notFound = apiRoute(async (request) => {
  const path = new URL(request.url).pathname.slice(0, 200);
  throw new HttpError("not_found", `Nothing is served at ${path}. See /docs for the API reference.`);
});

export {
  notFound as GET,
  notFound as POST,
  notFound as PUT,
  notFound as PATCH,
  notFound as DELETE,
  notFound as HEAD,
  notFound as OPTIONS,
};
