import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";
import { prettyJson } from "./format.js";

/** An error, announced (role=alert); nothing when there is none. */
export function ErrorAlert({ error }: { error: Error | string | undefined }) {
  if (!error) return null;
  return (
    <p role="alert" class="alert">
      {typeof error === "string" ? error : error.message}
    </p>
  );
}

/** A value as indented JSON in a <pre>, always as text. */
export function JsonBlock({ value }: { value: unknown }) {
  return <pre class="code">{prettyJson(value)}</pre>;
}

/** A region of a page under its <h2>, named by it. */
export function Section({ title, children, class: className }: { title: string; children: ComponentChildren; class?: string }) {
  const id = useId();
  return (
    <section aria-labelledby={id} class={className}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** The page's one <h1>, which also names the browser tab. */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${ref.current?.textContent ?? ""} · Switchyard console`;
  }, [children]);
  return <h1 ref={ref}>{children}</h1>;
}

/** A term and its value in a <dl>, skipped when there is no value. */
export function Fact({ term, children }: { term: string; children: ComponentChildren }) {
  if (children === undefined || children === null || children === "") return null;
  return (
    <div class="fact">
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** A scrollable table with a header row; `caption` names it for screen readers, `rows` are its <tr>s. */
export function Table({ caption, headers, class: className, children }: { caption?: string; headers: ComponentChildren[]; class?: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table class={className}>
        {caption && <caption class="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {headers.map((header, i) => (
              <th scope="col" key={i}>
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
