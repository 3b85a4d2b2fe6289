import { PageTitle } from "../ui.js";

/** An address under /console that names no page. */
export function NotFoundPage() {
  return (
    <>
      <PageTitle>Not found</PageTitle>
      <p>
        No console page has this address. <a href="/console">Go to the approvals</a>.
      </p>
    </>
  );
}
